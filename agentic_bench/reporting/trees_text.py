"""summary.txt's lines for a run over agent trees: the lanes, the AgentX figures, and the
per-tree view (metrics/trees.py)."""

from __future__ import annotations

from typing import Any

from agentic_bench.metrics.summary_model import Summary
from agentic_bench.reporting.svg_axes import fmt_pct


def _n(value: Any, digits: int = 1, unit: str = "") -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.{digits}f}{unit}"
    return f"{value:,}{unit}"



def lanes_line(config: dict[str, Any]) -> str | None:
    lanes = config.get("lanes")
    if not lanes:
        return None
    lo, hi = lanes.get("trajectory") or (0.0, 0.0)
    parts = [f"lanes {lanes['lanes']}"]
    parts.append("from each tree's first request" if (lo, hi) == (0.0, 0.0)
                 else f"trajectory start {lo:g}-{hi:g}, {lanes['warmup_requests']} warm-up "
                      "requests per conversation")
    if lanes.get("idle_gap_cap_s") is not None:
        parts.append(f"idle-gap cap {lanes['idle_gap_cap_s']:g} s")
    if lanes.get("trace_idle_gap_cap_s") is not None:
        parts.append(f"per-tree idle cap {lanes['trace_idle_gap_cap_s']:g} s")
    if lanes.get("duration_s"):
        parts.append(f"measured {lanes['duration_s']:g} s" if lanes.get("cut")
                     else f"no new tree after {lanes['duration_s']:g} s")
    parts.append("dataset wrap" if lanes.get("allow_wrap") else "each tree once")
    return ", ".join(parts)


def tree_lines(given: Summary | dict[str, Any]) -> list[str]:
    summary = Summary.of(given)
    block = summary.trees
    if not block:
        return []
    lines = [""]
    rules = summary.agentx
    if rules:
        lines.append(f"AgentX    : scenario {rules.get('scenario')}; "
                     f"{len(rules.get('violations') or [])} locked rule(s) broken, "
                     f"{len(rules.get('departures') or [])} departure(s)")
        lines += [f"            breaks: {v}" for v in rules.get("violations") or []]
        lines += [f"            departs: {d}" for d in rules.get("departures") or []]
    per_gpu = block["throughput"]["per_gpu"]
    itl = block["full_response_itl_ms"]
    inter = block["interactivity"]
    lines.append(f"Per GPU   : {_n(per_gpu['total_tokens_per_s'])} total tok/s, "
                 f"{_n(per_gpu['output_tokens_per_s'])} output tok/s ({block['gpus']} GPU(s), "
                 f"window {_n(block['throughput']['window_s'], 2)} s)")
    lines.append(f"Full-response ITL ms: p50 {_n(itl.get('p50'), 2)}  p90 {_n(itl.get('p90'), 2)}"
                 f"  p99 {_n(itl.get('p99'), 2)}; interactivity (1000/ITL) p50 "
                 f"{_n(inter.get('p50'))}  p90 {_n(inter.get('p90'))} tok/s/user")
    hit = block["prefix_hit"]
    lines.append(f"Prefix hit: theoretical {fmt_pct(hit['theoretical'])} (one unbounded cache per "
                 f"tree), observed {fmt_pct(hit['observed'])}"
                 + ("" if hit["observed"] is not None else " (the server reports no cached "
                    "tokens)"))
    finite = hit.get("finite_capacity") or {}
    if finite.get("error"):
        lines.append(f"Prefix hit: finite cache {finite['error']}")
    for entry in finite.get("capacities") or []:
        lines.append(f"Prefix hit: finite cache of {entry['capacity_tokens']:,} tokens (LRU, all "
                     f"lanes, send order) {fmt_pct(entry['ratio'])}")
    pt = block["prompt_tokens"]
    diff = pt["server_minus_target"]
    lines.append(f"Prompts   : {pt['synthesized_exact']}/{pt['requests']} synthesized to the "
                 f"recorded input exactly; server count - recorded: p50 {_n(diff.get('p50'))}, "
                 f"max {_n(diff.get('max'))} tokens (chat template, marker)")
    replies = block["replies"]
    lines.append(f"Replies   : {replies['shorter_than_recorded']}/{replies['of']} shorter than "
                 "recorded" + (" (the server stopped early: no ignore_eos?)"
                               if replies["shorter_than_recorded"] else ""))
    over = block["context_overflow"]
    lines.append(f"Overflows : {over['count']}/{over['responses']} responses "
                 f"({fmt_pct(over['rate'])}) hit the model's context")
    trees = block["trees"]
    done = trees["completion_ms"]
    lines.append(f"Trees     : {trees['started']} started ({trees['mid_trajectory']} "
                 f"mid-trajectory, {trees['stopped']} stopped at the end); "
                 f"{trees['whole_completed']}/{trees['whole']} whole trees completed, in p50 "
                 f"{_n(done.get('p50'))} / max {_n(done.get('max'))} ms")
    sub = trees["subagents"]
    wait = trees["join_wait_ms"]
    lines.append(f"Subagents : {sub['completed']}/{sub['count']} ok, latency p50 "
                 f"{_n(sub['latency_ms'].get('p50'))} ms; parents waited at "
                 f"{wait['count']} joins, p50 {_n(wait.get('p50'))} / max "
                 f"{_n(wait.get('max'))} ms")
    lanes = trees.get("lanes")
    if lanes:
        lines.append(f"Lanes     : {lanes['lanes']} lanes, occupancy {fmt_pct(lanes['occupancy'])},"
                     f" {lanes['trees_started']} trees drawn ({lanes['wrapped']} replays), "
                     f"{lanes['unfilled']} never filled, {lanes['starved']} found no tree "
                     "left; "
                     f"warm-up {_n(lanes['warmup_requests'])} requests in "
                     f"{_n(lanes['warmup_s'], 2)} s; idle cap jumps {lanes['jumps']} "
                     f"({_n(lanes['skipped_s'], 2)} s skipped)"
                     + (f"; per-tree idle cap {lanes['tree_jumps']} jumps in "
                        f"{lanes.get('trees_idle_capped') or 0} trees "
                        f"({_n(lanes.get('tree_skipped_s') or 0.0, 2)} s skipped in all)"
                        if lanes.get("trace_idle_gap_cap_s") is not None else ""))
    warm = summary.warmup
    if warm:
        lines.append(f"Warm-up   : {warm.get('requests', 0)} requests "
                     f"({warm.get('errors', 0)} failed), not counted above")
    return lines


__all__ = ["lanes_line", "tree_lines"]
