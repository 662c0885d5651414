"""A Weka corpus profiled from its own rows, for the fidelity gate (``traces verify``).

Counted from the reader's model (:mod:`agentic_bench.trace.weka.model`, written from
callanjfox/agentic-coding-analysis ``docs/TRACE_FORMAT.md``), not through the conversion
(:mod:`agentic_bench.trace.weka.convert`), so a row or subagent the import loses shows:

* **sessions** — traces; **requests** — request rows, the subagents' included;
  **subagents** — subagent entries with at least one row (an entry without rows made no API
  call; a note counts them); **trees** — traces with such a subagent.
* **ISL / OSL** — each row's ``in`` / ``out`` (recorded).
* **gaps** — end → start (``t`` + ``api_time`` → next ``t``, never below 0; AIPerf 0.13
  ``weka_trace.py`` ``_end_to_start_delay_ms``) between consecutive rows of one conversation:
  the top-level rows, and each subagent's rows on the tree's clock
  (:func:`~agentic_bench.trace.weka.timeline.subagent_times`). ``wait_gaps_s`` leaves out a
  top-level gap into which a subagent's end falls — the first later top-level row starting
  at or after that end waits for it (the tiered-join rule, AIPerf ``_reconstruct_serial``) —
  as the trace profile leaves out a gap across a ``join``.
* **prefix hit** — hit blocks / blocks, one unbounded cache per trace, rows in recorded start
  order (:func:`~agentic_bench.trace.weka.stats.trace_prefix_hit`; AIPerf 0.13
  ``weka_metric_prepass.py``, InferenceX ``compute_cache_stats``).
* **tool calls** — not given: rows say only that a reply used tools (``output_types``), and a
  token-count trace carries no calls.
"""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

from agentic_bench.trace.profile import TraceProfile
from agentic_bench.trace.weka.model import WekaRow, WekaSubagent, WekaTrace
from agentic_bench.trace.weka.stats import trace_prefix_hit
from agentic_bench.trace.weka.timeline import JOIN_EPSILON_S, subagent_times


def _gaps(rows: list[tuple[float, WekaRow]]) -> list[float]:
    """End → start gaps between consecutive ``(start, row)`` of one conversation."""
    return [max(0.0, start - (prev_start + (prev.api_time or 0.0)))
            for (prev_start, prev), (start, _) in pairwise(rows)]


def add_trace(prof: TraceProfile, trace: WekaTrace, hits: list[int]) -> int:
    """Count one trace into ``prof`` (its ``wait_gaps_s`` a list; ``hits``: running [hit,
    blocks]); returns how many of its subagent entries have no rows."""
    prof.sessions += 1
    top = [(i, e) for i, e in enumerate(trace.requests) if isinstance(e, WekaRow)]
    joined: set[int] = set()  # top-level indexes whose gap a subagent's end falls into
    empty = subagents = 0
    for i, entry in enumerate(trace.requests):
        if isinstance(entry, WekaRow):
            prof.requests += 1
            prof.input_tokens.append(entry.input_tokens)
            prof.output_tokens.append(entry.output_tokens)
            continue
        assert isinstance(entry, WekaSubagent)
        if not entry.requests:
            empty += 1
            continue
        subagents += 1
        times = subagent_times(entry)
        for row in entry.requests:
            prof.requests += 1
            prof.input_tokens.append(row.input_tokens)
            prof.output_tokens.append(row.output_tokens)
        sub_gaps = _gaps(list(zip(times.starts_s, entry.requests, strict=True)))
        prof.gaps_s += sub_gaps
        assert prof.wait_gaps_s is not None
        prof.wait_gaps_s += sub_gaps
        later = [j for j, row in top if j > i and row.t + JOIN_EPSILON_S >= times.end_s]
        if later:
            joined.add(later[0])
    prof.subagents += subagents
    prof.trees += subagents > 0
    gaps = _gaps([(row.t, row) for _, row in top])
    prof.gaps_s += gaps
    assert prof.wait_gaps_s is not None
    prof.wait_gaps_s += [g for (j, _), g in zip(top[1:], gaps, strict=True) if j not in joined]
    hit, blocks = trace_prefix_hit(trace)
    hits[0] += hit
    hits[1] += blocks
    return empty


def profile_weka(path: Path) -> TraceProfile:
    """The profile of a Weka trace, directory or JSONL corpus (every trace checked first:
    :class:`~agentic_bench.errors.TraceError` at file:line:field)."""
    from agentic_bench.trace.weka import WekaCorpus

    prof = TraceProfile(prefix_basis="blocks", wait_gaps_s=[])
    hits = [0, 0]
    empty = [0]

    def count(_spot: object, trace: WekaTrace) -> None:
        empty[0] += add_trace(prof, trace, hits)

    WekaCorpus(path, on_trace=count)
    prof.prefix_hit = hits[0] / hits[1] if hits[1] else None
    prof.unknown.append("tool_calls")
    prof.notes.append("tool calls: not in a Weka trace (rows mark tool use in output_types, "
                      "without the calls)")
    if empty[0]:
        prof.notes.append(f"{empty[0]} subagent entr(y/ies) without rows (no API call): not "
                          "counted as subagents")
    return prof


__all__ = ["add_trace", "profile_weka"]
