"""Reading the app's YAML files (config.yaml, taxonomy, hardware catalog, repro links) and
validating them with pydantic, with one error format: `FILE:LINE: field: problem`.

The document is kept as YAML nodes beside the plain data: the nodes' marks give the line where
a field is written, pydantic's `loc` gives the field, so a problem deep in a file points at
its line. Every failure, from unreadable bytes to a wrong type, is raised as the caller's
`DigestError` class, on one line, and carries the `Problem` it describes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from digest_tui.errors import DigestError

Loc = Sequence[str | int]
ModelT = TypeVar("ModelT", bound=BaseModel)


@dataclass(frozen=True)
class Problem:
    """One problem in a file: str() is `FILE:LINE: field: message` (parts that are unknown
    are left out)."""

    path: str
    line: int | None
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        field = f"{self.field}: " if self.field else ""
        return f"{where}: {field}{self.message}"


def fail(error: type[DigestError], problem: Problem) -> DigestError:
    """The caller's error class for `problem`, carrying it as `.problem`."""
    exc = error(str(problem))
    exc.problem = problem  # type: ignore[attr-defined]
    return exc


@dataclass(frozen=True)
class YamlDoc:
    """A parsed YAML file: plain data, the node tree it came from, and where it came from."""

    path: str
    data: Any
    root: Any  # a yaml.Node, or None for an empty document

    def line_of(self, loc: Loc) -> int | None:
        return line_of(self.root, loc)

    def problem(self, loc: Loc, message: str, *, data: Any = None) -> Problem:
        """A problem at the field `loc`, its line from the nodes and its name from the data
        (list items named by their `id` when they have one)."""
        named = field_name(loc, self.data if data is None else data)
        return Problem(self.path, self.line_of(loc), named, message)


def read_text(path: Path, error: type[DigestError]) -> str:
    """A data file's text; unreadable or non-UTF-8 bytes are one-line errors naming it."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        problem = Problem(str(path), None, "", f"cannot read: {exc.strerror or exc}")
        raise fail(error, problem) from exc
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        message = f"not UTF-8 text (byte {exc.start}); save the file as UTF-8"
        raise fail(error, Problem(str(path), line, "", message)) from None


def load_file(path: Path, error: type[DigestError], *, loader: type | None = None) -> YamlDoc:
    """Read and parse one YAML file (`read_text` then `parse`)."""
    return parse(read_text(path, error), str(path), error, loader=loader)


def parse(
    text: str, origin: str, error: type[DigestError], *, loader: type | None = None
) -> YamlDoc:
    """Parse YAML text with a safe loader (libyaml's when installed); a syntax error is one
    line naming the file and the line where the parser gave up."""
    import yaml  # type: ignore[import-untyped]  # deferred: only when a data file is loaded

    loader_class: Any = loader or getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    parser = loader_class(text)
    try:
        root = parser.get_single_node()
        data = parser.construct_document(root) if root is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = f"not valid YAML: {exc.problem or exc}"
        if exc.context and exc.context_mark is not None:
            # An unclosed bracket is noticed at the end of the file: say where it opened.
            message += f" ({exc.context} at line {exc.context_mark.line + 1})"
        line = mark.line + 1 if mark is not None else None
        raise fail(error, Problem(origin, line, "", message)) from None
    except yaml.YAMLError as exc:
        message = f"not valid YAML: {' '.join(str(exc).split())}"
        raise fail(error, Problem(origin, None, "", message)) from None
    finally:
        parser.dispose()
    return YamlDoc(origin, data, root)


def require_mapping(doc: YamlDoc, error: type[DigestError], expected: str) -> dict[str, Any]:
    """The document's top-level mapping ({} for an empty file), or an error saying what the
    top level should be."""
    if doc.data is None:
        return {}
    if not isinstance(doc.data, dict):
        raise fail(error, Problem(doc.path, line_of(doc.root, ()), "", f"expected {expected}"))
    return doc.data


def validate(
    model: type[ModelT],
    doc: YamlDoc,
    error: type[DigestError],
    *,
    data: Any = None,
    prefix: Loc = (),
) -> ModelT:
    """`model` from the document's data (or `data`, a part of it found at `prefix`).

    The first problem is reported with its line and field; the count of any others follows,
    so a file with ten typos still gives one readable line.
    """
    value = doc.data if data is None else data
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        raise validation_error(exc, doc, error, prefix=prefix) from None


def validation_error(
    exc: ValidationError, doc: YamlDoc, error: type[DigestError], *, prefix: Loc = ()
) -> DigestError:
    """A pydantic error as `FILE:LINE: field: problem` (with "(and N more problems)"): the
    first in the file, not in the model's field order."""
    errors = exc.errors()
    first = min(errors, key=lambda e: _line_order(doc.line_of((*prefix, *e["loc"]))))
    loc = (*prefix, *first["loc"])
    more = f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
    message = error_message(first) + (more if len(errors) > 1 else "")
    return fail(error, doc.problem(loc, message))


def _line_order(line: int | None) -> tuple[bool, int]:
    """Sorts problems by line, those without one last (stable: field order among equals)."""
    return (line is None, line or 0)


def problem_order(problem: Problem) -> tuple[bool, int]:
    return _line_order(problem.line)


def error_message(error: Any) -> str:
    message = str(error.get("msg", "invalid value"))
    # pydantic prefixes errors raised by validators; the reader wants the sentence itself.
    return message.removeprefix("Value error, ").removeprefix("Assertion failed, ")


def field_name(loc: Loc, data: Any) -> str:
    """('topics', 2, 'patterns', 0, 'weight') -> "topics[2] (id 'x').patterns[0].weight"."""
    parts: list[str] = []
    node = data
    for key in loc:
        if isinstance(key, int):
            part = f"[{key}]"
            node = node[key] if isinstance(node, list) and 0 <= key < len(node) else None
            if isinstance(node, dict) and isinstance(node.get("id"), str):
                part += f" (id {node['id']!r})"
            parts.append(part)
        else:
            parts.append(("." if parts else "") + str(key))
            node = node.get(key) if isinstance(node, dict) else None
    return "".join(parts)


# --- nodes and lines --------------------------------------------------------------------------


def child(node: Any, key: str | int) -> Any:
    """The value node under `key` in a mapping node, or item `key` of a sequence node."""
    import yaml

    if isinstance(node, yaml.MappingNode) and isinstance(key, str):
        for key_node, value_node in node.value:
            if getattr(key_node, "value", None) == key:
                return value_node
        return None
    if isinstance(node, yaml.SequenceNode) and isinstance(key, int):
        return node.value[key] if 0 <= key < len(node.value) else None
    return None


def line_of(node: Any, loc: Iterable[str | int]) -> int | None:
    """1-based line where the field at `loc` (a pydantic error location) is written.

    That is the line of the deepest key found along `loc` (or of the list item), so an
    unknown field points at its key and a missing one at the mapping that lacks it.
    """
    import yaml

    current = node
    line = _line(node)
    for part in loc:
        if isinstance(current, yaml.MappingNode) and isinstance(part, str):
            pair = next(
                ((k, v) for k, v in current.value if getattr(k, "value", None) == part), None
            )
            if pair is None:
                break
            line = _line(pair[0])
            current = pair[1]
        elif isinstance(current, yaml.SequenceNode) and isinstance(part, int):
            item = child(current, part)
            if item is None:
                break
            line = _line(item)
            current = item
        else:
            break
    return line


def _line(node: Any) -> int | None:
    return node.start_mark.line + 1 if node is not None else None


def duplicate_keys(node: Any) -> list[tuple[str, int]]:
    """Keys that appear twice in one mapping, anywhere in the document, with their lines."""
    import yaml

    found: list[tuple[str, int]] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, yaml.MappingNode):
            seen: set[str] = set()
            for key_node, value_node in current.value:
                key = str(getattr(key_node, "value", ""))
                if key in seen:
                    found.append((key, key_node.start_mark.line + 1))
                seen.add(key)
                stack.append(value_node)
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)
    return sorted(found, key=lambda item: item[1])
