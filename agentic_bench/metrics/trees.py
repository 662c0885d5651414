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
* ``latency_coverage`` — how far into the measured phase TTFT and ITL were observed: (the last
  first token, or the last end of a successful request with at least 2 output tokens, minus
  the measured phase's start) / ``--duration``, within [0, 1] (agentx-harness 1.0.12
  ``metrics/accumulator.py`` 360-404); the AgentX verdict wants either at 0.95 or more
  (``minimum_profile_metric_coverage_ratio``, :func:`agentx_rows`).
* ``trees`` — trees started, whole ones (from their first request) completed, their completion
  time; per-turn latency is ``latency_ms.turn``; subagents (``branch`` records) and how long
  parents waited for them (``join`` records); lane occupancy (the ``lanes`` record).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from agentic_bench.metrics.distribution import Distribution
from agentic_bench.metrics.percentiles import describe
from agentic_bench.metrics.speculation_rows import spec_rows
from agentic_bench.metrics.summary_model import Summary

STATS = ("mean", "p50", "p75", "p90", "p95", "p99")


def _stats(itl: Distribution) -> dict[str, float | None]:
    if not itl.count:
        return {k: None for k in ("count", *STATS)}
    out: dict[str, Any] = {"count": itl.count, "mean": itl.total() / itl.count}
    for p in (50, 75, 90, 95, 99):
        out[f"p{p}"] = itl.percentile(p)
    return out


class TreesTally:
    """What :func:`trees_block` needs, fed the measured LLM step and session records one at a
    time (warm-up left out): sums, counts and distributions (latencies at 1 µs), no record."""

    def __init__(self) -> None:
        self.requests = self.requests_ok = self.errors = self.overflow = 0
        self.itl = Distribution()
        self.first_sent: int | None = None
        self.last_end: int | None = None
        self.input_tokens = self.output_tokens = self.hit = self.blocks = 0
        self.cached_requests = self.cached = self.cached_prompt = 0
        self.targets = self.synthesized_exact = self.shorter = 0
        self.server_minus_target = Distribution(None)
        self.sessions = self.partial = self.done = self.stopped = 0
        self.completion = Distribution()
        self.requests_per_tree = Distribution(None)
        self.last_first_token: int | None = None  # latency coverage: the last TTFT seen
        self.last_itl_end: int | None = None  # and the last end of a request with an ITL

    def add_llm(self, r: dict[str, Any]) -> None:
        self.requests += 1
        self.overflow += bool(r.get("context_overflow"))
        if r.get("status") != "ok":
            self.errors += 1
            return
        self.requests_ok += 1
        out = r.get("output_tokens") or 0
        if r.get("tpot_ms") and out >= 2:
            self.itl.add(r["tpot_ms"])
        sent, end = r.get("t_sent_ns"), r.get("t_end_ns")
        first = r.get("t_first_token_ns")
        if first is not None:
            self.last_first_token = max(first, self.last_first_token or first)
        if out >= 2 and end is not None:
            self.last_itl_end = max(end, self.last_itl_end or end)
        if sent is not None:
            self.first_sent = sent if self.first_sent is None else min(self.first_sent, sent)
        if end is not None:
            self.last_end = end if self.last_end is None else max(self.last_end, end)
        server = r.get("input_tokens")
        self.input_tokens += int(server if server is not None
                                 else (r.get("prompt_tokens_target") or 0))
        self.output_tokens += out
        self.hit += r.get("prefix_hit_blocks") or 0
        self.blocks += r.get("prefix_blocks") or 0
        if isinstance(r.get("cached_tokens"), int) and server:
            self.cached_requests += 1
            self.cached += r["cached_tokens"]
            self.cached_prompt += server
        target = r.get("prompt_tokens_target")
        if target is not None:
            self.targets += 1
            self.synthesized_exact += r.get("prompt_tokens_synth") == target
            if server is not None:
                self.server_minus_target.add(server - target)
        wanted = r.get("output_tokens_target")
        self.shorter += wanted is not None and out < max(1, wanted)

    def add_session(self, s: dict[str, Any]) -> None:
        self.sessions += 1
        self.stopped += s.get("status") == "stopped"
        self.requests_per_tree.add(float(s.get("requests", 0)))
        if s.get("partial"):
            self.partial += 1
        elif s.get("status") == "ok":
            self.done += 1
            self.completion.add(s["latency_ms"])

    def block(self, records: Sequence[dict[str, Any]], gpus: int = 1) -> dict[str, Any]:
        """The ``trees`` block; ``records``: the run's ``branch``, ``join`` and ``lanes``."""
        itl_stats = _stats(self.itl)
        interactivity = {k: (1000.0 / v if v else None) for k, v in itl_stats.items()
                         if k != "count"}
        window = (float(self.last_end - self.first_sent) / 1e9
                  if self.first_sent is not None and self.last_end is not None else 0.0)
        inp, out = self.input_tokens, self.output_tokens
        rates = {"input_tokens_per_s": inp / window if window else None,
                 "output_tokens_per_s": out / window if window else None,
                 "total_tokens_per_s": (inp + out) / window if window else None}
        return {
            "requests": self.requests, "requests_ok": self.requests_ok, "gpus": gpus,
            "full_response_itl_ms": itl_stats,
            "interactivity": interactivity,
            "throughput": {"window_s": window, "input_tokens": inp, "output_tokens": out,
                           **rates,
                           "per_gpu": {k: (v / gpus if v is not None else None)
                                       for k, v in rates.items()}},
            "prefix_hit": {
                "theoretical": self.hit / self.blocks if self.blocks else None,
                "theoretical_blocks": self.blocks,
                "observed": (self.cached / self.cached_prompt) if self.cached_requests
                else None,
                "observed_requests": self.cached_requests},
            "prompt_tokens": {
                "requests": self.targets,
                "synthesized_exact": self.synthesized_exact,
                "server_minus_target": self.server_minus_target.describe(),
                "note": "server usage.prompt_tokens minus the recorded input: chat-template and "
                        "cache-bust marker tokens (and any tokenizer mismatch)"},
            "replies": {"shorter_than_recorded": self.shorter, "of": self.targets},
            "context_overflow": {"count": self.overflow, "responses": self.requests,
                                 "rate": self.overflow / self.requests if self.requests
                                 else 0.0},
            "error_rate": self.errors / self.requests_ok if self.requests_ok
            else (1.0 if self.errors else 0.0),
            "failed_share": (self.errors - self.overflow) / (self.requests - self.overflow)
            if self.requests > self.overflow else 0.0,
            "latency_coverage": self._coverage(records),
            "trees": self._tree_view(records),
        }

    def _coverage(self, records: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
        """TTFT and ITL coverage of the measured phase (module doc); None without a lanes
        record that says when the phase began and how long it was asked to be."""
        lanes = next((r for r in records if r.get("type") == "lanes"), None)
        if lanes is None or lanes.get("measured_start_ns") is None or not lanes.get("duration_s"):
            return None
        start, want_ns = lanes["measured_start_ns"], lanes["duration_s"] * 1e9

        def ratio(last: int | None) -> float:
            return 0.0 if last is None else min(max((last - start) / want_ns, 0.0), 1.0)

        return {"ttft": ratio(self.last_first_token), "itl": ratio(self.last_itl_end),
                "duration_s": lanes["duration_s"]}

    def _tree_view(self, records: Sequence[dict[str, Any]]) -> dict[str, Any]:
        branches = [r for r in records if r.get("type") == "branch" and r.get("spawned")]
        joins = [r for r in records if r.get("type") == "join"]
        lanes = next((r for r in records if r.get("type") == "lanes"), None)
        out: dict[str, Any] = {
            "started": self.sessions, "mid_trajectory": self.partial,
            "whole": self.sessions - self.partial, "whole_completed": self.done,
            "stopped": self.stopped,
            "completion_ms": self.completion.describe(),
            "requests_per_tree": self.requests_per_tree.describe(),
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
                "idle_gap_cap_s", "trace_idle_gap_cap_s", "tree_jumps", "tree_skipped_s",
                "trees_idle_capped")}
            if "workers" in lanes:  # lanes split over worker processes or Ray actors
                out["lanes"].update({k: lanes.get(k) for k in (
                    "workers", "measured_start_spread_ms")})
        return out


def trees_block(llm: Iterable[dict[str, Any]], sessions: Iterable[dict[str, Any]],
                records: Sequence[dict[str, Any]], gpus: int = 1) -> dict[str, Any]:
    tally = TreesTally()
    for r in llm:
        tally.add_llm(r)
    for s in sessions:
        tally.add_session(s)
    return tally.block(records, gpus)


def agentx_rows(summary: Summary, rules: dict[str, Any]) -> list[dict[str, Any]]:
    """The scenario's validity rows (AIPerf 0.13 ``exporters/aggregate/
    aggregate_base_exporter.py``; InferenceX ``validate_agentic_result.py``) and ours."""
    block = summary.trees or {}
    aborted = summary.stop_reason == "failed_request_threshold"
    # the live abort cancels the profile as AIPerf's ProfileCancelCommand does
    not_cancelled = summary.stop_reason != "interrupted" and not aborted
    lanes = (block.get("trees") or {}).get("lanes") or {}
    overflow = (block.get("context_overflow") or {}).get("rate") or 0.0
    measured = lanes.get("measured_s") or 0.0
    want = rules.get("duration_s") or 0.0

    def row(name: str, value: Any, limit: Any, op: str, ok: bool, rule: str) -> dict[str, Any]:
        return {"name": name, "value": value, "limit": limit, "op": op, "ok": bool(ok),
                "rule": rule}

    rows = [
        row("not_cancelled", not_cancelled, True, "==", not_cancelled,
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
    threshold = rules.get("failed_request_threshold")
    if threshold is not None:
        rows.append(row("failed_request_threshold", block.get("failed_share"), threshold, "<=",
                        not aborted, "AIPerf agentx preset: the run stops once failed / "
                        "responses exceed the threshold, from max(concurrency, 10) responses "
                        "on (failed_request_threshold)"))
    rows += coverage_rows(block, rules, cancelled=not not_cancelled)
    for violation in rules.get("violations") or []:
        rows.append(row("scenario_rule", violation, "as locked", "==", False,
                        "AIPerf inferencex-agentx-mvp locked invariant"))
    rows += spec_rows(summary, rules.get("spec_decode_policy"))
    return rows


def coverage_rows(block: dict[str, Any], rules: dict[str, Any],
                  cancelled: bool) -> list[dict[str, Any]]:
    """The latency coverage row: TTFT or ITL observed over at least
    ``minimum_profile_metric_coverage_ratio`` of the measured phase (agentx-harness 1.0.12
    ``records/records_manager.py`` 1729-1840, ``common/models/record_models.py`` 441-446: either
    signal suffices); not judged for a cancelled run or a measured phase under the scenario's
    minimum (as there: other rows fail those)."""
    want = rules.get("min_latency_coverage")
    coverage = block.get("latency_coverage")
    duration = rules.get("duration_s") or 0.0
    if want is None or cancelled or duration < (rules.get("min_duration_s") or 0.0):
        return []
    best = max(coverage["ttft"], coverage["itl"]) if coverage else 0.0
    return [{"name": "latency_coverage", "value": round(best, 4), "limit": want, "op": ">=",
             "ok": best >= want,
             "rule": "AIPerf inferencex-agentx-mvp: TTFT or ITL observed over at least "
                     f"{want:.0%} of the measured phase (minimum_profile_metric_coverage_ratio)"}]


__all__ = ["STATS", "TreesTally", "agentx_rows", "coverage_rows", "trees_block"]
