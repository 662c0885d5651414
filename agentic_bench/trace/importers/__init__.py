"""Readers for public trace formats; each converts into :class:`Session` objects.

:data:`IMPORTERS` maps a built-in format name (:data:`FORMATS`) to an :data:`Importer`,
``callable(path) -> Iterator[Session]``; the format modules are imported only when their
importer is called. :data:`NATIVE` is this project's own JSONL (validated as usual), so
``--format auto`` works on any trace: :func:`detect_format` guesses, :func:`resolve_format`
settles ``auto``, :func:`foreign_format_hint` names the format of a file given as ours,
:func:`folder_problem` says why a folder cannot be read as one trace, and
:func:`import_file` reads one (ids made unique by :func:`unique_ids`). See
``docs/importers.md`` for each mapping and what cannot be carried over.

Third-party formats are plugins: an entry point ``importer:NAME`` in the ``agentic_bench.plugins``
group (where the built-ins are registered too, pyproject.toml) naming a callable
``(path) -> Iterable[Session]``, optionally with ``detect(head: str) -> bool`` for
``--format auto``. :func:`available` merges them in (a built-in name always wins), so such a
format works with ``import``, ``replay --format``, ``traces`` and ``validate`` like a built-in.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from agentic_bench.errors import UsageError
from agentic_bench.trace.jsonl import DEFAULT_MAX_LINE_BYTES, json_loads
from agentic_bench.trace.model import Session

Importer = Callable[[Path], Iterator[Session]]

_TARGETS = {
    "abench": "abench:import_abench",
    "atif": "atif:import_atif",
    "claude-code": "claude_code:import_claude_code",
    "codex": "codex:import_codex",
    "dynamo": "dynamo:import_dynamo",
    "langsmith": "langsmith:import_langsmith",
    "mlcommons-agentic": "mlcommons:import_mlcommons",
    "mooncake": "mooncake:import_mooncake",
    "otel-genai": "otel:import_otel",
    "sglang-agentic": "sglang:import_sglang",
    "sharegpt": "sharegpt:import_sharegpt",
    "tracelab": "tracelab:import_tracelab",
    "weka": "weka:import_weka",
}
NATIVE = "native"
# built-in formats recognised by their module's own ``detect(head) -> bool`` (after the rules of
# _detect_builtin, before plugins), in this order
# formats whose input may be a folder
FOLDER_FORMATS = frozenset({"weka", "claude-code", "abench"})
_DETECTING = ("claude_code", "codex", "atif", "langsmith", "dynamo", "tracelab", "abench")


def _lazy(target: str) -> Importer:
    module, func = target.split(":")

    def run(path: Path) -> Iterator[Session]:
        mod = importlib.import_module(f"agentic_bench.trace.importers.{module}")
        sessions: Iterator[Session] = getattr(mod, func)(Path(path))
        return sessions

    run.__name__ = func
    run.__doc__ = f"Import a {module} file (see agentic_bench.trace.importers.{module})."
    return run


def _native(path: Path) -> Iterator[Session]:
    from agentic_bench.trace.jsonl import TraceFile

    return iter(TraceFile(path))  # validates the whole file first (raises TraceError)


IMPORTERS: dict[str, Importer] = {name: _lazy(t) for name, t in _TARGETS.items()}
IMPORTERS[NATIVE] = _native
FORMATS = tuple(sorted(IMPORTERS))  # the built-in formats


def _plugin_importer(ref: Any) -> Importer:
    def run(path: Path) -> Iterator[Session]:
        sessions = ref.load()(Path(path))
        for session in sessions:
            if not isinstance(session, Session):
                raise UsageError(f"importer plugin {ref.name!r} yielded "
                                 f"{type(session).__name__}, not a Session")
            yield session

    run.__name__ = f"plugin_{ref.name}"
    return run


def _plugins() -> dict[str, Any]:
    from agentic_bench.plugins import discover_plugins

    return {name: ref for (_, name), ref in discover_plugins("importer").items()
            if name not in IMPORTERS}


def available() -> dict[str, Importer]:
    """Every importer by format name: the built-ins and the installed ``importer:`` plugins."""
    return {**IMPORTERS, **{name: _plugin_importer(ref) for name, ref in _plugins().items()}}


def _detect_plugin(head: str) -> str | None:
    for name, ref in sorted(_plugins().items()):
        try:
            detect = getattr(ref.load(), "detect", None)
            if callable(detect) and detect(head):
                return str(name)
        except Exception:  # a broken plugin never breaks detection of the others
            continue
    return None


def detect_format(path: str | Path, sniff_bytes: int = 1 << 16) -> str | None:
    """Guess a file's format from its first bytes (the built-ins first, then each importer
    plugin's ``detect``); None when nothing matches. A directory is a Weka corpus, a Claude
    Code project folder or an Abench dataset folder when its first ``.json``/``.jsonl``
    (``.jsonl.zst``) file is such a file."""
    if Path(path).is_dir():
        files = _folder_files(Path(path))
        found = detect_format(files[0], sniff_bytes) if files else None
        return found if found in FOLDER_FORMATS else None
    try:
        head = _head(Path(path), sniff_bytes)
    except (OSError, EOFError):
        return None
    return (_detect_builtin(path, head, sniff_bytes) or _detect_module(head)
            or _detect_plugin(head))


def _folder_files(path: Path) -> list[Path]:
    return sorted(f for f in path.iterdir()
                  if f.name.endswith((".json", ".jsonl", ".jsonl.zst"))
                  and not f.name.startswith(".") and f.is_file())


def folder_problem(path: str | Path) -> str | None:
    """Why a folder given as a trace cannot be read as one (None: not a folder, or a folder
    of a format read as a folder: Weka, Claude Code, Abench)."""
    folder = Path(path)
    if not folder.is_dir():
        return None
    files = _folder_files(folder)
    if not files:
        return (f"{path}: an empty folder (no .json, .jsonl or .jsonl.zst file in it); give a "
                "trace file, or a folder of Weka traces, Claude Code sessions or Abench data")
    found = detect_format(files[0])
    if found in FOLDER_FORMATS:
        return None
    kind = f"in the {found} format" if found else "in no format known here"
    return (f"{path}: a folder is read as one trace only for "
            f"{', '.join(sorted(FOLDER_FORMATS))}; its first file {files[0].name} is {kind}: "
            "give the file itself")


def _head(path: Path, sniff_bytes: int) -> str:
    """The first ``sniff_bytes`` of a file as text (of its content, for a gzip file, and for a
    zstd file when the ``zstandard`` package is installed)."""
    with open(path, "rb") as fh:
        raw = fh.read(sniff_bytes)
    if raw[:4] == b"\x28\xb5\x2f\xfd":
        try:
            import zstandard
        except ImportError:
            return ""
        try:
            with open(path, "rb") as fh, zstandard.ZstdDecompressor().stream_reader(fh) as zs:
                raw = zs.read(sniff_bytes)
        except zstandard.ZstdError:
            return ""
    if raw[:2] == b"\x1f\x8b":
        import gzip
        import zlib

        try:
            with gzip.open(path, "rb") as gz:
                raw = gz.read(sniff_bytes)
        except (OSError, zlib.error):
            return ""
    return raw.decode("utf-8", "replace").removeprefix("\ufeff")  # a UTF-8 byte-order mark


def _detect_module(head: str) -> str | None:
    for module in _DETECTING:
        try:
            mod = importlib.import_module(f"agentic_bench.trace.importers.{module}")
        except ModuleNotFoundError:
            continue
        detect = getattr(mod, "detect", None)
        if callable(detect) and detect(head):
            return module.replace("_", "-")
    return None


def _detect_builtin(path: str | Path, head: str, sniff_bytes: int) -> str | None:
    text = head.lstrip()
    if text.startswith("["):
        return "sharegpt" if '"conversations"' in text[:4096] else None
    if not text.startswith("{"):
        return None
    from agentic_bench.trace.importers.claude_code import detect as detect_claude_code

    if detect_claude_code(head):  # its files may open with summary or snapshot lines
        return "claude-code"
    first_line = text.split("\n", 1)[0]
    if "\n" not in text and len(head) == sniff_bytes:  # a long first line: read all of it
        with open(path, "rb") as fh:
            first_line = fh.readline(DEFAULT_MAX_LINE_BYTES).decode("utf-8", "replace")
    try:
        obj = json_loads(first_line)
    except json.JSONDecodeError:
        obj = None
    if isinstance(obj, dict):
        keys = set(obj)
        if "schema_version" in keys and "turns" in keys:
            return NATIVE
        if {"id", "block_size", "requests"} <= keys:
            return "weka"
        if {"conversation_id", "role", "turn"} <= keys or obj.get("_type") == "dataset_metadata":
            return "mlcommons-agentic"
        if {"timestamp", "hash_ids"} <= keys or {"timestamp", "input_length"} <= keys:
            return "mooncake"
        if "resourceSpans" in keys:
            return "otel-genai"
        convo = obj.get("conversations")
        if isinstance(convo, list):
            return "sglang-agentic" if convo and isinstance(convo[0], list) else "sharegpt"
        return None
    # one multi-line JSON document (or one longer than the sniffed bytes): its keys
    from agentic_bench.trace.importers.weka import detect as detect_weka

    if detect_weka(text):
        return "weka"
    if '"resourceSpans"' in text:
        return "otel-genai"
    if '"conversations"' in text:
        after = text.split('"conversations"', 1)[1].lstrip().lstrip(":").lstrip()
        return "sglang-agentic" if after.startswith("[") and after[1:].lstrip().startswith(
            "[") else "sharegpt"
    return None


def foreign_format_hint(path: str | Path) -> str | None:
    """When ``path`` is in another known format than ours, one message that says which and
    what to run instead (rather than a schema error for every line); else None. A folder that
    is not one of a folder format gets its own message (:func:`folder_problem`)."""
    if (problem := folder_problem(path)) is not None:
        return problem
    found = detect_format(path)
    if found is None or found == NATIVE:
        return None
    hint = (f"{path} is in the {found} format, not agentic-bench's native trace format "
            f"(no schema_version): replay it with --format {found} (or --format auto), or "
            f"convert it with `agentic-bench import {found} {path} --out FILE`")
    if found == "mlcommons-agentic":
        hint += ("; it is MLPerf Edge Agentic's performance data: `agentic-bench run "
                 f"agentic-edge --perf-trace {path}` replays it as MLPerf does")
    return hint


def resolve_format(fmt: str, path: str | Path) -> str:
    """``fmt`` itself, or the detected format when ``fmt`` is ``auto``; UsageError if unknown."""
    known = sorted(available())
    if fmt == "auto":
        found = detect_format(path)
        if found is None and (problem := folder_problem(path)) is not None:
            raise UsageError(problem)
        if found is None:
            raise UsageError(f"{path}: cannot tell its format; pass one of {', '.join(known)}")
        return found
    if fmt not in known:
        raise UsageError(f"unknown trace format {fmt!r} (known: {', '.join(known)}, auto)")
    return fmt


def unique_ids(sessions: Iterator[Session]) -> Iterator[Session]:
    """Rename a repeated session id ``x`` to ``x#2``, ``x#3``, ... (sources may repeat ids)."""
    seen: dict[str, int] = {}
    for session in sessions:
        base = session.session_id
        if base in seen:
            seen[base] += 1
            session.session_id = f"{base}#{seen[base]}"
        else:
            seen[base] = 1
        yield session


def import_file(fmt: str, path: str | Path) -> Iterator[Session]:
    """Sessions of ``path`` read as ``fmt`` (a name in IMPORTERS, or ``auto``), ids unique.

    Lazy: a broken input raises :class:`TraceError` while iterating, at the bad record.
    """
    return unique_ids(iter(available()[resolve_format(fmt, path)](Path(path))))


__all__ = ["FORMATS", "IMPORTERS", "NATIVE", "Importer", "available", "detect_format",
           "folder_problem", "foreign_format_hint", "import_file", "resolve_format", "unique_ids"]
