"""Abench trajectories (DeepSWE v1.1 and LMCache) → sessions of LLM calls with their text.

Source: Alibaba's Abench 0.2.0 (PyPI distribution ``agentic-bench`` 0.2.0, module ``abench``,
github.com/AlibabaResearch/abench), read in ``abench/core/dataset.py`` (the session schema
``abench-session-jsonl-v1``, ``NormSession.from_dict``/``NormTurn.from_dict``,
``load_sessions``, the tier catalog ``TIERS``), ``abench/core/workload.py`` (``plan_workload``,
``make_output_policy``, ``tool_delays_ms``) and ``abench/replay/engine.py`` (``_run_session``:
what is sent). Both published sets — ``deepswe`` v1.1 (tiers ``mixed``, ``full``) and
``lmcache`` v1 (tier ``full``) — are that one schema, one session per line::

    {"session_id", "source": {"dataset", "agent", "model", "trial"}, "system_prompt",
     "turns": [{"index", "input_delta": [{"role", "content"}], "assistant_text",
                "input_tokens", "output_tokens", "cached_tokens", "pre_gap_ms",
                "tool_calls": [...]}]}

Each Abench turn is one request: the messages added since the previous reply
(``input_delta``), the recorded reply (``assistant_text``, tool calls folded into its text and
also kept structured in ``tool_calls``), the recorded token counts, and ``pre_gap_ms``, the
time between the previous recorded step and this one.

Inputs (all under the one format name ``abench``): a ``.jsonl`` file, a zstd ``.jsonl.zst``
file (as published; needs the ``zstandard`` package), one session as a ``.json`` document, or
a tier folder as ``abench data`` writes it (its ``*.jsonl``/``*.jsonl.zst`` in name order,
else every ``*.json`` but ``manifest.json``, as ``load_sessions`` reads it). The set is the
session's ``source.dataset``, else the ``dataset`` of a ``manifest.json`` beside the data,
else a path component named ``deepswe`` or ``lmcache``.

Mapping (text, so normal ``llm`` steps whose history is derived):
* the first request's user messages start the first turn; a later request whose new messages
  are tool results answering the previous reply's structured ``tool_calls`` continues the turn
  as ``tool`` steps (paired by position; ``pre_gap_ms`` split over them as ``duration_ms``);
  any other new messages start a turn (``think_time_s`` = ``pre_gap_ms``) whose user message
  is their text joined by a blank line — roles other than ``user`` folded in, as Abench sends
  them with role ``user`` (``metadata.folded_roles`` counts them). An empty ``input_delta``
  continues the turn after a ``wait`` step;
* ``system_prompt`` (else leading ``system`` messages of the first request) → ``system``;
* ``assistant_text`` → ``output.content``; ``tool_calls`` (OpenAI or flat shape) →
  ``output.tool_calls``; ``input_tokens``/``output_tokens`` → ``usage``; ``params`` =
  ``max_tokens`` of the recorded reply (at least 1) and ``ignore_eos``, Abench's ``trace``
  output policy; ``cached_tokens`` → ``metadata.recorded_cached_tokens`` (one per request).
"""

from __future__ import annotations

import io
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from agentic_bench.errors import TraceError
from agentic_bench.trace.importers.common import (
    build_session,
    decode_arguments,
    fail,
    iter_jsonl,
    load_json,
    text_of,
)
from agentic_bench.trace.jsonl import (
    DEFAULT_MAX_LINE_BYTES,
    iter_raw_lines,
    json_loads,
    malformed_json_message,
)
from agentic_bench.trace.model import Session
from agentic_bench.trace.profile import TraceProfile

SETS = ("deepswe", "lmcache")
MANIFEST_KEYS = ("dataset", "tier", "version", "band", "system_prompt_len")


@dataclass(frozen=True)
class _Doc:
    """One raw Abench session: where it is (line 0: a whole JSON document) and its manifest."""

    path: Path
    line: int
    data: dict[str, Any]
    manifest: dict[str, Any]


def _manifest(folder: Path) -> dict[str, Any]:
    """The tier's ``manifest.json`` keys that describe it; {} when absent or unreadable (Abench
    reads it as leniently, ``runner._resolve_profile_knobs``)."""
    try:  # a broken manifest only loses the tier's description
        data = load_json(folder / "manifest.json") if (folder / "manifest.json").is_file() else {}
    except TraceError:
        return {}
    return {k: data[k] for k in MANIFEST_KEYS if isinstance(data, dict) and data.get(k)}


class _Zstd(io.RawIOBase):
    """A zstd file decompressed as a stream that, unlike zstandard's ``stream_reader``, raises
    when the data ends inside a frame (a cut download)."""

    def __init__(self, path: Path, fh: IO[bytes], zstandard: Any) -> None:
        self.path, self.fh, self.zstd = path, fh, zstandard
        self.frame = zstandard.ZstdDecompressor().decompressobj()
        self.pending = self.rest = b""  # decompressed, and compressed past a frame's end
        self.position = 0  # decompressed bytes handed out

    def readable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.position

    def readinto(self, buffer: Any) -> int:
        while not self.pending:
            chunk, self.rest = self.rest or self.fh.read(1 << 20), b""
            if not chunk:
                if not self.frame.eof:
                    raise fail(self.path, 0, "", "the zstd stream ends inside a frame (cut?)")
                return 0
            if self.frame.eof:  # the next frame of a multi-frame file
                self.frame = self.zstd.ZstdDecompressor().decompressobj()
            try:
                self.pending = self.frame.decompress(chunk)
            except self.zstd.ZstdError as exc:
                raise fail(self.path, 0, "", f"not a readable zstd stream: {exc}") from None
            if self.frame.eof:
                self.rest = self.frame.unused_data
        n = min(len(buffer), len(self.pending))
        buffer[:n], self.pending = self.pending[:n], self.pending[n:]
        self.position += n
        return n


def _zst_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        import zstandard
    except ImportError:
        raise fail(path, 0, "", "a .zst file needs the zstandard package (pip install "
                   "zstandard), or decompress it first: zstd -d FILE") from None
    try:
        raw = open(path, "rb")
    except OSError as exc:
        raise fail(path, 0, "", f"cannot open: {exc.strerror}") from None
    with raw, io.BufferedReader(_Zstd(path, raw, zstandard)) as fh:
        for line in iter_raw_lines(fh, DEFAULT_MAX_LINE_BYTES):
            if line.data is None:
                raise fail(path, line.lineno, "", f"line is {line.size} bytes, over the cap")
            if not line.data.strip():
                continue
            try:
                obj = json_loads(line.data.decode("utf-8").rstrip("\r\n"))
            except UnicodeDecodeError as exc:
                raise fail(path, line.lineno, "", f"not valid UTF-8 (byte {exc.start})") from None
            except json.JSONDecodeError as exc:
                raise fail(path, line.lineno, "", malformed_json_message(exc)) from None
            if not isinstance(obj, dict):
                raise fail(path, line.lineno, "", "expected a JSON object (a session)")
            yield line.lineno, obj


def _file_docs(path: Path, manifest: dict[str, Any]) -> Iterator[_Doc]:
    if path.name.endswith(".zst"):
        rows = _zst_lines(path)
    elif path.suffix == ".json":
        data = load_json(path)
        if not isinstance(data, dict):
            raise fail(path, 0, "", "expected one session object")
        rows = iter([(0, data)])
    else:
        rows = iter_jsonl(path)
    for line, data in rows:
        yield _Doc(path, line, data, manifest)


def iter_documents(path: Path) -> Iterator[_Doc]:
    """Every raw session of a file or a tier folder, in Abench's order (``load_sessions``)."""
    if not path.is_dir():
        yield from _file_docs(path, _manifest(path.parent))
        return
    manifest = _manifest(path)
    files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
    data = [p for p in files if p.name.endswith((".jsonl", ".jsonl.zst"))] or [
        p for p in files if p.suffix == ".json" and p.name != "manifest.json"]
    if not data:
        raise fail(path, 0, "", "no *.jsonl, *.jsonl.zst or per-session *.json files here")
    for file in data:
        yield from _file_docs(file, manifest)


def set_name(doc: _Doc) -> str | None:
    """``deepswe``, ``lmcache`` (or another name the data gives), or None when nothing says."""
    source = doc.data.get("source")
    named = source.get("dataset") if isinstance(source, dict) else None
    named = named or doc.manifest.get("dataset")
    if isinstance(named, str) and named:
        return named
    return next((p for p in reversed(doc.path.parts) if p in SETS), None)


@dataclass
class _Turn:
    delta: list[tuple[str, str]]
    text: str
    calls: list[dict[str, Any]]
    input_tokens: int | None
    output_tokens: int | None
    cached_tokens: int | None
    gap_ms: float


class _Reader:
    """Field checks of one raw session; problems raise at file:line: field."""

    def __init__(self, doc: _Doc) -> None:
        self.doc = doc
        self.raw_arguments = 0

    def fail(self, field: str, message: str) -> Exception:
        return fail(self.doc.path, self.doc.line, field, message)

    def count(self, turn: dict[str, Any], key: str, where: str) -> int | None:
        value = turn.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self.fail(f"{where}.{key}", f"must be an integer >= 0, got {value!r}")
        return value

    def call(self, raw: Any, where: str) -> dict[str, Any]:
        if not isinstance(raw, dict):
            raise self.fail(where, "a tool call must be an object")
        fn = raw["function"] if isinstance(raw.get("function"), dict) else raw
        name = fn.get("name")
        if not isinstance(name, str) or not name:
            raise self.fail(f"{where}.name", "missing or empty tool name")
        key = next((k for k in ("arguments", "input", "args") if k in fn), "arguments")
        args = decode_arguments(fn.get(key))
        if args is None and isinstance(fn.get(key), str):  # free text (not a JSON object)
            args, self.raw_arguments = {"raw": fn[key]}, self.raw_arguments + 1
        if args is None:
            raise self.fail(f"{where}.{key}", "arguments must be an object or a string")
        cid = next((raw[k] for k in ("id", "call_id", "tool_call_id") if raw.get(k)), None)
        return {"name": name, "arguments": args, **({"id": str(cid)} if cid else {})}

    def turn(self, raw: Any, k: int) -> _Turn:
        where = f"turns[{k}]"
        if not isinstance(raw, dict):
            raise self.fail(where, "a turn must be an object")
        index = raw.get("index")
        if isinstance(index, bool) or not isinstance(index, int):
            raise self.fail(f"{where}.index", f"must be an integer, got {index!r}")
        delta = raw.get("input_delta")
        if not isinstance(delta, list):
            raise self.fail(f"{where}.input_delta", "must be a list of {role, content}")
        messages = []
        for j, msg in enumerate(delta):
            at = f"{where}.input_delta[{j}]"
            if not isinstance(msg, dict) or not isinstance(msg.get("role"), str):
                raise self.fail(f"{at}.role", "a message needs a string role")
            if not isinstance(msg.get("content"), str | list):
                raise self.fail(f"{at}.content", "must be a string (or a list of text parts)")
            messages.append((msg["role"], text_of(msg["content"])))
        text = raw.get("assistant_text", "")
        if not isinstance(text, str):
            raise self.fail(f"{where}.assistant_text", "must be a string")
        gap = raw.get("pre_gap_ms", 0.0)
        if isinstance(gap, bool) or not isinstance(gap, int | float) or not 0 <= gap < 1e12:
            raise self.fail(f"{where}.pre_gap_ms", f"must be milliseconds >= 0, got {gap!r}")
        calls = raw.get("tool_calls") or []
        if not isinstance(calls, list):
            raise self.fail(f"{where}.tool_calls", "must be a list")
        return _Turn(messages, text, [self.call(c, f"{where}.tool_calls[{i}]")
                                      for i, c in enumerate(calls)],
                     self.count(raw, "input_tokens", where),
                     self.count(raw, "output_tokens", where),
                     self.count(raw, "cached_tokens", where), float(gap))


def _llm(turn: _Turn) -> dict[str, Any]:
    step: dict[str, Any] = {
        "kind": "llm", "params": {"max_tokens": max(1, turn.output_tokens or 0),
                                  "ignore_eos": True},
        "output": {"tool_calls": turn.calls, **({"content": turn.text} if turn.text else {})}}
    usage = {k: v for k, v in (("input_tokens", turn.input_tokens),
                               ("output_tokens", turn.output_tokens)) if v is not None}
    if usage:
        step["usage"] = usage
    return step


def _turns(turns: list[_Turn], system: str | None,
           folded: Counter[str]) -> tuple[str | None, list[dict[str, Any]]]:
    """The session's turns (see the module's rules) and its system prompt."""
    out: list[dict[str, Any]] = []
    previous: list[dict[str, Any]] = []  # the previous reply's structured calls
    for k, turn in enumerate(turns):
        delta = list(turn.delta)
        if k == 0 and not system:
            lead = [c for _, c in _leading(delta, "system", len(delta))]
            system, delta = ("\n\n".join(lead) or None), delta[len(lead):]
        answered = _leading(delta, "tool", len(previous)) if k else []
        rest = delta[len(answered):]
        if answered:
            share = 0.0 if rest else turn.gap_ms / len(answered)
            for call, (_, result) in zip(previous, answered, strict=False):
                out[-1]["steps"].append({
                    "kind": "tool", "name": call["name"], "arguments": call["arguments"],
                    "result": result, "duration_ms": share,
                    **({"call_id": call["id"]} if "id" in call else {})})
        if rest or k == 0:
            folded.update(role for role, _ in rest if role != "user")
            steps = ([{"kind": "wait", "duration_ms": turn.gap_ms,
                       "reason": "before the first request"}] if k == 0 and turn.gap_ms else [])
            out.append({"user": "\n\n".join(c for _, c in rest),
                        "think_time_s": turn.gap_ms / 1000.0 if k else 0.0, "steps": steps})
        elif not answered and turn.gap_ms:
            out[-1]["steps"].append({"kind": "wait", "duration_ms": turn.gap_ms,
                                     "reason": "pre_gap_ms"})
        out[-1]["steps"].append(_llm(turn))
        previous = turn.calls
    return system, out


def _leading(messages: list[tuple[str, str]], role: str, limit: int) -> list[tuple[str, str]]:
    lead: list[tuple[str, str]] = []
    for msg in messages[:limit]:
        if msg[0] != role:
            break
        lead.append(msg)
    return lead


def convert(doc: _Doc) -> Session | None:
    """One raw session as a :class:`Session` (None for a session without turns, which Abench
    drops too: ``select_sessions`` keeps ``min_turns`` >= 1)."""
    data, reader = doc.data, _Reader(doc)
    sid = data.get("session_id")
    if isinstance(sid, bool) or not isinstance(sid, str | int) or sid == "":
        raise reader.fail("session_id", f"must be a non-empty string, got {sid!r}")
    raw_turns = data.get("turns", [])
    if not isinstance(raw_turns, list):
        raise reader.fail("turns", "must be a list")
    if not raw_turns:
        return None
    source = data.get("source") or {}
    if not isinstance(source, dict):
        raise reader.fail("source", "must be an object {dataset, agent, model, trial}")
    system = data.get("system_prompt") or ""
    if not isinstance(system, str):
        raise reader.fail("system_prompt", "must be a string")
    turns = [reader.turn(t, k) for k, t in enumerate(raw_turns)]
    folded: Counter[str] = Counter()
    system_out, out = _turns(turns, system or None, folded)
    name = set_name(doc)
    meta: dict[str, Any] = {
        "source": "abench", "abench_set": name, "abench_session_id": str(sid),
        "abench_source": source, "source_file": doc.path.name, "source_line": doc.line}
    if any(t.cached_tokens is not None for t in turns):
        meta["recorded_cached_tokens"] = [t.cached_tokens for t in turns]
    if isinstance(source.get("model"), str):
        meta["model"] = source["model"]
    if doc.manifest:
        meta["abench_manifest"] = doc.manifest
    if folded:
        meta["folded_roles"] = dict(folded)
    if reader.raw_arguments:
        meta["raw_tool_arguments"] = reader.raw_arguments
    session = {"session_id": str(sid), "system": system_out, "turns": out, "metadata": meta,
               **({"category": name} if name else {})}
    return build_session(session, doc.path, doc.line)


def import_abench(path: Path) -> Iterator[Session]:
    """The sessions of an Abench file or tier folder, in Abench's order."""
    for doc in iter_documents(Path(path)):
        session = convert(doc)
        if session is not None:
            yield session


def detect(head: str) -> bool:
    """An Abench session file: a JSON object whose ``turns`` hold ``input_delta`` lists (the
    first 64 KiB may end inside a long first line, so this looks at keys, not a parse)."""
    text = head.lstrip()
    return (text.startswith("{") and '"input_delta"' in text and '"turns"' in text
            and '"schema_version"' not in text.split('"turns"', 1)[0])


def profile_source(path: Path) -> TraceProfile:
    """Counts taken from the raw sessions: requests are Abench turns (one API call each)."""
    prof = TraceProfile()
    cached = prompt = skipped = 0
    for doc in iter_documents(Path(path)):
        turns = [t for t in doc.data.get("turns") or [] if isinstance(t, dict)]
        if not turns:
            skipped += 1
            continue
        prof.sessions += 1
        for k, turn in enumerate(turns):
            prof.requests += 1
            prof.tool_calls += len(turn.get("tool_calls") or [])
            prof.input_tokens.append(turn.get("input_tokens"))
            prof.output_tokens.append(turn.get("output_tokens"))
            cached += turn.get("cached_tokens") or 0
            prompt += turn.get("input_tokens") or 0
            if k:
                prof.gaps_s.append(float(turn.get("pre_gap_ms") or 0.0) / 1000.0)
    prof.notes += [
        "Abench sessions have no subagents and no request durations, TTFT or timestamps",
        "gaps are pre_gap_ms: the interval between recorded steps, which Abench says also "
        "holds the recording model's generation of the next step (tool_delays_ms subtracts "
        "an estimate of it before waiting)",
        f"prefix_hit not given: cached_tokens is what the recording server reused "
        f"({cached} of {prompt} prompt tokens), not a theoretical hit"]
    if skipped:
        prof.notes.append(f"{skipped} session(s) without turns skipped (Abench drops them)")
    return prof


__all__ = ["detect", "import_abench", "iter_documents", "profile_source", "set_name"]
