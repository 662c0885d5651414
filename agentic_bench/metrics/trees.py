"""The figures of a run over agent trees (Weka traces, AgentX): what InferenceX publishes, and
the per-tree view AIPerf lacks.

From the measured LLM step records (warm-up left out), as InferenceX ``utils/agentic/
aggregation/request_metrics.py`` and the InferenceX app define them:

* ``full_response_itl_ms`` — per successful request with at least 2 output tokens, (end −
  start − TTFT) / (output tokens − 1), end = the response's last byte. That is our TPOT
  (docs/metrics.md), so the values are the records' ``tpot_ms``.
* ``interactivity`` — for each statistic of that ITL, 1000 / it (tokens/s/user): P90
  interactivity = 1000 / P90 ITL, the x axis of InferenceX's chart.
* ``throughput`` — input, output and total tokens (the server's ``usage`` counts, else the
  recorded sizes) over the window from the first successful request's start to the last one's
  end; ``per_gpu`` divides by ``--gpus`` (InferenceX's headline: total tokens/s per GPU).
* ``prefix_hit`` — ``theoretical``: hit blocks / blocks of the successful requests (one
  unbounded cache per tree, recorded order); ``observed``: the server's cached / prompt tokens.
* ``prompt_tokens`` — how far the server's prompt count is from the recorded ``in``
  (chat-template and marker tokens), and how many synthesized prompts hit ``in`` exactly.
* ``replies`` — how many came back shorter than recorded (a server that ignores
  ``ignore_eos``).
* ``context_overflow`` — requests that failed on the model's context, over every measured
  response (AIPerf's denominator: successes + errors).
* ``trees`` — trees started, whole ones (from their first request) completed, their completion
  time; per-turn latency is ``latency_ms.turn``; subagents (``branch`` records) and how long
  parents waited for them (``join`` records); lane occupancy (the ``lanes`` record).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agentic_bench.metrics.percentiles import describe, percentile

STATS = ("mean", "p50", "p75", "p90", "p95", "p99")


def _stats(values: list[float]) -> dict[str, float | None]:
    data = sorted(values)
    if not data:
        return {k: None for k in ("count", *STATS)}
    out: dict[str, Any] = {"count": len(data), "mean": sum(data) / len(data)}
    for p in (50, 75, 90, 95, 99):
        out[f"p{p}"] = percentile(data, p)
    return out


def _window_s(ok: Sequence[dict[str, Any]]) -> float:
    if not ok:
        return 0.0
    return float(max(r["t_end_ns"] for r in ok) - min(r["t_sent_ns"] for r in ok)) / 1e9


def trees_block(llm: Sequence[dict[str, Any]], sessions: Sequence[dict[str, Any]],
                records: Sequence[dict[str, Any]], gpus: int = 1) -> dict[str, Any]:
    ok = [r for r in llm if r.get("status") == "ok"]
    itl = [r["tpot_ms"] for r in ok if r.get("tpot_ms") and (r.get("output_tokens") or 0) >= 2]
    itl_stats = _stats(itl)
    interactivity = {k: (1000.0 / v if v else None) for k, v in itl_stats.items()
                     if k != "count"}
    window = _window_s(ok)

    def tokens(r: dict[str, Any], server: str, recorded: str) -> int:
        value = r.get(server)
        return int(value if value is not None else (r.get(recorded) or 0))

    inp = sum(tokens(r, "input_tokens", "prompt_tokens_target") for r in ok)
    out = sum(r.get("output_tokens") or 0 for r in ok)
    rates = {"input_tokens_per_s": inp / window if window else None,
             "output_tokens_per_s": out / window if window else None,
             "total_tokens_per_s": (inp + out) / window if window else None}
    hit = sum(r.get("prefix_hit_blocks") or 0 for r in ok)
    blocks = sum(r.get("prefix_blocks") or 0 for r in ok)
    cached = [r for r in ok if isinstance(r.get("cached_tokens"), int) and r.get("input_tokens")]
    targets = [r for r in ok if r.get("prompt_tokens_target") is not None]
    overflow = sum(1 for r in llm if r.get("context_overflow"))
    errors = sum(1 for r in llm if r.get("status") != "ok")
    shorter = [r for r in ok if r.get("output_tokens_target") is not None
               and (r.get("output_tokens") or 0) < max(1, r["output_tokens_target"])]
    return {
        "requests": len(llm), "requests_ok": len(ok), "gpus": gpus,
        "full_response_itl_ms": itl_stats,
        "interactivity": interactivity,
        "throughput": {"window_s": window, "input_tokens": inp, "output_tokens": out, **rates,
                       "per_gpu": {k: (v / gpus if v is not None else None)
                                   for k, v in rates.items()}},
        "prefix_hit": {
            "theoretical": hit / blocks if blocks else None, "theoretical_blocks": blocks,
            "observed": (sum(r["cached_tokens"] for r in cached)
                         / sum(r["input_tokens"] for r in cached)) if cached else None,
            "observed_requests": len(cached)},
        "prompt_tokens": {
            "requests": len(targets),
            "synthesized_exact": sum(1 for r in targets
                                     if r.get("prompt_tokens_synth") == r["prompt_tokens_target"]),
            "server_minus_target": describe(r["input_tokens"] - r["prompt_tokens_target"]
                                            for r in targets if r.get("input_tokens") is not None),
            "note": "server usage.prompt_tokens minus the recorded input: chat-template and "
                    "cache-bust marker tokens (and any tokenizer mismatch)"},
        "replies": {"shorter_than_recorded": len(shorter), "of": len(targets)},
        "context_overflow": {"count": overflow, "responses": len(llm),
                             "rate": overflow / len(llm) if llm else 0.0},
        "error_rate": errors / len(ok) if ok else (1.0 if errors else 0.0),
        "trees": _tree_view(sessions, records),
    }


def _tree_view(sessions: Sequence[dict[str, Any]], records: Sequence[dict[str, Any]]
               ) -> dict[str, Any]:
    whole = [s for s in sessions if not s.get("partial")]
    done = [s for s in whole if s.get("status") == "ok"]
    branches = [r for r in records if r.get("type") == "branch" and r.get("spawned")]
    joins = [r for r in records if r.get("type") == "join"]
    lanes = next((r for r in records if r.get("type") == "lanes"), None)
    out: dict[str, Any] = {
        "started": len(sessions), "mid_trajectory": len(sessions) - len(whole),
        "whole": len(whole), "whole_completed": len(done),
        "stopped": sum(1 for s in sessions if s.get("status") == "stopped"),
        "completion_ms": describe(s["latency_ms"] for s in done),
        "requests_per_tree": describe(float(s.get("requests", 0)) for s in sessions),
        "subagents": {"count": len(branches),
                      "completed": sum(1 for b in branches if b.get("status") == "ok"),
                      "latency_ms": describe(b["latency_ms"] for b in branches
                                             if b.get("status") == "ok"
                                             and not b.get("partial"))},
        "join_wait_ms": describe(j["wait_ms"] for j in joins),
    }
    if lanes is not None:
        out["lanes"] = {k: lanes.get(k) for k in (
            "lanes", "occupancy", "unfilled", "starved", "trees_started", "wrapped",
            "warmup_s", "warmup_requests", "measured_s", "jumps", "skipped_s",
            "idle_gap_cap_s")}
    return out


def agentx_rows(summary: dict[str, Any], rules: dict[str, Any]) -> list[dict[str, Any]]:
    """The scenario's validity rows (AIPerf 0.13 ``exporters/aggregate/
    aggregate_base_exporter.py``; InferenceX ``validate_agentic_result.py``) and ours."""
    block = summary.get("trees") or {}
    lanes = (block.get("trees") or {}).get("lanes") or {}
    overflow = (block.get("context_overflow") or {}).get("rate") or 0.0
    measured = lanes.get("measured_s") or 0.0
    want = rules.get("duration_s") or 0.0

    def row(name: str, value: Any, limit: Any, op: str, ok: bool, rule: str) -> dict[str, Any]:
        return {"name": name, "value": value, "limit": limit, "op": op, "ok": bool(ok),
                "rule": rule}

    rows = [
        row("not_cancelled", summary["stop_reason"] != "interrupted", True, "==",
            summary["stop_reason"] != "interrupted",
            "AIPerf: a cancelled run is invalid (run_cancelled)"),
        row("duration_reached", round(measured, 3), want, ">=", measured + 1e-3 >= want,
            "the measured phase ran its whole --duration"),
        row("context_overflow_rate", overflow, 0.01, "<=", overflow <= 0.01,
            "AIPerf: overflows / responses may not exceed 1% (context_overflow_rate_exceeded)"),
        row("error_rate", block.get("error_rate"), 0.10, "<=",
            (block.get("error_rate") or 0.0) <= 0.10,
            "InferenceX: failed / completed requests at most 10% "
            "(validate_agentic_result.py)"),
        row("lanes_filled", lanes.get("starved", 0) + lanes.get("unfilled", 0), 0, "==",
            not lanes.get("starved") and not lanes.get("unfilled"),
            "every lane held a tree until the end (else the load was lower than named; "
            "--allow-dataset-wrap)"),
    ]
    for violation in rules.get("violations") or []:
        rows.append(row("scenario_rule", violation, "as locked", "==", False,
                        "AIPerf inferencex-agentx-mvp locked invariant"))
    return rows


__all__ = ["STATS", "agentx_rows", "trees_block"]
