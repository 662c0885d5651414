"""The performance phase's tracked samples and QPS window, as MLPerf's reference counts them.

mlcommons/endpoints ea332753 (paths under ``src/inference_endpoint/``), for the
``agentic_inference`` load pattern (not Poisson, so not the legacy LoadGen window:
``commands/benchmark/pipeline.py`` 167-174):

* ``qps = n_samples_completed / duration`` (``metrics/report.py`` 299-301, 331-334), with
  ``n_samples_completed`` the tracked COMPLETE events and ``duration`` the tracked block:
  START_PERFORMANCE_TRACKING (published as the phase starts, ``load_generator/session.py``
  488-490) to the *last tracked completion* (``metrics_aggregator/metrics_table.py`` 102-116,
  557-564) — not to the end of the phase's bookkeeping;
* tracked ISSUED events (``aggregator.py`` 398-402) are every request sent and every turn
  aborted after a failure (``register_skipped``, session.py 319-342, publishes ISSUED; the
  abort then publishes ERROR + COMPLETE, ``agentic_inference_strategy.py`` 524-597, so those
  complete and fail at once), as is a timed-out turn (477-522) and a failed request
  (session.py 618-651);
* a request never completed in the phase — in flight at the 4-h cap or at an interrupt — is
  issued and not completed (session.py 395-413, 527-550).

Our records: one ``inline_score`` per MLPerf turn (issued, answered, reason) and one step per
request (``t_end_ns``); :func:`tracked` rebuilds the counts and the window from them.
"""

from __future__ import annotations

from typing import Any

from agentic_bench.tasks.agentic_edge.phase_cap import CAP_IN_FLIGHT

NEVER_COMPLETED = frozenset({CAP_IN_FLIGHT, "cancelled"})


def _completed(row: dict[str, Any]) -> bool:
    return bool(row.get("answered")) or row.get("reason") not in NEVER_COMPLETED


def tracked(records: list[dict[str, Any]]) -> dict[str, Any] | None:
    """``issued``, ``completed``, ``failed`` and ``duration_ns`` of the performance phase on
    MLCommons' conversations (None: no ``inline_score`` record, another performance phase)."""
    latest: dict[tuple[str, int], dict[str, Any]] = {}
    for r in records:  # a resumed, retried conversation replaces its earlier rows
        if r.get("type") == "inline_score" and r.get("issued"):
            latest[(r["conversation_id"], int(r["mlperf_turn"]))] = r
    if not latest:
        return None
    done = [r for r in latest.values() if _completed(r)]
    steps = [r for r in records if r.get("type") == "step" and r.get("phase") == "performance"
             and r.get("kind", "llm") == "llm"]
    starts = [s for r in steps if (s := r.get("t_scheduled_ns", r.get("t_sent_ns"))) is not None]
    ends = [r["t_end_ns"] for r in steps
            if r.get("status") != "cancelled" and r.get("t_end_ns") is not None]
    duration = max(ends) - min(starts) if starts and ends and max(ends) > min(starts) else None
    return {"issued": len(latest), "completed": len(done),
            "failed": sum(1 for r in done if not r.get("answered")), "duration_ns": duration}


__all__ = ["NEVER_COMPLETED", "tracked"]
