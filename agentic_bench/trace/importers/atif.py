"""ATIF (Agent Trajectory Interchange Format) trajectories → session trees.

Source of the format: the ``harbor`` package 0.25.0 (PyPI, laude-institute/harbor), its
pydantic models ``harbor/models/trajectories/{trajectory,step,agent,metrics,tool_call,
observation,observation_result,subagent_trajectory_ref,content}.py`` (``schema_version``
``ATIF-v1.0`` … ``ATIF-v1.8``) and ``docs/rfcs/0001-trajectory-format.md``. A trajectory is a
JSON object: ``agent`` (name, version, model_name, tool_definitions), ``steps`` (``step_id``
1..n, ``source`` system/user/agent, ``message``, ``timestamp``, and on agent steps
``tool_calls`` [{tool_call_id, function_name, arguments}], ``observation.results``
[{source_call_id, content, subagent_trajectory_ref}], ``metrics`` (prompt_tokens incl. cached,
completion_tokens, cached_tokens), ``llm_call_count``, ``is_copied_context``) and
``subagent_trajectories`` (embedded subagents, resolved by ``trajectory_id``; a ref may name
an external file by ``trajectory_path`` instead).

Input: one trajectory per ``.json`` file, JSON Lines of trajectories, or a folder of them
(files another trajectory references by ``trajectory_path`` are its subagents, not sessions).
Mapping (docs/importers.md, ``atif``): system steps before the conversation → ``system``;
each user step → a turn; each agent step that made an LLM call → an ``llm`` step whose
recorded history is the one ATIF implies (kept only where replay would derive another); its
observation results → ``tool`` steps; subagent refs → ``spawn`` steps joined right after
(the parent waits for the delegated result). ATIF records when a step happened, not how long
its call took: the timestamp is taken as the request's start (``start_s``); durations and TTFT
come from producer extras when present (Harbor's kimi-code converter:
``llm_stream_duration_ms``, ``llm_first_token_latency_ms``; tool ``duration_ms``), and only
then are gaps known (``wait`` steps, ``think_time_s``).

Reading and checking are in :mod:`.atif_trajectories`; the conversion of one trajectory in
:mod:`.atif_tree`; the importer's entry points and the source's own counts here.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from agentic_bench.trace.importers.atif_trajectories import (
    SOURCE,
    Doc,
    Resolver,
    check,
    detect,
    duration_ms,
    is_request,
    parse_time,
    read,
    text,
)
from agentic_bench.trace.importers.atif_tree import session_of
from agentic_bench.trace.model import Session
from agentic_bench.trace.profile import TraceProfile


def import_atif(path: Path) -> Iterator[Session]:
    resolver = Resolver()
    for i, doc in enumerate(read(Path(path), resolver)):
        yield session_of(doc, i, resolver)


def profile_source(path: Path) -> TraceProfile:
    """The source's own counts, from the raw trajectories (not the conversion): sessions =
    root trajectories; requests = agent steps that made an LLM call; subagents = resolvable
    refs; tool calls of those steps; prompt/completion tokens of their metrics; gaps from a
    call's end (timestamp + recorded duration) to the next call's timestamp."""
    prof = TraceProfile()
    resolver = Resolver()
    notes: dict[str, int] = {}
    for doc in read(Path(path), resolver):
        prof.sessions += 1
        before = prof.subagents
        _profile(doc, prof, resolver, notes, 0)
        prof.trees += prof.subagents > before
    if notes.get("no_duration"):
        prof.notes.append(f"{notes['no_duration']} LLM call(s) without a recorded duration "
                          "(ATIF has no field for it): no gap after them")
    if notes.get("aggregated"):
        prof.notes.append(f"{notes['aggregated']} agent step(s) aggregate several LLM calls "
                          "(llm_call_count > 1): counted as one request each")
    if notes.get("unresolved"):
        prof.notes.append(f"{notes['unresolved']} subagent ref(s) name no trajectory found")
    prof.notes.append("ATIF has no field for TTFT (only producer extras) and no prefix-cache "
                      "layout")
    return prof


def _profile(doc: Doc, prof: TraceProfile, resolver: Resolver, notes: dict[str, int],
             depth: int) -> None:
    end: float | None = None
    for i, step in enumerate(doc.data["steps"]):
        if is_request(step):
            metrics = step.get("metrics") or {}
            prof.requests += 1
            prof.tool_calls += len(step.get("tool_calls") or [])
            prof.input_tokens.append(metrics.get("prompt_tokens"))
            prof.output_tokens.append(metrics.get("completion_tokens"))
            start = parse_time(doc, step.get("timestamp"), f"steps[{i}].timestamp")
            if end is not None and start is not None:
                prof.gaps_s.append(round(max(0.0, start - end), 6))
            dur = duration_ms(step)
            notes["no_duration"] = notes.get("no_duration", 0) + (dur is None)
            notes["aggregated"] = notes.get("aggregated", 0) + ((step.get("llm_call_count")
                                                                or 1) > 1)
            end = None if start is None or dur is None else start + dur / 1000.0
        if step.get("is_copied_context"):
            continue
        for res in (step.get("observation") or {}).get("results") or []:
            for ref in res.get("subagent_trajectory_ref") or []:
                sub = resolver.resolve(doc, ref)
                if sub is None or depth >= 32:
                    notes["unresolved"] = notes.get("unresolved", 0) + 1
                    continue
                check(sub)
                prof.subagents += 1
                _profile(sub, prof, resolver, notes, depth + 1)


import_atif.detect = detect  # type: ignore[attr-defined]

__all__ = ["SOURCE", "Doc", "Resolver", "check", "detect", "duration_ms", "import_atif",
           "is_request", "parse_time", "profile_source", "read", "text"]
