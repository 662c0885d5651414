"""Constraints and the MLPerf-style VALID/INVALID verdict.

SLO keys (``--slo KEY=VALUE``, or a benchmark's defaults): ``<metric>_<statistic>_ms`` for any
declared latency metric and statistic — ``ttft_p99_ms``, ``ttft_p95_ms``, ``tpot_p99_ms``,
``turn_p90_ms``, ``request_max_ms``, ... (upper limits) —, ``min_duration_s``,
``min_sessions`` (lower limits), ``accuracy`` (lower limit on the task's headline accuracy).
Always checked: the run completed, and no turn is missing. A task may add its own accuracy
gates (``accuracy["gates"]``: rows with name, value, limit, op, ok and the rule they come from,
e.g. MLPerf's Edge Agentic gate); each becomes a constraint row. A run issued by MLPerf LoadGen
also carries LoadGen's own verdict as the row ``loadgen_result``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agentic_bench.errors import ConfigError
from agentic_bench.metrics.declarations import MetricDecl, shown_in, slo_limits
from agentic_bench.metrics.summary_model import Constraint, Summary

# an upper limit per declared SLO key, named <metric>_<statistic>_<unit> (metrics/declarations.py)
UPPER = slo_limits()  # the built-ins'; the verdict asks slo_limits() when it runs
LOWER = ("min_duration_s", "min_sessions", "accuracy")


STATISTICS = ("mean", "p50", "p90", "p95", "p99", "max")


def latency_slo(key: str) -> tuple[str, str] | None:
    """``<metric>_<statistic>_ms`` for any declared latency metric and statistic (mean, p50,
    p90, p95, p99, max) → (metric, statistic); None for anything else."""
    from agentic_bench.metrics.declarations import latency_metrics

    if not key.endswith("_ms"):
        return None
    head, _, stat = key[:-3].rpartition("_")
    if stat in STATISTICS and head in {d.name for d in latency_metrics()}:
        return head, stat
    return None


def slo_keys() -> tuple[str, ...]:
    """The named --slo keys: one upper limit per declared latency SLO, then the lower limits
    (any other ``<metric>_<statistic>_ms`` of a declared metric is accepted too)."""
    return (*slo_limits(), *LOWER)


def parse_slos(items: list[str] | None) -> dict[str, float]:
    """``["ttft_p99_ms=2000", "tpot_p99_ms=200,min_sessions=10"]`` → dict."""
    out: dict[str, float] = {}
    for item in items or []:
        for part in filter(None, (p.strip() for p in item.split(","))):
            key, sep, value = part.partition("=")
            if not sep or (key not in slo_keys() and latency_slo(key) is None):
                from agentic_bench.metrics.declarations import latency_metrics

                metrics = "|".join(d.name for d in latency_metrics())
                raise ConfigError(
                    f"--slo {part!r}: expected KEY=VALUE with KEY <metric>_<statistic>_ms "
                    f"(metric {metrics}; statistic {'|'.join(STATISTICS)}; e.g. "
                    f"ttft_p95_ms) or one of {', '.join(LOWER)}")
            try:
                out[key] = float(value)
            except ValueError:
                raise ConfigError(f"--slo {part!r}: {value!r} is not a number") from None
    return out


def _c(name: str, value: Any, limit: Any, op: str, ok: bool) -> dict[str, Any]:
    return {"name": name, "value": value, "limit": limit, "op": op, "ok": bool(ok)}


def evaluate(summary: Summary | dict[str, Any],
             slos: Mapping[str, float]) -> list[dict[str, Any]]:
    """Constraint rows for ``summary``; the run is VALID when every row is ok."""
    summary = Summary.of(summary)
    if summary.agentx:  # AgentX judges errors by its own rules (metrics/trees.py)
        from agentic_bench.metrics.trees import agentx_rows

        rows = agentx_rows(summary, summary.agentx)
    else:
        missing = summary.counts.missing_turns
        rows = [_c("complete", summary.complete, True, "==", summary.complete),
                _c("missing_turns", missing, 0, "==", missing == 0)]
    internal = summary.counts.internal_errors
    if internal:  # sessions the harness itself failed: never a VALID run
        rows.append({**_c("harness_errors", internal, 0, "==", False),
                     "rule": "sessions the harness failed (an exception, an unreadable trace "
                     "file): each is an error session record"})
    for key in slos:
        found = latency_slo(key)
        if found is not None:
            value = summary.latency(*found)
            rows.append(_c(key, value, slos[key], "<=", value is not None and value <= slos[key]))
    if "min_duration_s" in slos:
        rows.append(_c("min_duration_s", summary.duration_s, slos["min_duration_s"], ">=",
                       summary.duration_s >= slos["min_duration_s"]))
    if "min_sessions" in slos:
        ok_sessions = summary.counts.sessions_ok
        rows.append(_c("min_sessions", ok_sessions, slos["min_sessions"], ">=",
                       ok_sessions >= slos["min_sessions"]))
    accuracy = summary.accuracy or {}
    if "accuracy" in slos:
        value = accuracy.get("headline")
        rows.append(_c("accuracy", value, slos["accuracy"], ">=",
                       value is not None and value >= slos["accuracy"]))
    rows += _loadgen_rows(summary.loadgen)
    for gate in accuracy.get("gates") or []:  # a task's own gates
        rows.append({**_c(gate["name"], gate["value"], gate["limit"], gate["op"], gate["ok"]),
                     **({"rule": gate["rule"]} if gate.get("rule") else {})})
    return rows


def _loadgen_rows(loadgen: dict[str, Any] | None) -> list[dict[str, Any]]:
    """LoadGen's own verdict as a row, for a run MLPerf LoadGen issued."""
    if not isinstance(loadgen, dict) or loadgen.get("result") is None:
        return []
    return [{**_c("loadgen_result", loadgen["result"], "VALID", "==",
                  loadgen["result"] == "VALID"),
             "rule": "MLPerf LoadGen's verdict (mlperf_log_summary.txt)"
             + (f": {loadgen['invalid_reason']}" if loadgen.get("invalid_reason") else "")}]


def _limit(slos: dict[str, float], metric: str) -> float | None:
    """The tightest limit any --slo key sets on ``metric`` (each request or turn must meet
    it for its session to count as goodput, whichever statistic the key names)."""
    found = [v for k, v in slos.items() if (latency_slo(k) or ("", ""))[0] == metric]
    return min(found) if found else None


@dataclass(frozen=True)
class GoodputLimits:
    """The limits every record of a goodput session must meet: for each metric of the
    ``goodput`` view (metrics/declarations.py) that an --slo key limits, the tightest limit,
    by the records it is read from (``step``, ``turn``, ``session``)."""

    by_source: dict[str, tuple[tuple[MetricDecl, float], ...]]

    def met(self, record: dict[str, Any], source: str) -> bool:
        """``record`` (of ``source``) within every limit on its metrics: each value (each
        element of a list field) at most the limit; a missing value meets it, except for a
        metric declared ``missing_fails`` (a request with no first token fails a TTFT
        limit; one with a single token, no TPOT, meets a TPOT limit)."""
        for decl, limit in self.by_source.get(source, ()):
            value = record.get(decl.field)
            values = value if isinstance(value, list | tuple) else (
                () if value is None else (value,))
            if not values and decl.missing_fails:
                return False
            if any(v > limit for v in values):
                return False
        return True


def goodput_limits(slos: dict[str, float]) -> GoodputLimits:
    """The limits of a goodput session under ``slos``, read from the declarations: every
    metric of the ``goodput`` view whose limit an --slo key sets (whichever statistic)."""
    by_source: dict[str, list[tuple[MetricDecl, float]]] = {}
    for decl in shown_in("goodput"):
        limit = _limit(slos, decl.name)
        if limit is not None:
            by_source.setdefault(decl.source, []).append((decl, limit))
    return GoodputLimits({k: tuple(v) for k, v in by_source.items()})


def session_meets_slos(requests: list[dict[str, Any]], turns: list[dict[str, Any]],
                       slos: dict[str, float]) -> bool:
    """Per-session goodput test: every request ok and every request and turn within the
    latency limits."""
    limits = goodput_limits(slos)
    return (all(r.get("status") == "ok" and limits.met(r, "step") for r in requests)
            and all(limits.met(t, "turn") for t in turns))


ALWAYS = ("complete", "missing_turns")


def unconstrained(constraints: Sequence[Constraint | dict[str, Any]]) -> bool:
    """True when no latency, accuracy or other limit was checked: VALID then means only that
    the run completed with no missing turn."""
    return all((row.name if isinstance(row, Constraint) else row["name"]) in ALWAYS
               for row in constraints)


UNCONSTRAINED_NOTE = ("no latency or accuracy constraint was set: VALID means only that the run "
                      "completed with no missing turn (add --slo ttft_p99_ms=...,accuracy=...)")
