"""Reading and checking of ATIF trajectories (the format and the mapping are described in
:mod:`.atif`'s docstring): each trajectory object as a :class:`Doc` checked as Harbor's models
check it, the files and folders they come in, the :class:`Resolver` that finds the trajectory
a subagent ref names, and the helpers the conversion (:mod:`.atif_tree`), the source profile
and the entry points (:mod:`.atif`) share: message text, LLM-call steps, producer durations,
and :func:`drop_derivable` (which the LangSmith importer uses too).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agentic_bench.errors import TraceError
from agentic_bench.trace.history import messages_before, walk_steps
from agentic_bench.trace.importers.common import fail, iter_jsonl, load_json
from agentic_bench.trace.jsonl import json_loads
from agentic_bench.trace.model import LlmStep, Session

SOURCE = "atif"
_HEAD = re.compile(r'"schema_version"\s*:\s*"ATIF-v\d')
SOURCES = ("system", "user", "agent")
# producer extensions read from ``metrics.extra`` / the step's ``extra`` (not ATIF fields)
DURATION_KEYS = ("llm_stream_duration_ms", "llm_duration_ms", "latency_ms")
TTFT_KEYS = ("llm_first_token_latency_ms", "ttft_ms")


@dataclass
class Doc:
    """One trajectory object and where it was read (for errors and for resolving refs)."""

    data: dict[str, Any]
    path: Path
    line: int
    where: str = ""  # JSON path prefix inside the document
    parent: Doc | None = None

    def at(self, suffix: str) -> str:
        return f"{self.where}{suffix}"

    def err(self, suffix: str, message: str) -> TraceError:
        return fail(self.path, self.line, self.at(suffix), message)


def detect(head: str) -> bool:
    """An ATIF trajectory: ``"schema_version": "ATIF-v…"`` near the start."""
    return bool(_HEAD.search(head[:4096])) and '"steps"' in head


def parse_time(doc: Doc, value: Any, where: str) -> float | None:
    """An ISO 8601 timestamp as epoch seconds (naive times are UTC); None when absent."""
    if value is None:
        return None
    try:
        t = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise doc.err(where, f"not an ISO 8601 timestamp: {value!r}") from None
    return round((t if t.tzinfo else t.replace(tzinfo=UTC)).timestamp(), 6)


def _check_int(doc: Doc, obj: dict[str, Any], key: str, where: str) -> None:
    v = obj.get(key)
    if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0):
        raise doc.err(f"{where}.{key}", f"expected an integer >= 0, got {v!r}")


def check(doc: Doc) -> None:
    """The fields this importer reads, checked as Harbor's models check them."""
    d = doc.data
    if not str(d.get("schema_version", "")).startswith("ATIF-v"):
        raise doc.err("schema_version", f"expected 'ATIF-v1.x', got {d.get('schema_version')!r}")
    agent = d.get("agent")
    if not isinstance(agent, dict) or not isinstance(agent.get("name"), str):
        raise doc.err("agent.name", "missing: the agent object needs a name")
    steps = d.get("steps")
    if not isinstance(steps, list) or not steps:
        raise doc.err("steps", "missing or empty: a trajectory has at least one step")
    for i, step in enumerate(steps):
        w = f"steps[{i}]"
        if not isinstance(step, dict):
            raise doc.err(w, "a step must be an object")
        if step.get("step_id") != i + 1:
            raise doc.err(f"{w}.step_id", f"expected {i + 1} (sequential from 1), got "
                          f"{step.get('step_id')!r}")
        if step.get("source") not in SOURCES:
            raise doc.err(f"{w}.source", f"expected system, user or agent, got "
                          f"{step.get('source')!r}")
        if not isinstance(step.get("message"), str | list):
            raise doc.err(f"{w}.message", "missing: a string or a list of content parts")
        parse_time(doc, step.get("timestamp"), f"{w}.timestamp")
        ids = set()
        for ci, call in enumerate(step.get("tool_calls") or []):
            cw = f"{w}.tool_calls[{ci}]"
            if not isinstance(call, dict):
                raise doc.err(cw, "a tool call must be an object")
            for key in ("tool_call_id", "function_name"):
                if not isinstance(call.get(key), str) or not call[key]:
                    raise doc.err(f"{cw}.{key}", "missing or not a non-empty string")
            if not isinstance(call.get("arguments"), dict):
                raise doc.err(f"{cw}.arguments", "must be a JSON object")
            ids.add(call["tool_call_id"])
        for key in ("prompt_tokens", "completion_tokens", "cached_tokens"):
            _check_int(doc, step.get("metrics") or {}, key, f"{w}.metrics")
        _check_int(doc, step, "llm_call_count", w)
        for ri, res in enumerate((step.get("observation") or {}).get("results") or []):
            rw = f"{w}.observation.results[{ri}]"
            if not isinstance(res, dict):
                raise doc.err(rw, "a result must be an object")
            sid = res.get("source_call_id")
            if sid is not None and sid not in ids:
                raise doc.err(f"{rw}.source_call_id", f"{sid!r} names no tool call of this step")
            for fi, ref in enumerate(res.get("subagent_trajectory_ref") or []):
                if not isinstance(ref, dict) or not (ref.get("trajectory_id")
                                                     or ref.get("trajectory_path")):
                    raise doc.err(f"{rw}.subagent_trajectory_ref[{fi}]",
                                  "needs trajectory_id or trajectory_path")


def first_line_object(path: Path) -> dict[str, Any] | None:
    """The file's first line as a JSON object (JSON Lines), else None (one JSON document)."""
    try:
        with open(path, "rb") as fh:
            obj = json_loads(fh.readline(1 << 24))
    except (OSError, ValueError):
        return None
    return obj if isinstance(obj, dict) else None


def _docs_of_file(path: Path) -> list[Doc]:
    if first_line_object(path) is not None:
        return [Doc(obj, path, line) for line, obj in iter_jsonl(path)]
    data = load_json(path)
    if not isinstance(data, dict):
        raise fail(path, 0, "", "expected an ATIF trajectory object")
    return [Doc(data, path, 0)]


@dataclass
class Resolver:
    """Finds the trajectory a ``subagent_trajectory_ref`` names (embedded, else a file)."""

    files: dict[Path, list[Doc]] = field(default_factory=dict)

    def load(self, path: Path) -> list[Doc]:
        key = path.resolve()
        if key not in self.files:
            self.files[key] = _docs_of_file(path)
        return self.files[key]

    def resolve(self, doc: Doc, ref: dict[str, Any]) -> Doc | None:
        tid = ref.get("trajectory_id")
        holder: Doc | None = doc
        while tid and holder is not None:  # this trajectory's array, then its parents'
            for i, sub in enumerate(holder.data.get("subagent_trajectories") or []):
                if isinstance(sub, dict) and sub.get("trajectory_id") == tid:
                    return Doc(sub, holder.path, holder.line,
                               holder.at(f"subagent_trajectories[{i}]."), holder)
            holder = holder.parent
        ref_path = ref.get("trajectory_path")
        if isinstance(ref_path, str) and ref_path:
            target = Path(ref_path)
            target = target if target.is_absolute() else doc.path.parent / target
            if target.is_file():
                found = self.load(target)
                return Doc(found[0].data, target, found[0].line, "", doc) if found else None
        return None


def read(path: Path, resolver: Resolver) -> Iterator[Doc]:
    """The root trajectories of a file or folder, each checked."""
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.suffix in (".json", ".jsonl")
                       and p.is_file() and not p.name.startswith(".") and _is_atif(p))
        docs = [d for f in files for d in resolver.load(f)]
        referenced = set()
        for d in docs:
            for ref in refs(d.data):
                if isinstance(ref.get("trajectory_path"), str):
                    target = Path(ref["trajectory_path"])
                    referenced.add((target if target.is_absolute()
                                    else d.path.parent / target).resolve())
        docs = [d for d in docs if d.path.resolve() not in referenced]
    else:
        docs = resolver.load(path)
    for d in docs:
        check(d)
        yield d


def _is_atif(path: Path) -> bool:
    with open(path, "rb") as fh:
        return detect(fh.read(1 << 16).decode("utf-8", "replace"))


def refs(data: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for step in data.get("steps") or []:
        if isinstance(step, dict):
            for res in (step.get("observation") or {}).get("results") or []:
                if isinstance(res, dict):
                    yield from (r for r in res.get("subagent_trajectory_ref") or []
                                if isinstance(r, dict))


def text(message: Any, counts: dict[str, int] | None = None) -> str:
    """A message (string or content parts) as text; media parts are dropped, and counted in
    ``counts`` (a session's counters) when given."""
    if isinstance(message, str):
        return message
    parts = []
    for part in message or []:
        if isinstance(part, dict) and part.get("type") == "text":
            parts.append(str(part.get("text") or ""))
        elif counts is not None:
            counts["dropped_media_parts"] = counts.get("dropped_media_parts", 0) + 1
    return "\n".join(parts)


def is_request(step: dict[str, Any]) -> bool:
    """An agent step that made an LLM call (not copied context, not a no-LLM dispatch)."""
    return (step.get("source") == "agent" and not step.get("is_copied_context")
            and step.get("llm_call_count") != 0)


def extra_ms(step: dict[str, Any], keys: tuple[str, ...]) -> float | None:
    for where in ((step.get("metrics") or {}).get("extra"), step.get("extra")):
        for key in keys:
            v = (where or {}).get(key) if isinstance(where, dict) else None
            if isinstance(v, int | float) and not isinstance(v, bool) and v >= 0:
                return float(v)
    return None


def duration_ms(step: dict[str, Any]) -> float | None:
    """The LLM call's duration, from producer extras (ATIF has no field for it)."""
    return extra_ms(step, DURATION_KEYS)


def drop_derivable(session: Session) -> Session:
    """Remove recorded ``messages`` that replay would derive identically (branches too)."""
    for _, view, vti, si, step in walk_steps(session):
        if not isinstance(step, LlmStep) or step.messages is None:
            continue
        if view is not session and not view.turns[0].user:
            continue  # a branch without a task must keep its recorded histories
        recorded, step.messages = step.messages, None
        if messages_before(view, vti, si) != recorded:
            step.messages = recorded
    return session


__all__ = ["DURATION_KEYS", "SOURCE", "TTFT_KEYS", "Doc", "Resolver", "check", "detect",
           "drop_derivable", "duration_ms", "extra_ms", "first_line_object", "is_request",
           "parse_time", "read", "refs", "text"]
