"""Streaming JSONL reader/writer for traces, with file:line:field errors.

Nothing here loads a whole file: lines are read one at a time with a length cap, so a
single huge line costs bounded memory. :class:`TraceFile` validates a file in one pass and
remembers only each session's byte offset, so replays can cycle through a trace of any size.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from agentic_bench.errors import TraceError, TraceProblem
from agentic_bench.trace.model import SUPPORTED_SCHEMA_VERSIONS, Session
from agentic_bench.trace.semantics import check_session

DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024
_SKIP_CHUNK = 1024 * 1024


@dataclass
class RawLine:
    lineno: int
    offset: int
    data: bytes | None  # None when the line was over the cap (then ``size`` says how long)
    size: int


def iter_raw_lines(
    fh: IO[bytes], max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
) -> Iterator[RawLine]:
    """Yield each line of a binary file without ever holding more than the cap in memory."""
    lineno = 0
    offset = fh.tell()
    while True:
        chunk = fh.readline(max_line_bytes + 1)
        if not chunk:
            return
        lineno += 1
        if len(chunk) > max_line_bytes and not chunk.endswith(b"\n"):
            size = len(chunk)
            while True:  # skip the rest of the oversized line in bounded pieces
                rest = fh.readline(_SKIP_CHUNK)
                size += len(rest)
                if not rest or rest.endswith(b"\n"):
                    break
            yield RawLine(lineno, offset, None, size)
        else:
            yield RawLine(lineno, offset, chunk, len(chunk))
        offset = fh.tell()


def _field_path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


_NESTING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


def json_loads(text: str | bytes | bytearray) -> Any:
    """``json.loads``, except that a document nested deeper than the parser can follow raises
    :class:`json.JSONDecodeError` (which every trace reader already reports at ``file:line``)
    instead of :class:`RecursionError`."""
    try:
        return json.loads(text)
    except RecursionError:
        raise too_deep(text) from None


def too_deep(text: str | bytes | bytearray) -> json.JSONDecodeError:
    """The :class:`json.JSONDecodeError` for JSON nested too deeply, placed where it first gets
    deeper than the parser's limit (about the recursion limit: one level per array or object)."""
    doc = text if isinstance(text, str) else bytes(text).decode("utf-8", "replace")
    limit = sys.getrecursionlimit()
    depth = deepest = pos = 0
    for match in _NESTING.finditer(doc):  # one pass; strings skipped whole
        if match.group() in "[{":
            depth += 1
            if depth > deepest and deepest < limit:  # where it first gets too deep
                deepest, pos = depth, match.start()
            deepest = max(deepest, depth)
        elif match.group() in "]}":
            depth -= 1
    return json.JSONDecodeError(f"nested {deepest} levels deep (arrays/objects), deeper than "
                                f"the parser allows (expected at most about {limit})", doc, pos)


def malformed_json_message(exc: json.JSONDecodeError) -> str:
    """Say where a line's JSON breaks, by the column of that line (1-based, characters).

    Parse the line without its terminator: otherwise JSON skips the trailing newline as
    whitespace and places an error at the end on "line 2, column 1".
    """
    if exc.pos >= len(exc.doc):
        return f"malformed JSON: {exc.msg} at the end of the line (column {exc.colno})"
    return f"malformed JSON: {exc.msg} at column {exc.colno}"


def parse_line(raw: RawLine, path: str) -> tuple[Session | None, list[TraceProblem]]:
    """Parse one line into a session, or return the problems that stop it."""

    def problem(fieldname: str, message: str) -> list[TraceProblem]:
        return [TraceProblem(path, raw.lineno, fieldname, message)]

    if raw.data is None:
        return None, problem("", f"line is {raw.size} bytes, over the line-length cap")
    try:
        text = raw.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, problem("", f"not valid UTF-8 (byte {exc.start}: {exc.reason})")
    if not text.strip():
        return None, []
    try:
        obj = json_loads(text.rstrip("\r\n"))
    except json.JSONDecodeError as exc:
        return None, problem("", malformed_json_message(exc))
    if not isinstance(obj, dict):
        return None, problem("", f"expected a JSON object (one session), got {type(obj).__name__}")
    version = obj.get("schema_version")
    if version is None:
        return None, problem("schema_version", "missing (required on every line)")
    if str(version) not in SUPPORTED_SCHEMA_VERSIONS:
        supported = ", ".join(sorted(SUPPORTED_SCHEMA_VERSIONS))
        return None, problem(
            "schema_version", f"unknown version {version!r} (supported: {supported})")
    try:
        session = Session.model_validate(obj)
    except ValidationError as exc:
        return None, [
            TraceProblem(path, raw.lineno, _field_path(err["loc"]), err["msg"])
            for err in exc.errors(include_url=False)
        ]
    return session, [
        TraceProblem(path, raw.lineno, f, m) for f, m in check_session(session)
    ]


@dataclass
class ValidationReport:
    """The result of validating a trace file: sessions and lines read, every problem found and
    each session's byte offset."""

    path: str
    sessions: int = 0
    lines: int = 0
    problems: list[TraceProblem] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and self.sessions > 0


def validate_file(
    path: str | Path, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
) -> ValidationReport:
    """Check every line of a trace; collect every problem (file, line, field path)."""
    spath = str(path)
    report = ValidationReport(spath)
    seen: dict[str, int] = {}
    try:
        fh = open(path, "rb")
    except OSError as exc:
        report.problems.append(TraceProblem(spath, 0, "", f"cannot open: {exc.strerror}"))
        return report
    with fh:
        head = fh.read(8192)
        if b"\x00" in head:  # one clear problem, not one per "line" of a binary file
            report.problems.append(TraceProblem(
                spath, 0, "", "a binary file (it holds NUL bytes), not a JSONL trace"))
            return report
        fh.seek(0)
        for raw in iter_raw_lines(fh, max_line_bytes):
            report.lines = raw.lineno
            session, problems = parse_line(raw, spath)
            report.problems.extend(problems)
            if session is None:
                continue
            first = seen.get(session.session_id)
            if first is not None:
                report.problems.append(TraceProblem(
                    spath, raw.lineno, "session_id",
                    f"duplicate session id {session.session_id!r} (first on line {first})"))
                continue
            seen[session.session_id] = raw.lineno
            report.sessions += 1
            report.offsets.append(raw.offset)
    if report.sessions == 0 and not report.problems:
        report.problems.append(TraceProblem(spath, 0, "", "no sessions in file"))
    return report


class TraceFile:
    """A validated trace: raises :class:`TraceError` on open if any line is bad."""

    def __init__(self, path: str | Path, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> None:
        self.path = Path(path)
        self.max_line_bytes = max_line_bytes
        report = validate_file(self.path, max_line_bytes)
        if report.problems:
            raise TraceError(report.problems)
        self._offsets = report.offsets

    def __len__(self) -> int:
        return len(self._offsets)

    def session(self, index: int) -> Session:
        with open(self.path, "rb") as fh:
            fh.seek(self._offsets[index])
            raw = next(iter_raw_lines(fh, self.max_line_bytes))
        session, problems = parse_line(raw, str(self.path))
        if session is None or problems:
            raise TraceError(problems or [TraceProblem(str(self.path), 0, "", "changed on disk")])
        return session

    def __iter__(self) -> Iterator[Session]:
        with open(self.path, "rb") as fh:
            for raw in iter_raw_lines(fh, self.max_line_bytes):
                session, _ = parse_line(raw, str(self.path))
                if session is not None:
                    yield session


def session_to_json(session: Session) -> str:
    """One session as a line of the native JSONL trace format (no newline)."""
    return session.model_dump_json(exclude_none=True)


def write_sessions(path: str | Path, sessions: Iterable[Session]) -> int:
    """Write sessions as JSONL (one per line); returns how many were written."""
    n = 0
    with open(path, "w", encoding="utf-8") as fh:
        for session in sessions:
            fh.write(session_to_json(session) + "\n")
            n += 1
    return n
