"""Descriptive statistics of a trace: shape, token sizes, tool use, think time, prefix sharing.

Token counts are the recorded ``usage`` when a step has it, otherwise an estimate of
characters / 4 of the request (tool schemas + history) or of the output; the ``source``
counts say how many of each. Prefix sharing is measured on the request each ``llm`` step
would send with ``--history recorded`` (derived history, or the recorded ``messages``):
requests are rendered to text (tool schemas, then each message), cut into blocks of
``block_chars`` characters, and a block counts as shared when the request's whole prefix up
to and including it equals the prefix of an earlier request. Requests are ordered by session
start (``start_offset_s``, then file order) and step order.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

from agentic_bench.metrics.percentiles import describe
from agentic_bench.trace.model import LlmStep, Session

DEFAULT_BLOCK_CHARS = 64  # ≈ 16 tokens, a common KV-cache block size
MAX_POSITION = 64  # as metrics/prefix_cache.py: later requests of a session pooled here
CHARS_PER_TOKEN = 4


class PrefixCounter:
    """Counts blocks whose whole prefix occurred in an earlier sequence (a prefix-cache hit)."""

    def __init__(self) -> None:
        self.seen: set[int] = set()
        self.shared = 0
        self.total = 0

    def add(self, blocks: Iterable[Hashable], weight: Callable[[Any], int] | None = None,
            ) -> None:
        h = 0
        hit = True
        for block in blocks:
            h = hash((h, block))
            w = weight(block) if weight else 1
            self.total += w
            if hit and h in self.seen:
                self.shared += w
            else:
                hit = False
                self.seen.add(h)


def shared_block_fraction(
    sequences: Iterable[Sequence[Hashable]], weight: Callable[[Any], int] | None = None,
) -> tuple[int, int]:
    """(shared, total) weight of blocks whose whole prefix occurred in an earlier sequence.

    Each sequence is a list of blocks; block *i* is shared when blocks 0..i equal blocks 0..i
    of some earlier sequence. ``weight`` defaults to 1 per block.
    """
    counter = PrefixCounter()
    for blocks in sequences:
        counter.add(blocks, weight)
    return counter.shared, counter.total


def prefix_ceiling(sessions: Iterable[Session], block_chars: int = DEFAULT_BLOCK_CHARS,
                   ) -> dict[str, Any]:
    """The reuse ceiling of one pass over ``sessions``: the share of request text (recorded
    history) whose whole prefix an earlier request already sent, in ``block_chars`` blocks —
    what a perfect prefix cache could serve. ``within_session`` counts only earlier requests of
    the same session (what session affinity can keep on one replica)."""
    from agentic_bench.trace.history import llm_requests

    everywhere = PrefixCounter()
    shared_within = total_within = 0
    position: dict[int, list[int]] = {}  # k-th request of a session: [requests, shared, total]
    for s in sessions:
        mine = PrefixCounter()
        for k, (_, _, history) in enumerate(llm_requests(s)):  # branch calls included
            text = render_request(s.tools, history)
            blocks = [text[i:i + block_chars] for i in range(0, len(text), block_chars)]
            everywhere.add(blocks, len)
            before = mine.shared
            mine.add(blocks, len)
            row = position.setdefault(min(k, MAX_POSITION), [0, 0, 0])
            row[0] += 1
            row[1] += mine.shared - before
            row[2] += len(text)
        shared_within += mine.shared
        total_within += mine.total
    total = everywhere.total
    return {"ratio": everywhere.shared / total if total else None,
            "within_session": shared_within / total_within if total_within else None,
            "total_chars": total, "block_chars": block_chars,
            "basis": "characters of the rendered request, one pass of the trace",
            # the within-session ceiling of the k-th request of each session (k >= 64 pooled),
            # beside which the summary puts the server's hit rate at that position
            "by_request_position": [
                {"position": k, "requests": n, "within_session": shared / chars if chars else None}
                for k, (n, shared, chars) in sorted(position.items())]}


def render_request(tools: list[dict[str, Any]], messages: list[dict[str, Any]]) -> str:
    """A request as the text a chat template roughly sees: tool schemas, then each message."""
    parts = [json.dumps(tools, sort_keys=True, ensure_ascii=False)] if tools else []
    for msg in messages:
        content = msg.get("content")
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        calls = msg.get("tool_calls")
        extra = json.dumps(calls, sort_keys=True, ensure_ascii=False) if calls else ""
        parts.append(f"<{msg.get('role')}>{text or ''}{extra}")
    return "\n".join(parts)


def _estimate(chars: int) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN)


def _output_chars(step: LlmStep) -> int:
    calls = step.output.tool_calls
    args = sum(len(c.name) + len(json.dumps(c.arguments, ensure_ascii=False)) for c in calls)
    return len(step.output.content or "") + args


def trace_stats(sessions: Iterable[Session], block_chars: int = DEFAULT_BLOCK_CHARS,
                ) -> dict[str, Any]:
    """Compute every statistic in one pass over ``sessions`` (prefix sharing needs an order)."""
    from agentic_bench.trace.history import messages_before, walk_steps

    items = sorted(enumerate(sessions),
                   key=lambda it: (it[1].start_offset_s is None, it[1].start_offset_s or 0, it[0]))
    turns_per, requests_per, calls_per = [], [], []
    in_tokens, out_tokens, think, tool_ms, llm_ms, offsets = [], [], [], [], [], []
    in_src: Counter[str] = Counter()
    out_src: Counter[str] = Counter()
    by_name: Counter[str] = Counter()
    prefix = PrefixCounter()
    for _, s in items:
        turns_per.append(len(s.turns))
        requests_per.append(s.llm_step_count())
        if s.start_offset_s is not None:
            offsets.append(s.start_offset_s)
        calls = 0
        think += [turn.think_time_s for turn in s.turns[1:]]
        for _, view, vti, si, step in walk_steps(s):  # fan-out branches' steps included
            if step.kind == "tool":
                tool_ms.append(step.duration_ms)
            if not isinstance(step, LlmStep):
                continue
            text = render_request(s.tools, messages_before(view, vti, si))
            prefix.add((text[i:i + block_chars] for i in range(0, len(text), block_chars)),
                       len)
            usage = step.usage
            if usage is not None and usage.input_tokens is not None:
                in_tokens.append(usage.input_tokens)
                in_src["usage"] += 1
            else:
                in_tokens.append(_estimate(len(text)))
                in_src["estimate"] += 1
            if usage is not None and usage.output_tokens is not None:
                out_tokens.append(usage.output_tokens)
                out_src["usage"] += 1
            elif step.output.content or step.output.tool_calls:
                out_tokens.append(_estimate(_output_chars(step)))
                out_src["estimate"] += 1
            else:
                out_src["unknown"] += 1
            if step.duration_ms is not None:
                llm_ms.append(step.duration_ms)
            calls += len(step.output.tool_calls)
            by_name.update(c.name for c in step.output.tool_calls)
        calls_per.append(calls)
    shared, total = prefix.shared, prefix.total
    return {
        "sessions": len(items), "turns": sum(turns_per), "requests": sum(requests_per),
        "turns_per_session": describe(turns_per),
        "requests_per_session": describe(requests_per),
        "input_tokens": {**describe(in_tokens), "source": dict(in_src)},
        "output_tokens": {**describe(out_tokens), "source": dict(out_src)},
        "tool_calls": {"total": sum(calls_per), "per_session": describe(calls_per),
                       "by_name": dict(by_name.most_common())},
        "tool_step_ms": describe(tool_ms),
        "think_time_s": describe(think),
        "llm_duration_ms": describe(llm_ms),
        "arrival_span_s": max(offsets) - min(offsets) if offsets else None,
        "prefix_sharing": {"ratio": shared / total if total else 0.0, "shared_chars": shared,
                           "total_chars": total, "block_chars": block_chars},
    }


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 1000 else f"{value:.0f}"
    return str(value)


def _row(name: str, d: dict[str, Any]) -> str:
    cols = " ".join(f"{k}={_fmt(d.get(k))}" for k in ("mean", "p50", "p90", "p99", "max"))
    return f"  {name:<22} n={d['count']:<7} {cols}"


def render_stats(stats: dict[str, Any], title: str = "") -> str:
    """A short human-readable summary of :func:`trace_stats`."""
    def src(d: dict[str, Any]) -> str:
        return ", ".join(f"{k} {v}" for k, v in sorted(d["source"].items())) or "none"

    ps = stats["prefix_sharing"]
    lines = [
        title,
        f"sessions {stats['sessions']}, turns {stats['turns']}, requests {stats['requests']}",
        _row("turns/session", stats["turns_per_session"]),
        _row("requests/session", stats["requests_per_session"]),
        _row("input tokens", stats["input_tokens"]),
        f"    (source: {src(stats['input_tokens'])}; estimate = chars/4 of the request)",
        _row("output tokens", stats["output_tokens"]),
        f"    (source: {src(stats['output_tokens'])}; estimate = chars/4 of the output)",
        f"  tool calls             total={stats['tool_calls']['total']}",
        _row("tool calls/session", stats["tool_calls"]["per_session"]),
        _row("tool step ms", stats["tool_step_ms"]),
        _row("think time s", stats["think_time_s"]),
        _row("recorded llm ms", stats["llm_duration_ms"]),
        f"  prefix sharing         {ps['ratio']:.1%} of request text repeats an earlier "
        f"request's prefix ({ps['block_chars']}-char blocks)",
    ]
    names = stats["tool_calls"]["by_name"]
    if names:
        top = ", ".join(f"{k} {v}" for k, v in list(names.items())[:8])
        lines.append(f"  top tools              {top}")
    if stats.get("arrival_span_s") is not None:
        lines.append(f"  arrivals span          {_fmt(stats['arrival_span_s'])} s")
    return "\n".join(x for x in lines if x) + "\n"
