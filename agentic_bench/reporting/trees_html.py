"""report.html's section for a run over agent trees (``section-trees``): the AgentX figures,
the per-tree roll-up AIPerf lacks, and where each tree's time went (``plot-tree-time``: per
tree, its own requests, its waits, and the time it waited for subagents at joins)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from agentic_bench.metrics.summary_model import Summary
from agentic_bench.reporting.html_template import figure, kv_table, section, table
from agentic_bench.reporting.plots import no_data, stacked_hbar_chart
from agentic_bench.reporting.svg_axes import fmt_pct

MAX_TREES = 15
SEGMENTS = ("own requests", "waits (tools, user)", "waiting for subagents")


def tree_time(records: Sequence[dict[str, Any]]) -> tuple[list[str], list[list[float]]]:
    """Per whole tree (the slowest first, at most :data:`MAX_TREES`): seconds in its own (root)
    requests, in recorded waits, and at joins."""
    sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    whole = {r["session_id"]: r["latency_ms"] for r in records
             if r.get("type") == "session" and not r.get("partial") and r.get("status") == "ok"}
    for r in records:
        sid = str(r.get("session_id"))
        if sid not in whole or r.get("warmup") or r.get("branch"):
            continue
        if r.get("kind") == "llm":
            sums[sid][0] += (r.get("request_ms") or 0.0) / 1000
        elif r.get("kind") == "wait":
            sums[sid][1] += (r.get("duration_ms") or 0.0) / 1000
        elif r.get("type") == "join":
            sums[sid][2] += (r.get("wait_ms") or 0.0) / 1000
    order = sorted(sums, key=lambda sid: -whole[sid])[:MAX_TREES]
    return order, [sums[sid] for sid in order]


def trees_section(given: Summary | dict[str, Any], records: Sequence[dict[str, Any]]) -> str:
    summary = Summary.of(given)
    block = summary.trees
    if not block:
        return ""
    per_gpu = block["throughput"]["per_gpu"]
    itl, inter, hit = block["full_response_itl_ms"], block["interactivity"], block["prefix_hit"]
    pt, over = block["prompt_tokens"], block["context_overflow"]
    figures = kv_table([
        ("total tokens/s per GPU", per_gpu["total_tokens_per_s"]),
        ("output tokens/s per GPU", per_gpu["output_tokens_per_s"]),
        ("GPUs (--gpus)", block["gpus"]),
        ("full-response ITL p50 / p90 (ms)", f"{_n(itl.get('p50'))} / {_n(itl.get('p90'))}"),
        ("P90 interactivity (tok/s/user)", inter.get("p90")),
        ("theoretical prefix hit", fmt_pct(hit["theoretical"])),
        ("observed prefix hit (server)", fmt_pct(hit["observed"])),
        ("prompts exactly the recorded size", f"{pt['synthesized_exact']} / {pt['requests']}"),
        ("replies shorter than recorded",
         f"{block['replies']['shorter_than_recorded']} / {block['replies']['of']}"),
        ("context overflows", f"{over['count']} / {over['responses']}"),
    ], "table-agentx")
    trees = block["trees"]
    lanes = trees.get("lanes") or {}
    view = kv_table([
        ("trees started / mid-trajectory", f"{trees['started']} / {trees['mid_trajectory']}"),
        ("whole trees completed", f"{trees['whole_completed']} / {trees['whole']}"),
        ("tree completion p50 / max (ms)",
         f"{_n(trees['completion_ms'].get('p50'))} / {_n(trees['completion_ms'].get('max'))}"),
        ("subagents ok / spawned", f"{trees['subagents']['completed']} / "
                                   f"{trees['subagents']['count']}"),
        ("join wait p50 / max (ms)", f"{_n(trees['join_wait_ms'].get('p50'))} / "
                                     f"{_n(trees['join_wait_ms'].get('max'))}"),
        ("lanes / occupancy", f"{lanes.get('lanes', '-')} / {fmt_pct(lanes.get('occupancy'))}"),
        ("lanes never filled / found no tree left",
         f"{lanes.get('unfilled', '-')} / {lanes.get('starved', '-')}"),
    ], "table-trees")
    rules = summary.agentx or {}
    notes = table(["AgentX", "detail"],
                  [*(["breaks", v] for v in rules.get("violations") or []),
                   *(["departs", d] for d in rules.get("departures") or [])],
                  table_id="table-agentx-departures") if rules else ""
    rows, values = tree_time(records)
    chart = (stacked_hbar_chart(rows, SEGMENTS, values, label="where each tree's time went",
                                x_label="seconds, stacked") if rows
             else no_data("no whole tree completed (mid-trajectory trees are not whole)"))
    whole = trees.get("whole_completed") or 0
    shown = (f"the {len(rows)} slowest of {whole} whole trees" if whole > len(rows)
             else "whole trees, slowest first")
    plot = figure("plot-tree-time", f"Where each tree's time went ({shown})",
                  chart, "its own requests, the recorded waits between them, and the time it "
                  "waited for subagents at joins; subagent requests overlap these")
    return section("section-trees", "Agent trees (AgentX)",
                   f'<div class="cols">{figures}{view}</div>{notes}{plot}')



def _n(value: Any, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


__all__ = ["trees_section"]
