"""The package's one error model.

Every failure the package reports to a person derives from `DigestError`; its message is
safe to show as it is (it names the file, line or field and the problem, and never holds
credentials). The CLI prints `digest-tui: <message>` and exits with the class's
`exit_status`: 2 for usage, configuration and data problems (DESIGN's contract), 1 where the
command was right but what it reaches for failed (a server down, a remote refusing); the app
shows them in one place. Classes that callers have long caught as `ValueError` keep that
base too.
"""

from __future__ import annotations


class DigestError(Exception):
    """A failure worth one clear line to the reader."""

    exit_status = 2

    def __init__(self, message: str = "", *, exit_status: int | None = None) -> None:
        super().__init__(message)
        if exit_status is not None:
            self.exit_status = exit_status


# --- configuration and packaged/user data files -------------------------------------------
class ConfigError(DigestError):
    """The config file exists but cannot be used; the message names the file and field."""


class DataFileError(DigestError):
    """A data file (taxonomy, hardware catalog, repro links) cannot be used."""


class TaxonomyError(DataFileError):
    """A taxonomy file cannot be used; the message names the file and the field."""


class HardwareCatalogError(DataFileError):
    """The catalog (packaged or the user's) cannot be used; the message names file and field."""


class EvalDataError(DataFileError):
    """A labelled evaluation file (or the digests it refers to) cannot be used."""


# --- inputs -------------------------------------------------------------------------------
class InputFormatError(DigestError, ValueError):
    """An input file is not of the format it claims; the message names the file."""


class PageFormatError(InputFormatError):
    """The input is not a Daily Papers page at all; the message names the file and the problem."""


class PwcFormatError(InputFormatError):
    """The file is not a JSON array at all (nothing could be streamed from it)."""


# --- the library and user state -----------------------------------------------------------
class StoreError(DigestError):
    """The library file cannot be used; the message says which file and why."""


class RowNotFetched(DigestError, LookupError):
    """The paper list's row at a position is not fetched yet (the list draws a placeholder
    and fetches it; code indexing the list's rows asked too early)."""


class QueryError(DigestError, ValueError):
    """A filter that cannot be applied; the message says which and why."""


class OpsError(DigestError):
    """Ops cannot be stored or applied; the message names the op and the problem."""


class OpFormatError(OpsError):
    """An op (typically from another device) is malformed."""


class StateError(OpsError):
    """A user-state change cannot be made; the message names the paper or list and why."""


class PositionError(OpsError, ValueError):
    """A reading-list position cannot be computed or parsed."""


class ClockError(DigestError, ValueError):
    """A malformed stamp or device id, or a remote stamp beyond the allowed drift."""


# --- the network --------------------------------------------------------------------------
class NetworkError(DigestError):
    """One HTTP request failed (digest_tui.net); the message names the request and the cause."""

    exit_status = 1


class HostUnreachable(NetworkError):
    """No connection could be made (refused, DNS, no route, connect timeout)."""


class DeadlineExceeded(NetworkError):
    """The request (connect, every read, retries and their waits) ran past its deadline."""


class AnswerTooLarge(NetworkError):
    """The answer is larger than the client's cap for it."""


class RequestCancelled(NetworkError):
    """The caller cancelled the request (Ctrl-C, the app closing)."""


class RetriesExhausted(NetworkError):
    """Every attempt failed with a problem worth retrying; the message has the last one."""


class FetchError(DigestError):
    """A page could not be had from the network or the cache; the message says why."""

    exit_status = 1


class Unreachable(FetchError):
    """The host could not be reached at all (refused, DNS, no route, connect timeout)."""


class FetchCancelled(FetchError):
    """The caller asked the fetch to stop (Ctrl-C, or the app closing)."""


class FeedFormatError(FetchError):
    """An arXiv API answer is not a usable Atom feed: not XML, a DTD or entity declaration
    (refused before parsing), or the API's own error entry; the message names the URL."""


class ArxivApiError(FeedFormatError):
    """The arXiv API answered with its error entry (a malformed query); the message quotes it."""


# --- sync ---------------------------------------------------------------------------------
class RemoteError(DigestError):
    """The remote cannot be used; the message is safe to show (no credentials)."""

    exit_status = 1


class RemoteNotFound(RemoteError):
    """A file or directory the caller asked for is not there."""


class RemoteTooLarge(RemoteError):
    """A file on the remote is larger than anything sync writes; that file alone is skipped."""


class RemoteAuthError(RemoteError):
    """The server refused the credentials (or none were found)."""


class RemoteCancelled(RemoteError):
    """The caller asked sync to stop while talking to the remote."""


class CredentialsError(DigestError):
    """Credentials cannot be read or stored; the message contains none."""


class SegmentError(DigestError):
    """A segment or manifest cannot be trusted; the message names the file and the problem."""


class SyncError(DigestError):
    """Sync cannot go on; the message says why and what to do (and holds no credentials)."""

    exit_status = 1


class RemoteMissing(SyncError):
    """The remote has no marker: empty, unmounted, or never initialised."""


class SyncBusy(SyncError):
    """Another sync of this library is running."""


class SyncCancelled(SyncError):
    """The caller cancelled the sync."""


# --- the command line ---------------------------------------------------------------------
class CommandError(DigestError):
    """A user-facing failure of a command: printed as 'digest-tui: <message>'."""


class UnknownPaper(CommandError):
    """No paper has the id, former id, arXiv id or id prefix the user gave."""


class AmbiguousId(CommandError):
    """An id prefix starts the ids of several papers; the message lists them."""
