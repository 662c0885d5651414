"""MLPerf v6.1 Edge Agentic's accuracy gate, as constraint rows of our verdict.

Reference (mlcommons/endpoints ea332753):

* ``config/rulesets/mlcommons/models.py`` 157-167: golden accuracy of the reference model
  (Qwen3.6-27B Q4_K_M) ``bfcl_overall_accuracy`` 86.23 and ``bfcl_normalized_accuracy`` 87.96,
  each with a one-sided factor 0.97;
* ``evaluation/bfcl_v4_metrics.py``: those map to the scorer's ``overall_accuracy`` and
  ``normalized_single_turn_score``, which ``evaluation/bfcl_v4_scorer.py`` 400-411 writes as
  ``round(x * 100, 2)``;
* ``compliance/checker.py`` 191-218: passes when ``measured >= golden * factor`` — the rounded
  percentage against the *unrounded* threshold (83.6431 and 85.3212 as Python computes them), so
  83.64 fails and 83.65 passes;
* ``checker.py`` 232-240 and ``config/rulesets/mlcommons/rules.py`` 315-325:
  ``total_samples`` (samples that completed, ``bfcl_v4_scorer.py`` 330-335) ``>= 995``.

``--accuracy-target X`` (a fraction, for another model) replaces the overall threshold with
``X * 100`` and drops the normalized one, whose golden figure belongs to the reference model;
the minimum count stays.
"""

from __future__ import annotations

from typing import Any

GOLDEN = {"overall_accuracy": 86.23, "normalized_single_turn_score": 87.96}
FACTOR = 0.97
MIN_COMPLETED = 995
ROUND_DIGITS = 2


def reported(fraction: float | None) -> float | None:
    """The reference's reported figure: a percentage rounded to 2 decimals."""
    return None if fraction is None else round(fraction * 100, ROUND_DIGITS)


def _row(name: str, value: Any, limit: Any, ok: bool, rule: str) -> dict[str, Any]:
    return {"name": name, "value": value, "limit": limit, "op": ">=", "ok": bool(ok),
            "rule": rule}


def gate_rows(overall: float | None, normalized: float | None, completed: int,
              target: float | None = None) -> list[dict[str, Any]]:
    """Constraint rows for the run's single-turn accuracy (fractions in [0, 1])."""
    rows: list[dict[str, Any]] = []
    if target is None:
        thresholds = {key: golden * FACTOR for key, golden in GOLDEN.items()}
        rule = f"MLPerf v6.1 Edge Agentic: {FACTOR} x golden (Qwen3.6-27B Q4_K_M)"
    else:
        thresholds = {"overall_accuracy": target * 100}
        rule = "--accuracy-target (not the MLPerf gate)"
    values = {"overall_accuracy": reported(overall),
              "normalized_single_turn_score": reported(normalized)}
    for key, limit in thresholds.items():
        value = values[key]
        rows.append(_row(f"bfcl_{key}", value, limit, value is not None and value >= limit, rule))
    rows.append(_row("bfcl_completed_samples", completed, MIN_COMPLETED,
                     completed >= MIN_COMPLETED, "MLPerf v6.1 Edge Agentic: min_sample_count"))
    return rows
