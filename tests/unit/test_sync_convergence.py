"""Property: whatever the users do and however the files travel, all replicas converge.

Three machines with skewed clocks each sync with their *own copy* of a synced folder. A
Hypothesis state machine interleaves user actions, syncs (with or without compaction, full or
not), and transfers between the copies the way Syncthing or Dropbox make them: any subset of
files, in any order, segments relayed through third machines, deletions of compacted segments
arriving late, a file half-transferred (torn) for a while, conflict copies, and whole
re-uploads of a device's ops (duplicate deliveries). One machine lacks a paper until it
imports it. At the end the copies are brought in step and everyone syncs: every replica must
hold the same derived state.
"""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from digest_tui.errors import OpsError, SyncError
from digest_tui.sync.segments import MARKER
from tests.support.state import DAY_MS, PAPERS, import_papers
from tests.support.sync import Node

IDS = [p.id for p in PAPERS]
NAMES = ["aaaa", "bbbb", "cccc"]
SKEWS = [0, 3 * DAY_MS, -2 * DAY_MS]
TAGS = ["kernels", "moe", "todo"]
LISTS = ["thesis", "later"]
NOTES = ["", "first", "second thought"]

who = st.sampled_from([0, 1, 2])
# Two different machines (plain integers would mostly draw the same small ones).
pair = st.permutations([0, 1, 2]).map(lambda p: (p[0], p[1]))
paper = st.integers(0, len(IDS) - 1)


def _owner(relative: Path) -> str | None:
    """The device that writes this file (None for the marker)."""
    parts = relative.parts
    if parts[0] == "segments" and len(parts) == 3:
        return parts[1]
    if parts[0].startswith("device-") and parts[0].endswith(".json"):
        return parts[0][len("device-") : -len(".json")]
    return None


class SyncMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.nodes: list[Node] = []
        self.seen_ops: dict[int, int] = {}  # node index -> ops it held at the last check
        self.tmp: Path | None = None

    @initialize(compact_at=st.integers(2, 4))
    def setup(self, compact_at: int) -> None:
        import tempfile

        self.tmp = Path(tempfile.mkdtemp(prefix="sync-prop-"))
        first = self.tmp / "aaaa"
        first.mkdir()
        for index, name in enumerate(NAMES):
            folder = self.tmp / name
            if index:
                folder.mkdir()
                shutil.copy(first / MARKER, folder / MARKER)
            papers = PAPERS if index < 2 else PAPERS[:-1]  # cccc lacks the last paper
            self.nodes.append(
                Node(name, folder, skew_ms=SKEWS[index], papers=papers, compact_at=compact_at)
            )
        self.missing_imported = False

    def teardown(self) -> None:
        for node in self.nodes:
            node.conn.close()
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)

    # ---- user actions ---------------------------------------------------------------------

    def _act(self, index: int, action) -> None:  # type: ignore[no-untyped-def]
        # OpsError: e.g. a list not known here yet, or the paper cccc lacks (the user sees why).
        with contextlib.suppress(OpsError):
            action(self.nodes[index].state)

    @rule(
        i=who,
        p=paper,
        action=st.one_of(
            st.tuples(st.sampled_from(["bookmark", "read"]), st.booleans()),
            st.tuples(st.sampled_from(["tag", "untag"]), st.sampled_from(TAGS)),
            st.tuples(st.just("note"), st.sampled_from(NOTES), st.booleans()),
            st.tuples(
                st.sampled_from(["create", "add", "remove", "move", "delete"]),
                st.sampled_from(LISTS),
            ),
        ),
    )
    def act(self, i: int, p: int, action: tuple) -> None:
        """One user action on one machine, in one transaction (as the CLI or the TUI does)."""
        kind, arg = action[0], action[1]
        ident = IDS[p]
        do = {
            "bookmark": lambda s: s.bookmark(ident, arg),
            "read": lambda s: s.set_read(ident, arg),
            "tag": lambda s: s.add_tags(ident, [arg]),
            "untag": lambda s: s.remove_tags(ident, [arg]),
            # A stale editor saw no version at all: its save conflicts with what exists.
            "note": lambda s: s.set_note(ident, arg, replaces=[] if action[2] else None),
            "create": lambda s: s.create_list(arg),
            "add": lambda s: s.add_to_list(arg, [ident]),
            "remove": lambda s: s.remove_from_list(arg, [ident]),
            "move": lambda s: s.move_in_list(arg, ident, index=1),
            "delete": lambda s: s.delete_list(arg),
        }[kind]
        self._act(i, do)

    @rule(i=who, ms=st.integers(0, 5_000))
    def sleep(self, i: int, ms: int) -> None:
        self.nodes[i].replica.wall.ms += ms

    @precondition(lambda self: not self.missing_imported)
    @rule()
    def import_missing_paper(self) -> None:
        import_papers(self.nodes[2].replica.library, PAPERS[-1:], day="2025-12-11")
        self.missing_imported = True

    # ---- sync and the files travelling ---------------------------------------------------

    @rule(i=who, compact=st.booleans(), full=st.booleans())
    def sync(self, i: int, compact: bool, full: bool) -> None:
        self._sync(i, compact=compact, full=full)

    @rule(ij=pair, everything=st.booleans(), data=st.data())
    def sync_and_share(self, ij: tuple[int, int], everything: bool, data) -> None:  # type: ignore[no-untyped-def]
        """A machine syncs, and its sync tool carries (some of) its files to another."""
        i, j = ij
        self._sync(i, compact=True, full=False)
        self.transfer(i, j, everything, data)

    def _sync(self, i: int, *, compact: bool, full: bool) -> None:
        report = self.nodes[i].sync(compact=compact, full=full)
        for what, count in (
            ("applied ops", report.applied),
            ("merged segments", report.merged_segments),
            ("deleted segments", report.deleted_segments),
            ("rejected a torn segment", sum(s.kind == "corrupt" for s in report.skipped)),
            ("saw a conflict copy", sum(s.kind == "conflict" for s in report.skipped)),
        ):
            if count:
                event(what)

    @rule(pair=pair, everything=st.booleans(), data=st.data())
    def transfer_rule(self, pair: tuple[int, int], everything: bool, data) -> None:  # type: ignore[no-untyped-def]
        self.transfer(pair[0], pair[1], everything, data)

    def transfer(self, src: int, dst: int, everything: bool, data) -> None:  # type: ignore[no-untyped-def]
        """The files that differ travel from one copy to another: all of them, or some of
        them in random order (the rest later, or never)."""
        if src == dst:
            return
        source, target = self.nodes[src].folder, self.nodes[dst].folder
        moves = self._differences(source, target, NAMES[src])
        if not moves:
            return
        if everything:
            chosen = data.draw(st.permutations(moves))
        else:
            chosen = data.draw(st.lists(st.sampled_from(moves), unique=True, max_size=len(moves)))
        for kind, relative in chosen:
            self._apply(kind, source, target, relative)

    @rule(pair=pair, data=st.data())
    def torn_transfer(self, pair: tuple[int, int], data) -> None:  # type: ignore[no-untyped-def]
        """A segment arrives half-written under its final name (a sync tool that is no
        better than it should be); a later transfer completes it."""
        src, dst = pair
        source, target = self.nodes[src].folder, self.nodes[dst].folder
        segments = sorted(
            p.relative_to(source)
            for p in source.glob("segments/*/ops-*")
            if not (target / p.relative_to(source)).exists()
        )
        if not segments:
            return
        relative = data.draw(st.sampled_from(segments))
        payload = (source / relative).read_bytes()
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        cut = data.draw(st.integers(0, max(len(payload) - 1, 0)))
        (target / relative).write_bytes(payload[:cut])

    @rule(i=who, data=st.data())
    def conflict_copy(self, i: int, data) -> None:  # type: ignore[no-untyped-def]
        folder = self.nodes[i].folder
        candidates = sorted(p for p in folder.rglob("*") if p.is_file() and p.name != MARKER)
        if not candidates:
            return
        original = data.draw(st.sampled_from(candidates))
        stem, dot, ext = original.name.partition(".")
        shutil.copy(original, original.with_name(f"{stem}.sync-conflict-20251201-0000-X{dot}{ext}"))

    @rule(i=who)
    def upload_everything_again(self, i: int) -> None:
        """Duplicate delivery: the device forgets what it uploaded and sends it all again."""
        node = self.nodes[i]
        node.conn.execute("UPDATE ops SET synced = 0 WHERE origin = 'local'")

    def _differences(self, source: Path, target: Path, src_name: str) -> list[tuple[str, Path]]:
        moves: list[tuple[str, Path]] = []
        for path in sorted(source.rglob("*")):
            if not path.is_file() or path.name.startswith("."):
                continue
            relative = path.relative_to(source)
            owner = _owner(relative)
            there = target / relative
            if owner != src_name:
                # Relayed through a third machine: a segment (immutable) that is missing there.
                # A manifest travels from its owner's copy only, and so does the repair of a
                # torn file: the owner's copy is the one a sync tool tracks as current.
                if relative.parts[0] == "segments" and not there.exists():
                    moves.append(("copy", relative))
                continue
            if not there.exists() or there.read_bytes() != path.read_bytes():
                moves.append(("copy", relative))
        # Deletions (compaction) travel from the owner's copy.
        own_dir = target / "segments" / src_name
        if own_dir.is_dir():
            for path in sorted(own_dir.iterdir()):
                relative = path.relative_to(target)
                if not (source / relative).exists() and ".sync-conflict-" not in path.name:
                    moves.append(("delete", relative))
        return moves

    @staticmethod
    def _apply(kind: str, source: Path, target: Path, relative: Path) -> None:
        there = target / relative
        if kind == "delete":
            there.unlink(missing_ok=True)
            return
        there.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source / relative, there)

    # ---- the property -----------------------------------------------------------------------

    @invariant()
    def nothing_local_is_ever_lost(self) -> None:
        for index, node in enumerate(self.nodes):
            count = node.op_count()
            assert count >= self.seen_ops.get(index, 0)
            self.seen_ops[index] = count

    def settle(self) -> None:
        if not self.missing_imported:
            self.import_missing_paper()
        for _round in range(4):
            for index, node in enumerate(self.nodes):
                node.sync()
                for other in range(len(self.nodes)):
                    if other != index:
                        for kind, relative in self._differences(
                            node.folder, self.nodes[other].folder, NAMES[index]
                        ):
                            self._apply(kind, node.folder, self.nodes[other].folder, relative)
        snapshots = [node.snapshot() for node in self.nodes]
        assert snapshots[0] == snapshots[1] == snapshots[2]


class ConvergenceTest(SyncMachine):
    def teardown(self) -> None:
        try:
            if self.nodes:
                self.settle()
        except SyncError as exc:  # pragma: no cover - a failure to report, not to hide
            raise AssertionError(f"sync failed while settling: {exc}") from exc
        finally:
            super().teardown()


TestSyncConvergence = ConvergenceTest.TestCase
TestSyncConvergence.settings = settings(
    stateful_step_count=40,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
