"""Reading Weka traces: a ``.json`` file (one trace object), a directory of them, or a JSONL
file of trace objects (one per line, as the Hugging Face corpora's ``traces.jsonl``).

Nothing holds a corpus in memory: :func:`scan` reads one trace at a time, checks it and keeps
only where it was (file, line, byte offset); :class:`WekaCorpus` re-reads a trace by its
position when a replay needs it. Every problem is reported as ``file:line: field: message``
(for a pretty-printed ``.json`` file, the line of the field; for JSONL, the trace's line).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from pydantic import ValidationError

from agentic_bench.errors import TraceError, TraceProblem, UsageError
from agentic_bench.trace.jsonl import iter_raw_lines
from agentic_bench.trace.weka.json_lines import lines_of
from agentic_bench.trace.weka.model import WekaTrace

SUFFIXES = (".json", ".jsonl")
MAX_LINE_BYTES = 1 << 30  # one trace per line; a long coding session is tens of MB


@dataclass(frozen=True)
class WekaSpot:
    """Where one trace is: its file, line (1 for a ``.json`` file) and byte offset."""

    file: Path
    line: int
    offset: int
    jsonl: bool


def weka_files(path: str | Path) -> list[Path]:
    """The trace files of ``path``: itself, or a directory's ``*.json``/``*.jsonl`` files in
    name order (hidden files left out)."""
    p = Path(path)
    if p.is_dir():
        files = sorted(f for f in p.iterdir()
                       if f.is_file() and f.suffix in SUFFIXES and not f.name.startswith("."))
        if not files:
            raise UsageError(f"{p}: no .json or .jsonl trace files in this directory")
        return files
    if not p.is_file():
        raise UsageError(f"{p}: no such file or directory")
    return [p]


def _problems(exc: ValidationError, spot: WekaSpot, text: str | None) -> list[TraceProblem]:
    found: list[tuple[str, str]] = []  # (field path, message)
    for err in exc.errors(include_url=False):
        where = ""
        previous: object = None
        for part in err["loc"]:
            if isinstance(previous, int) and part in ("n", "s", "subagent"):
                previous = part  # the union's tag, not a field of the file
                continue
            where += f"[{part}]" if isinstance(part, int) else ("." if where else "") + str(part)
            previous = part
        message = err["msg"].removeprefix("Value error, ")
        if message.startswith("requests[") and ":" in message:  # a cross-field check's path
            where, _, message = message.partition(": ")
        found.append((where, message))
    # every line placed in one pass over the document (not one pass per problem: #42 item 14)
    lines = lines_of(text, {where for where, _ in found if where}) if text is not None else {}
    return [TraceProblem(str(spot.file), lines.get(where, spot.line), where, message)
            for where, message in found]


def parse_trace(data: bytes, spot: WekaSpot) -> tuple[WekaTrace | None, list[TraceProblem]]:
    """One trace from its bytes, or the problems that stop it."""
    def problem(message: str, fieldname: str = "") -> list[TraceProblem]:
        return [TraceProblem(str(spot.file), spot.line, fieldname, message)]

    try:
        obj: Any = orjson.loads(data.removeprefix(b"\xef\xbb\xbf"))  # a UTF-8 BOM, if any
    except orjson.JSONDecodeError as exc:  # a .json document's at its own line
        deep = (" (expected at most 1024 levels of arrays/objects)"
                if "depth" in exc.msg or "recursion" in exc.msg else "")  # orjson's limit
        where = (" at the end of the line" if spot.jsonl and exc.lineno > 1  # past its "\n"
                 else f" at column {exc.colno}")
        return None, [TraceProblem(str(spot.file), spot.line if spot.jsonl else exc.lineno, "",
                                   f"malformed JSON: {exc.msg}{deep}{where}")]
    if not isinstance(obj, dict):
        return None, problem(f"expected a JSON object (one Weka trace), got "
                             f"{type(obj).__name__}")
    try:
        return WekaTrace.model_validate(obj), []
    except ValidationError as exc:
        text = None if spot.jsonl else data.decode("utf-8", "replace")
        return None, _problems(exc, spot, text)


def iter_spots(path: str | Path) -> Iterator[tuple[WekaSpot, bytes | None]]:
    """Each trace's position and bytes, file by file (None: a JSONL line over the cap)."""
    for file in weka_files(path):
        if file.suffix == ".jsonl":
            with open(file, "rb") as fh:
                for raw in iter_raw_lines(fh, MAX_LINE_BYTES):
                    if raw.data is not None and not raw.data.strip():
                        continue
                    yield WekaSpot(file, raw.lineno, raw.offset, True), raw.data
        else:
            yield WekaSpot(file, 1, 0, False), file.read_bytes()


@dataclass
class WekaScan:
    """What one pass over a corpus found."""

    path: str
    spots: list[WekaSpot] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    problems: list[TraceProblem] = field(default_factory=list)
    rows: int = 0
    subagents: int = 0


def scan(path: str | Path, on_trace: Any = None) -> WekaScan:
    """Check every trace of ``path``, collecting every problem; ``on_trace(spot, trace)`` sees
    each good one as it is read (for statistics in the same pass)."""
    report = WekaScan(str(path))
    seen: dict[str, WekaSpot] = {}
    for spot, data in iter_spots(path):
        if data is None:
            report.problems.append(TraceProblem(str(spot.file), spot.line, "",
                                                f"line over {MAX_LINE_BYTES} bytes"))
            continue
        trace, problems = parse_trace(data, spot)
        report.problems.extend(problems)
        if trace is None:
            continue
        first = seen.get(trace.id)
        if first is not None:
            report.problems.append(TraceProblem(
                str(spot.file), spot.line, "id", f"duplicate trace id {trace.id!r} (first at "
                f"{first.file}:{first.line})"))
            continue
        seen[trace.id] = spot
        report.spots.append(spot)
        report.ids.append(trace.id)
        report.rows += len(trace.rows())
        report.subagents += sum(1 for e in trace.requests if e.type == "subagent")
        if on_trace is not None:
            on_trace(spot, trace)
    if not report.spots and not report.problems:
        report.problems.append(TraceProblem(str(path), 0, "", "no traces found"))
    return report


def read_spot(spot: WekaSpot) -> WekaTrace:
    """The trace at ``spot`` (read again from disk)."""
    if spot.jsonl:
        with open(spot.file, "rb") as fh:
            fh.seek(spot.offset)
            data = next(iter_raw_lines(fh, MAX_LINE_BYTES)).data or b""
    else:
        data = spot.file.read_bytes()
    trace, problems = parse_trace(data, spot)
    if trace is None:
        raise TraceError(problems or [TraceProblem(str(spot.file), spot.line, "",
                                                   "changed on disk since it was checked")])
    return trace


class WekaCorpus:
    """A checked corpus (raises :class:`TraceError` with every problem when any trace is
    bad); traces are read from disk by index when needed."""

    def __init__(self, path: str | Path, on_trace: Any = None) -> None:
        self.path = Path(path)
        report = scan(path, on_trace)
        if report.problems:
            raise TraceError(report.problems)
        self.report = report
        self.spots = report.spots

    def __len__(self) -> int:
        return len(self.spots)

    def trace(self, index: int) -> WekaTrace:
        return read_spot(self.spots[index])

    def __iter__(self) -> Iterator[WekaTrace]:
        for spot in self.spots:
            yield read_spot(spot)


__all__ = ["MAX_LINE_BYTES", "WekaCorpus", "WekaScan", "WekaSpot", "iter_spots", "parse_trace",
           "read_spot", "scan", "weka_files"]
