"""LangSmith run exports (JSONL, one run per line) → session trees, one per trace.

Source of the format: the ``langsmith`` package 0.14.17 (PyPI, langchain-ai/langsmith-sdk):
``langsmith/schemas.py`` (``RunBase``/``Run``: ``id``, ``name``, ``run_type``, ``start_time``,
``end_time``, ``inputs``, ``outputs``, ``extra``, ``events``, ``parent_run_id``, ``trace_id``,
``dotted_order``, ``prompt_tokens``, ``completion_tokens``, ``first_token_time``),
``wrappers/_openai.py`` (``wrap_openai`` records the request kwargs as ``inputs`` and the
ChatCompletion with ``usage_metadata`` as ``outputs``), ``run_helpers.py`` (the first
``new_token`` event of a streamed LLM run), ``_internal/_ls_agent_type.py`` (``extra.metadata.
ls_agent_type`` ``"subagent"``), and the "Run (span) data format" page of the LangSmith docs.
LangChain's tracer records chat inputs as ``{"messages": [[serialized messages]]}`` and
outputs as ``{"generations": [[{"message": ...}]], "llm_output": {"token_usage": ...}}``.

Input: JSONL of runs (the export shape), or a JSON array / ``{"runs": [...]}`` of them.
Mapping (docs/importers.md, ``langsmith``): a trace → a session; ``llm`` runs → ``llm`` steps
(their input messages as the recorded history, kept only where replay would derive another;
output text and tool calls; usage; duration; TTFT from the first ``new_token`` event);
``tool`` runs → ``tool`` steps; ``retriever`` → ``retrieve``; ``embedding`` → ``embed``. A
**subagent** is a run with LLM calls below it that sits directly under a ``tool`` run, or one
flagged ``ls_agent_type: subagent`` (a wrapper with no LLM call of its own yields to the
subagents inside it): it becomes a ``spawn`` step at its start, joined before the first step
of its parent that starts after it ended (the tool step that delegated to it comes after the
join). Steps are ordered by start time (then ``dotted_order``); gaps become ``wait`` steps,
or ``think_time_s`` where a call's input holds more user messages than the last one's.

Reading the runs is in :mod:`.langsmith_runs`; the conversion of one trace in
:mod:`.langsmith_tree`; the importer's entry points and the source's own counts here.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from agentic_bench.trace.importers.common import fail
from agentic_bench.trace.importers.langsmith_runs import (
    SOURCE,
    Run,
    input_messages,
    message,
    output,
    owner,
    read_runs,
    subagents,
    usage,
)
from agentic_bench.trace.importers.langsmith_tree import session_of
from agentic_bench.trace.model import Session
from agentic_bench.trace.profile import TraceProfile


def detect(head: str) -> bool:
    """A LangSmith run: ``run_type`` with ``trace_id``/``parent_run_id``/``dotted_order``."""
    return '"run_type"' in head and ('"dotted_order"' in head or '"trace_id"' in head
                                     or '"parent_run_id"' in head) and '"start_time"' in head


def _traces(runs: list[Run]) -> list[list[Run]]:
    groups: dict[str, list[Run]] = {}
    for r in runs:
        groups.setdefault(r.trace_id, []).append(r)
    for group in groups.values():
        group.sort(key=lambda r: (r.start, r.order))
    return sorted(groups.values(), key=lambda g: g[0].start)


def import_langsmith(path: Path) -> Iterator[Session]:
    runs = read_runs(Path(path))
    subs = subagents(runs)
    t_first = min((r.start for r in runs), default=0.0)
    found = False
    for group in _traces(runs):
        if not any(r.run_type == "llm" for r in group):
            continue  # nothing to replay (profile_source notes these)
        found = True
        yield session_of(group, subs, t_first, path)
    if not found:
        raise fail(path, 0, "run_type", "no llm run found: nothing to replay")


def profile_source(path: Path) -> TraceProfile:
    """The source's own counts, read from the runs: sessions = traces with an llm run;
    requests = llm runs; their tokens and tool calls; subagents (the rule above); gaps from
    an llm run's end to the next llm run's start of the same agent."""
    prof = TraceProfile()
    runs = read_runs(Path(path))
    subs = subagents(runs)
    skipped = 0
    for group in _traces(runs):
        llm = [r for r in group if r.run_type == "llm"]
        if not llm:
            skipped += 1
            continue
        n = sum(1 for s in subs if s.trace_id == group[0].trace_id)
        prof.sessions, prof.subagents, prof.trees = (prof.sessions + 1, prof.subagents + n,
                                                    prof.trees + (n > 0))
        last: dict[int, Run] = {}
        for r in llm:
            prof.requests += 1
            u, out = usage(r), output(r)
            prof.input_tokens.append(u.get("input_tokens"))
            prof.output_tokens.append(u.get("output_tokens"))
            prof.tool_calls += len(out[1]) if out else 0
            key = id(owner(r, subs, True))
            prev = last.get(key)
            if prev is not None and prev.end is not None and r.start >= prev.end:
                prof.gaps_s.append(round(r.start - prev.end, 6))
            last[key] = r
    if skipped:
        prof.notes.append(f"{skipped} trace(s) without an llm run: nothing to replay")
    prof.notes.append("LangSmith records no prefix-cache layout")
    return prof


import_langsmith.detect = detect  # type: ignore[attr-defined]

__all__ = ["SOURCE", "Run", "detect", "import_langsmith", "input_messages", "message",
           "output", "owner", "profile_source", "read_runs", "subagents", "usage"]
