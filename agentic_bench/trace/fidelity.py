"""Profiles for the fidelity gate: what a trace of our format holds, and what a source holds.

:class:`SessionProfiler` counts sessions of the native format (docs/trace-format.md) the way
a recorded-history replay sends them:

* **requests** — every ``llm`` step, those inside fan-out (``parallel``) and spawned branches
  included; **subagents** — every such branch, nested ones included; **trees** — sessions
  with at least one; **tool calls** — the calls in the ``llm`` steps' recorded outputs.
* **ISL / OSL** — the recorded ``usage`` counts when any request of the trace has them (a
  request without is then ``None``: the trace gives no count), else an estimate, characters
  / 4 of the rendered request (tool schemas + recorded history, as ``traces stats``) or of
  the recorded output; ``input_basis`` / ``output_basis`` and a note say which.
* **gaps** — end of one request → start of the next in the same conversation (the session's
  turns; each branch is a conversation of its own): the recorded durations a replay waits
  between them (``tool``, ``wait``, ``retrieve``, ``rerank``, ``embed`` steps, and the
  turn's ``think_time_s`` across a turn boundary) — ``wait_gaps_s``. A gap across a
  fan-out or a ``join`` is the subagents' time, not a wait: left out there; ``gaps_s`` adds
  it where both requests carry recorded times (``start_s``, ``duration_ms``), as a source
  counts it (end → start).
* **tool calls** — not known for a token-count trace (every prompt given as blocks).
* **prefix hit** — the theoretical prefix-cache hit with one cache per session tree: for
  prompts given as blocks, hit blocks / blocks (:func:`agentic_bench.trace.conversations.
  prefix_hits`, AIPerf / InferenceX's definition); for text, the share of the rendered
  request's 64-character blocks whose whole prefix an earlier request of the session sent
  (:class:`agentic_bench.trace.stats.PrefixCounter`, the ``within_session`` ceiling).

:func:`source_profile` profiles a SOURCE file in its own format: the importer module's own
``profile_source(path)`` where it has one (counted from the raw rows, independent of the
conversion — the importer contract), the Weka reader's rows for ``weka``
(:mod:`agentic_bench.trace.fidelity_weka`), else the sessions its import yields (and a note
says so: such a check covers the replay, not the import).
"""

from __future__ import annotations

import importlib
import json
import math
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from agentic_bench.trace.conversations import prefix_hits
from agentic_bench.trace.history import messages_before, walk_steps
from agentic_bench.trace.model import (
    JoinStep,
    LlmStep,
    ParallelStep,
    Session,
    SpawnStep,
    Step,
)
from agentic_bench.trace.profile import TraceProfile
from agentic_bench.trace.stats import (
    CHARS_PER_TOKEN,
    DEFAULT_BLOCK_CHARS,
    PrefixCounter,
    render_request,
)

WAITED = ("tool", "wait", "retrieve", "rerank", "embed")  # steps whose duration a replay waits
SourceProfiler = Callable[[Path], TraceProfile]


def _estimate(chars: int) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN)


def _output_chars(step: LlmStep) -> int:
    calls = step.output.tool_calls
    return len(step.output.content or "") + sum(
        len(c.name) + len(json.dumps(c.arguments, ensure_ascii=False)) for c in calls)


def _branches(steps: list[Step]) -> int:
    """Subagents (fan-out members and spawned branches, nested ones included) in ``steps``."""
    n = 0
    for step in steps:
        if isinstance(step, ParallelStep):
            n += len(step.branches) + sum(_branches(b.steps) for b in step.branches)
        elif isinstance(step, SpawnStep):
            n += 1 + _branches(step.branch.steps)
    return n


class _Conversation:
    """One conversation's running gap: time waited since its last request (that request
    kept for its recorded times), and whether a fan-out or a join came in between."""

    def __init__(self) -> None:
        self.last: LlmStep | None = None  # its previous request
        self.waited_s = 0.0
        self.barrier = False


Gaps = tuple[list[float], list[float]]  # (every gap known, the waits alone)


def _recorded_gap(prev: LlmStep, step: LlmStep) -> float | None:
    if prev.start_s is None or prev.duration_ms is None or step.start_s is None:
        return None
    return max(0.0, step.start_s - (prev.start_s + prev.duration_ms / 1000.0))


def _gaps(steps: list[Step], conv: _Conversation, out: Gaps) -> None:
    for step in steps:
        if isinstance(step, LlmStep):
            if conv.last is not None and not conv.barrier:
                out[0].append(conv.waited_s)
                out[1].append(conv.waited_s)
            elif conv.last is not None and (gap := _recorded_gap(conv.last, step)) is not None:
                out[0].append(gap)  # across subagents: the recorded end → start
            conv.last, conv.waited_s, conv.barrier = step, 0.0, False
        elif isinstance(step, ParallelStep):
            conv.barrier = True
            for branch in step.branches:
                _gaps(branch.steps, _Conversation(), out)
        elif isinstance(step, SpawnStep):
            _gaps(step.branch.steps, _Conversation(), out)
        elif isinstance(step, JoinStep):
            conv.barrier = True
        elif step.kind in WAITED:
            conv.waited_s += float(getattr(step, "duration_ms", 0.0) or 0.0) / 1000.0


def session_gaps(session: Session) -> Gaps:
    """The end → start gaps (seconds) of ``session``, per conversation: every gap it knows
    (the waits a replay makes; across a fan-out or a join, the recorded times where both
    requests have them), and the waits alone (see the module's docstring)."""
    out: Gaps = ([], [])
    root = _Conversation()
    for ti, turn in enumerate(session.turns):
        if ti > 0:
            root.waited_s += turn.think_time_s
        _gaps(turn.steps, root, out)
    return out


class SessionProfiler:
    """A :class:`TraceProfile` of sessions fed one at a time (:meth:`add`), then
    :meth:`profile`; one session's prefix cache at a time, nothing else kept per session."""

    def __init__(self, block_chars: int = DEFAULT_BLOCK_CHARS) -> None:
        self.block_chars = block_chars
        self.prof = TraceProfile()
        self.in_usage: list[int | None] = []
        self.in_estimate: list[int] = []
        self.out_usage: list[int | None] = []
        self.out_estimate: list[int | None] = []
        self.blocks = [0, 0]  # hit, total (prompts given as blocks)
        self.chars = [0, 0]  # shared, total (text prompts)
        self.waits: list[float] = []
        self.block_requests = 0

    def add(self, session: Session) -> None:
        prof = self.prof
        prof.sessions += 1
        subagents = sum(_branches(t.steps) for t in session.turns)
        prof.subagents += subagents
        prof.trees += subagents > 0
        every, waits = session_gaps(session)
        prof.gaps_s += every
        self.waits += waits
        text = PrefixCounter()
        for _, view, vti, si, step in walk_steps(session):
            if not isinstance(step, LlmStep):
                continue
            prof.requests += 1
            prof.tool_calls += len(step.output.tool_calls)
            usage = step.usage
            self.in_usage.append(usage.input_tokens if usage is not None else None)
            self.out_usage.append(usage.output_tokens if usage is not None else None)
            chars = _output_chars(step)
            self.out_estimate.append(_estimate(chars) if chars else None)
            if step.prompt is not None:  # blocks: sized by usage (required), no text
                self.block_requests += 1
                self.in_estimate.append((usage.input_tokens or 0) if usage is not None else 0)
                continue
            rendered = render_request(session.tools, messages_before(view, vti, si))
            self.in_estimate.append(_estimate(len(rendered)))
            size = self.block_chars
            text.add((rendered[i:i + size] for i in range(0, len(rendered), size)), len)
        self.chars[0] += text.shared
        self.chars[1] += text.total
        for hit, total in prefix_hits(session).values():
            self.blocks[0] += hit
            self.blocks[1] += total

    def profile(self) -> TraceProfile:
        prof = self.prof
        n = prof.requests
        prof.wait_gaps_s = list(self.waits)
        if n and self.block_requests == n:
            prof.unknown.append("tool_calls")
            prof.notes.append("tool calls: a token-count trace (prompts as blocks) carries none")
        recorded_in = sum(v is not None for v in self.in_usage)
        if recorded_in:
            prof.input_tokens, prof.input_basis = list(self.in_usage), "recorded"
            prof.notes.append(f"input tokens: recorded usage on {recorded_in} of {n} requests")
        else:
            prof.input_tokens, prof.input_basis = list(self.in_estimate), "estimate"
            prof.notes.append("input tokens: no usage recorded, estimated as characters / 4 "
                              "of the rendered request")
        recorded_out = sum(v is not None for v in self.out_usage)
        if recorded_out:
            prof.output_tokens, prof.output_basis = list(self.out_usage), "recorded"
            prof.notes.append(f"output tokens: recorded usage on {recorded_out} of {n} "
                              "requests")
        else:
            prof.output_tokens, prof.output_basis = list(self.out_estimate), "estimate"
            prof.notes.append("output tokens: no usage recorded, estimated as characters / 4 "
                              "of the recorded output")
        if self.blocks[1] and self.chars[1]:
            prof.notes.append("prefix hit: some prompts are blocks, some text — no common "
                              "measure, not given")
        elif self.blocks[1]:
            prof.prefix_hit, prof.prefix_basis = self.blocks[0] / self.blocks[1], "blocks"
        elif self.chars[1]:
            prof.prefix_hit, prof.prefix_basis = self.chars[0] / self.chars[1], "chars"
        return prof


def profile_sessions(sessions: Iterable[Session],
                     block_chars: int = DEFAULT_BLOCK_CHARS) -> TraceProfile:
    """The :class:`TraceProfile` of ``sessions`` (see the module's docstring)."""
    profiler = SessionProfiler(block_chars)
    for session in sessions:
        profiler.add(session)
    return profiler.profile()


def raw_profiler(fmt: str) -> SourceProfiler | None:
    """The ``profile_source`` of format ``fmt`` (a built-in importer module's, the Weka
    reader's, or an ``importer:`` plugin module's), or None where there is none."""
    if fmt == "weka":
        from agentic_bench.trace.fidelity_weka import profile_weka

        return profile_weka
    from agentic_bench.trace import importers

    targets: dict[str, str] = getattr(importers, "_TARGETS", {})
    module: Any = None
    if fmt in targets:
        try:
            module = importlib.import_module(
                f"agentic_bench.trace.importers.{targets[fmt].split(':')[0]}")
        except ModuleNotFoundError:
            return None
    elif fmt != importers.NATIVE:
        from agentic_bench.plugins import discover_plugins

        for (_, name), ref in discover_plugins("importer").items():
            if name == fmt:
                module = sys.modules.get(getattr(ref.load(), "__module__", ""))
    found = getattr(module, "profile_source", None)
    return found if callable(found) else None


def source_profile(fmt: str, path: Path) -> TraceProfile:
    """SOURCE's profile: counted from its raw rows where its format can (:func:`raw_profiler`),
    else from the sessions its import yields, with a note that says so."""
    from agentic_bench.trace.importers import NATIVE, import_file

    found = raw_profiler(fmt)
    if found is not None:
        prof = found(Path(path))
        prof.notes.insert(0, f"counted from the raw {fmt} rows (profile_source)")
        return prof
    prof = profile_sessions(import_file(fmt, path))
    prof.notes.insert(0, "a native trace, profiled as is" if fmt == NATIVE else
                      f"profiled through its import: the {fmt} importer has no raw "
                      "profile_source, so this checks what was replayed against the import, "
                      "not the import against the source")
    return prof


__all__ = ["SessionProfiler", "profile_sessions", "raw_profiler", "session_gaps",
           "source_profile"]
