"""What a trace holds, counted the same way on every side of an import (the fidelity gate).

A :class:`TraceProfile` is filled three ways, each independent of the others:

* from a **source file** in its own format — each importer module may expose
  ``profile_source(path) -> TraceProfile`` that counts the source's own rows (API calls,
  subagents, tool calls, token counts, gaps) without going through the conversion;
* from **sessions** of our trace format (:mod:`agentic_bench.trace.fidelity`);
* from a **run folder's records** — what a replay actually sent.

``traces verify SOURCE --against TRACE_OR_RUN_DIR`` compares two profiles figure by figure.
Lists hold one value per request (tokens) or per gap, in no particular order; ``None`` in a
token list means the source gives no count for that request.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class TraceProfile:
    """Counts and distributions of one trace (or of what a run sent)."""

    sessions: int = 0
    trees: int = 0  # sessions with at least one subagent
    requests: int = 0  # LLM calls, subagents' included
    subagents: int = 0
    tool_calls: int = 0  # tool calls the assistant made (tool results answered)
    input_tokens: list[int | None] = field(default_factory=list)  # one per request
    output_tokens: list[int | None] = field(default_factory=list)  # one per request
    gaps_s: list[float] = field(default_factory=list)  # end of one request -> start of the
    # next in the same conversation (think and tool time), where the side knows both
    prefix_hit: float | None = None  # theoretical prefix-cache hit (share of prompt tokens)
    notes: list[str] = field(default_factory=list)  # what this side could not count
    # added for the fidelity gate (agentic_bench/trace/fidelity_compare.py); every field below
    # has a default, so a profile_source that leaves them alone says "the source's own counts"
    unknown: list[str] = field(default_factory=list)  # figures this side cannot count at all
    # (names of the fields above, e.g. "tool_calls"): the comparison skips them, it never
    # reads their value as zero
    input_basis: str = "recorded"  # what input_tokens count: "recorded" (the source's own
    # counts, None where it gives none), "estimate" (characters / 4 of the request text),
    # "synthesized" (content tokens a replay wrote for a prompt given as blocks: the recorded
    # size), "server" (the serving endpoint's usage: its tokenizer and chat template)
    output_basis: str = "recorded"  # as input_basis; "held": the server's count of replies a
    # replay asked to be exactly the recorded length (max_tokens + ignore_eos)
    prefix_basis: str = ""  # what prefix_hit shares: "blocks" (KV-cache hash ids, one cache per
    # session tree), "chars" (64-character blocks of the rendered request, one cache per
    # session); "" = not said (compared as given)
    gap_scale: float = 1.0  # a replay's --think-time factor: its gaps are the recording's
    # times this (the comparison scales the other side's gaps by it)
    wait_gaps_s: list[float] | None = None  # the gaps that are waits alone: those across a
    # fan-out or a join (time spent waiting for subagents) left out; None = this side does
    # not tell them apart. Compared instead of gaps_s when both sides give them.


__all__ = ["TraceProfile"]
