"""#32 item 2: metric declarations compute — the record constructor writes each step metric
from its declaration's ``derive``, and a ``metric:NAME`` plugin adds one (checked at load)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import agentic_bench.metrics.declarations as declarations
from agentic_bench.errors import ConfigError
from agentic_bench.metrics.aggregate import RunInfo, summarize
from agentic_bench.metrics.declarations import (
    latency_metrics,
    reload_plugin_metrics,
    step_derivations,
)
from agentic_bench.records import llm_record
from agentic_bench.transport.result import ChatResult

MS = 1_000_000


def result() -> ChatResult:
    r = ChatResult(t_sent_ns=1_000 * MS, t_end_ns=1_100 * MS)
    r.t_first_token_ns = 1_040 * MS
    r.token_times_ns = [1_040 * MS, 1_060 * MS, 1_100 * MS]
    r.output_tokens = 5
    return r


def test_the_built_in_step_metrics_are_derived_from_the_timestamps() -> None:
    rec = llm_record(result(), 990 * MS, 995 * MS, derived=step_derivations())
    assert (rec["ttft_ms"], rec["itl_ms"], rec["request_ms"]) == (40.0, [20.0, 40.0], 100.0)
    assert rec["tpot_ms"] == 60.0 / 4 and rec["schedule_lag_ms"] == 5.0
    plain = llm_record(ChatResult(t_sent_ns=0, t_end_ns=MS), 0, 0, derived=step_derivations())
    assert "ttft_ms" not in plain and "tpot_ms" not in plain  # no token: derived as None
    assert plain["itl_ms"] == [] and plain["output_tokens"] == 0


PLUGIN = '''
from agentic_bench.api import MetricDecl


def decode(t):
    return None if t.first_token_ns is None else t.ms(t.end_ns - t.first_token_ns)


metric = MetricDecl("decode", "decode", "step", "decode_ms", "ms", "lower", "decode_p99_ms",
                    ("p50",), "first token -> last bytes", "Decode time", decode)
clash = MetricDecl("clash", "clash", "step", "ttft_ms", "ms", "lower", None, (), "x")
'''


@pytest.fixture
def plugins(monkeypatch: pytest.MonkeyPatch, plugin_installer: Callable[..., None],
            tmp_path: Path) -> Callable[[dict[str, str]], None]:
    monkeypatch.setattr(declarations, "_PLUGINS", None)  # restored after the test

    def install(entry_points: dict[str, str]) -> None:
        plugin_installer(tmp_path / "site", "metric_plugin", PLUGIN, entry_points)
        monkeypatch.setattr(declarations, "_PLUGINS", None)

    return install


def test_a_plugin_metric_is_derived_into_records_and_summarised(plugins) -> None:
    plugins({"metric:decode": "metric"})
    assert [d.name for d in latency_metrics()][-1] == "decode"
    rec = llm_record(result(), 0, 0, derived=step_derivations())
    assert rec["decode_ms"] == 60.0
    records = [{"type": "step", "kind": "llm", "status": "ok", "session_id": "s", **rec}]
    run = RunInfo(benchmark="t", complete=True, duration_s=1.0, stop_reason="done",
                  slos={"decode_p99_ms": 50.0}, config={})
    summary = summarize(records, run)
    assert summary["latency_ms"]["decode"]["p50"] == 60.0
    gate = next(c for c in summary["constraints"] if c["name"] == "decode_p99_ms")
    assert gate["ok"] is False


@pytest.mark.parametrize(("entry", "target", "says"), [
    ("metric:decode", "missing", "failed to load"),
    ("metric:other", "metric", "its metric is named 'decode', its entry point 'other'"),
    ("metric:clash", "clash", "clashes with the declared metric 'ttft'"),
])
def test_a_broken_metric_plugin_is_named(plugins, entry: str, target: str, says: str) -> None:
    plugins({entry: target})
    with pytest.raises(ConfigError) as err:
        reload_plugin_metrics()
    assert repr(entry) in str(err.value) and says in str(err.value)


def test_a_plugin_metric_reaches_goodput_and_every_view_with_no_other_edit(plugins) -> None:
    """#45 item 3: the views and goodput read their metrics from the declarations, so the
    plugin's metric is in each with nothing but its entry point installed."""
    from agentic_bench.metrics.declarations import VIEWS, shown_in
    from agentic_bench.metrics.sweep import sweep_point, sweep_summary
    from agentic_bench.reporting.compare import metrics as compare_metrics
    from agentic_bench.reporting.html import cards_section, summary_section
    from agentic_bench.reporting.summary_text import render_text
    from agentic_bench.reporting.sweep_html import render_sweep

    plugins({"metric:decode": "metric"})
    assert all("decode" in [d.name for d in shown_in(view)] for view in VIEWS)
    rec = llm_record(result(), 0, 0, derived=step_derivations())  # decode 60 ms, TTFT 40 ms
    records = [{"type": "step", "kind": "llm", "status": "ok", "session_id": "s",
                "role": "main", **rec},
               {"type": "session", "status": "ok", "session_id": "s", "latency_ms": 100.0}]

    def run(limit: float) -> dict[str, object]:
        return summarize(records, RunInfo(benchmark="t", complete=True, duration_s=1.0,
                                          slos={"decode_p99_ms": limit}))

    assert run(50.0)["goodput"] == {"sessions_per_s": 0.0, "sessions": 0}  # 60 ms > 50
    summary = run(70.0)
    assert summary["goodput"] == {"sessions_per_s": 1.0, "sessions": 1}
    assert "decode" in render_text(summary)  # summary.txt's latency table
    assert "decode p50" in cards_section(summary)  # the report's cards
    section = summary_section(summary)
    assert "<td>decode</td>" in section and "decode p50" in section  # latency and roles tables
    assert "decode p50" in [m.label for m in compare_metrics()]
    point = sweep_point("rate", 1.0, summary)
    assert (point["decode_p50_ms"], point["decode_p99_ms"]) == (60.0, 60.0)
    assert "decode p99" in render_sweep(sweep_summary("rate", [point]))
