"""Latency metrics as declarations (#23 item 2): one table read by the summary, the verdict's SLO
keys, summary.txt, compare, and the generated table of docs/metrics.md (stale doc = failure);
the live progress line uses the summary's percentile method."""

from __future__ import annotations

from pathlib import Path

from agentic_bench.metrics.declarations import (
    LATENCY,
    latency_block,
    render_doc,
)
from agentic_bench.metrics.percentiles import describe

DOC = Path(__file__).parents[3] / "docs" / "metrics.md"


def test_docs_metrics_table_is_generated_from_the_declarations() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert render_doc(text) == text, ("docs/metrics.md is stale: run "
                                      "`python -m agentic_bench.metrics.declarations`")


def test_latency_block_folds_each_declared_source() -> None:
    steps = [{"ttft_ms": 10.0, "itl_ms": [1.0, 2.0], "tpot_ms": 1.5, "request_ms": 20.0},
             {"ttft_ms": 30.0, "itl_ms": [3.0], "request_ms": 40.0}]  # one token: no TPOT
    turns, sessions = [{"latency_ms": 100.0}], [{"latency_ms": 150.0}, {"latency_ms": 250.0}]
    block = latency_block(steps, turns, sessions)
    assert list(block) == [d.name for d in LATENCY]
    assert block["ttft"] == describe([10.0, 30.0]) and block["itl"]["count"] == 3
    assert block["tpot"]["count"] == 1 and block["request"]["p50"] == 30.0
    assert block["turn"]["count"] == 1 and block["session"]["mean"] == 200.0


def test_slo_keys_and_compare_rows_come_from_the_declarations() -> None:
    from agentic_bench.metrics.verdict import UPPER
    from agentic_bench.reporting.compare import metrics

    declared = {decl.slo for decl in LATENCY if decl.slo}
    assert set(UPPER) == declared == {"ttft_p99_ms", "tpot_p99_ms", "turn_p90_ms"}
    assert UPPER["turn_p90_ms"] == ("turn", "p90") and UPPER["ttft_p99_ms"] == ("ttft", "p99")
    rows = [m for m in metrics() if m.path[0] == "latency_ms"]
    assert [(m.path[1], m.path[2]) for m in rows] == \
        [(d.name, stat) for d in LATENCY for stat in d.compare]
    assert all(m.better == "lower" and m.unit == "ms" for m in rows)
    from agentic_bench.metrics.declarations import FIGURES

    others = [m for m in metrics() if m.path[0] != "latency_ms"]
    assert [(m.label, m.path, m.unit, m.better) for m in others] == \
        [(f.label, f.path, f.unit, f.better) for f in FIGURES]  # every row is declared


def test_the_progress_line_uses_the_summary_percentiles() -> None:
    from agentic_bench.reporting.progress import Progress

    progress = Progress(total=None, quiet=True)
    for value in (1.0, 2.0, 3.0, 4.0):
        progress.on_record({"type": "step", "kind": "llm", "status": "ok", "ttft_ms": value})
    line = progress.line()
    assert "TTFT p50 2.5 ms" in line  # linear interpolation, as summary.json (not 3.0)
    assert f"p99 {describe([1.0, 2.0, 3.0, 4.0])['p99']:.1f} ms" in line


def test_one_declaration_reaches_summary_text_report_compare_slo_and_docs() -> None:
    """#23 acceptance: a metric added by one declaration appears in summary.json, summary.txt,
    the report (its latency table and a CDF plot), compare, the SLO keys and the docs."""
    from agentic_bench.metrics.aggregate import RunInfo, summarize
    from agentic_bench.metrics.declarations import MetricDecl, declared_latency, markdown_table
    from agentic_bench.metrics.verdict import parse_slos
    from agentic_bench.reporting.compare import compare_rows, render_compare_text
    from agentic_bench.reporting.html import render_report
    from agentic_bench.reporting.summary_text import render_text

    records = [{"type": "run", "benchmark": "t", "config": {}},
               {"type": "step", "session_id": "s", "turn": 0, "kind": "llm", "status": "ok",
                "t_sent_ns": 0, "t_end_ns": 9_000_000, "request_ms": 9.0, "ttft_ms": 4.0,
                "queue_ms": 2.5, "output_tokens": 3, "input_tokens": 5},
               {"type": "turn", "session_id": "s", "session_index": 0, "turn": 0, "status": "ok",
                "latency_ms": 9.0},
               {"type": "session", "session_id": "s", "session_index": 0, "status": "ok",
                "turns": 1, "latency_ms": 9.0}]
    decl = MetricDecl("queue", "queue wait", "step", "queue_ms", "ms", "lower",
                      "queue_p99_ms", ("p50",), "time the server kept the request queued",
                      "Queue wait")
    with declared_latency(decl):
        assert parse_slos(["queue_p99_ms=1"]) == {"queue_p99_ms": 1.0}  # a new SLO key
        run = RunInfo(benchmark="t", complete=True, duration_s=1.0, stop_reason="done",
                      slos={"queue_p99_ms": 1.0}, config={})
        summary = summarize(records, run)
        assert summary["latency_ms"]["queue"]["p50"] == 2.5  # summary.json
        gate = next(c for c in summary["constraints"] if c["name"] == "queue_p99_ms")
        assert gate["ok"] is False and summary["result"] == "INVALID"  # the verdict gates it
        assert "\nqueue " in render_text(summary)  # summary.txt
        html = render_report(summary, records)
        assert "Queue wait CDF" in html and ">queue<" in html  # report: plot and table row
        rows = compare_rows([summary, summary])
        assert any(r.metric.label == "queue wait p50" and r.values == [2.5, 2.5] for r in rows)
        text = render_compare_text(["a", "b"], [summary, summary])  # names, then summaries
        (line,) = [r for r in text.splitlines() if r.startswith("queue wait p50")]
        assert "2.50" in line  # the figure itself, not only its row
        assert "| `queue` (queue wait) |" in markdown_table()  # the docs' generated table
    assert "queue" not in summarize(records, run)["latency_ms"]  # gone with the declaration


def test_step_derivations_follow_a_declaration_added_and_removed() -> None:
    """#33: the per-request derivations are kept between requests, and a declaration added or
    removed is seen at the next request."""
    from agentic_bench.metrics.declarations import MetricDecl, declared_latency, step_derivations

    before = [f for f, _ in step_derivations()]
    assert step_derivations() is step_derivations()  # kept, not rebuilt per request
    decl = MetricDecl("gap2", "gap 2", "step", "gap2_ms", "ms", "lower", None, (), "a test",
                      derive=lambda t: 1.0)
    with declared_latency(decl):
        assert [f for f, _ in step_derivations()] == [*before, "gap2_ms"]
    assert [f for f, _ in step_derivations()] == before


def test_itl_of_a_reply_read_in_one_piece_is_the_general_rule() -> None:
    """The one-read shortcut (every token stamped alike) gives what the gaps give."""
    import itertools

    from agentic_bench.metrics.declarations import field_of, step_derivations
    from agentic_bench.records.llm import Timestamps

    derive = dict(step_derivations())[field_of("itl")]
    for times in ([7_000_000] * 5, [7_000_000], [], [1_000_000, 1_000_000, 3_500_000]):
        stamps = Timestamps(0, 0, 9_000_000, times[0] if times else None, times, len(times))
        assert derive(stamps) == [round((b - a) / 1e6, 4) for a, b in itertools.pairwise(times)]
