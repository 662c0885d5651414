"""sweep.html's accuracy-vs-load view for a scored benchmark: accuracy and correct tasks/s
against load beside the latency curves, each point whose accuracy fell outside the lowest-load
point's Wilson interval marked, and why tasks did not count at each load (timeouts, context
overflows, truncations, errors, too slow, wrong). Nothing for an unscored sweep."""

from __future__ import annotations

from typing import Any

from agentic_bench.metrics.scored_tasks import CAUSES
from agentic_bench.reporting.html_template import figure, section, table
from agentic_bench.reporting.plots import Series, line_chart

WIDE = 1100


def _pct(value: Any) -> str:
    return "-" if value is None else f"{value * 100:.1f}%"


def accuracy_view(key: str, points: list[dict[str, Any]], sweep: dict[str, Any]) -> str:
    """The ``sweep-accuracy`` section (empty when no point was scored)."""
    scored = sorted((p for p in points if p.get("accuracy") is not None), key=lambda p: p[key])
    if not scored:
        return ""
    base = sweep.get("accuracy_baseline") or {}
    bounds = base.get("accuracy_interval") or []
    outside = [p for p in scored if p.get("accuracy_outside")]
    acc_series = [Series("accuracy", [(p[key], p["accuracy"]) for p in scored])]
    pass_hat = [p for p in scored if p.get("pass_hat_k") is not None]
    if pass_hat:
        k = pass_hat[0].get("trials")
        acc_series.append(Series(f"pass^{k}", [(p[key], p["pass_hat_k"]) for p in pass_hat]))
    if outside:
        acc_series.append(Series("outside the low-load interval",
                                 [(p[key], p["accuracy"]) for p in outside]))
    note = (f"dashed: the Wilson 95 % interval of the accuracy at {key} {base.get(key, 0):g} "
            f"[{_pct(bounds[0])}, {_pct(bounds[1])}]" if len(bounds) == 2 else "")
    acc_chart = line_chart(acc_series, label="accuracy vs load", x_label=key,
                           y_label="fraction", y_range=(0.0, 1.0), markers=True,
                           hlines=list(bounds), width=WIDE)
    rate_chart = line_chart(
        [Series("sessions/s", [(p[key], p["sessions_per_s"]) for p in scored]),
         Series("goodput (sessions in SLO)/s", [(p[key], p["goodput_sessions_per_s"])
                                                for p in scored]),
         Series("correct tasks/s within SLO", [(p[key], p["task_goodput_per_s"])
                                               for p in scored])],
        label="correct tasks per second vs load", x_label=key, y_label="per second",
        markers=True, width=WIDE)
    rows = [[p[key], f"{p.get('correct_tasks')}/{p.get('tasks_scored')}",
             _pct(p["accuracy"]) + ("" if not p.get("accuracy_interval") else
                                    f" [{_pct(p['accuracy_interval'][0])}, "
                                    f"{_pct(p['accuracy_interval'][1])}]"),
             _pct(p.get("pass_hat_k")), p.get("correct_within_slo"), p["task_goodput_per_s"],
             p.get("request_p99_ms"),
             *((p.get("failure_causes") or {}).get(c, 0) for c in CAUSES),
             "accuracy outside the low-load interval" if p.get("accuracy_outside") else ""]
            for p in scored]
    head = [key, "correct", "accuracy [95 %]", "pass^k", "correct in SLO", "correct tasks/s",
            "request p99 ms", *CAUSES, ""]
    said = (f"{len(outside)} of {len(scored)} points fell outside the low-load accuracy "
            "interval" if outside else "accuracy held within the low-load interval at every "
            "load")
    return section("sweep-accuracy", "Accuracy beside latency, per load point",
                   f'<p class="note" id="sweep-accuracy-headline">{said}</p>'
                   + figure("plot-sweep-accuracy", f"accuracy (and pass^k) against {key}",
                            acc_chart, note)
                   + figure("plot-sweep-task-goodput", f"correct tasks/s within SLO against "
                            f"{key}", rate_chart)
                   + table(head, rows, "table-sweep-accuracy", right=[0]), "wide")


__all__ = ["accuracy_view"]
