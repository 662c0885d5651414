"""``export --to llmd-report``: real runs as llm-d Benchmark Reports v0.2.1, validated by the
package's own reader (PyPI llmd-benchmark-report 0.2.1: ``core.import_benchmark_report``, the
``schema_v0_2`` pydantic models), and the figures traced back to summary.json and records."""

from __future__ import annotations

import json
import shutil
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentic_bench.errors import UsageError
from agentic_bench.export.llmd_report import export_llmd_report

llmd = pytest.importorskip("llmd_benchmark_report",
                           reason="llmd-benchmark-report==0.2.1 (dev extra) is not installed")
pydantic = pytest.importorskip("pydantic")


def _records(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (folder / "records.jsonl").read_text().splitlines()]


def test_a_run_validates_and_carries_the_summary_and_sessions(
        run_folder: Callable[[str], Path], tmp_path: Path) -> None:
    run = run_folder("single")
    out = tmp_path / "report.json"
    assert export_llmd_report(run, out) == [out]
    report = llmd.import_benchmark_report(str(out))
    assert type(report).__name__ == "BenchmarkReportV02" and report.version == "0.2.1"
    summary = json.loads((run / "summary.json").read_text())
    agg = report.results.request_performance.aggregate
    assert agg.requests.total == summary["counts"]["requests"]
    assert agg.latency.time_to_first_token.p50 == summary["latency_ms"]["ttft"]["p50"]
    assert agg.latency.time_to_first_token.units == "ms"
    assert agg.latency.time_per_output_token.units == "ms/token"
    assert agg.throughput.request_rate.mean == summary["throughput"]["requests_per_s"]
    assert report.scenario.load.standardized.concurrency == 1  # single-stream
    assert report.scenario.load.standardized.source == "sampled"
    # session_performance from the session and step records
    sessions = report.results.session_performance.sessions
    assert sessions.total == summary["counts"]["sessions"] == 3
    assert sessions.session_duration.units == "s"
    assert sessions.session_duration.p50 == pytest.approx(
        summary["latency_ms"]["session"]["p50"] / 1000)
    recs = _records(run)
    per_session: dict[str, int] = defaultdict(int)
    for r in recs:
        if r["type"] == "step" and r["kind"] == "llm" and r["status"] == "ok":
            per_session[r["session_id"]] += r["input_tokens"]
    assert sessions.input_tokens_per_session.max == max(per_session.values())
    assert sessions.events_per_session.max == max(r["requests"] for r in recs
                                                  if r["type"] == "session")
    # what the schema has no slot for: the extension (observability, extra allowed)
    extension = report.results.observability.model_extra["agentic_bench"]
    assert extension["turn_latency_ms"] == summary["latency_ms"]["turn"]
    assert extension["result"] == summary["result"]


def test_an_agentx_run_as_yaml_keeps_the_tree_figures(
        run_folder: Callable[[str], Path], tmp_path: Path) -> None:
    run = run_folder("agentx")
    out = tmp_path / "agentx.yaml"
    export_llmd_report(run, out)
    assert out.read_text().startswith("version: 0.2.1")
    report = llmd.import_benchmark_report(str(out))
    summary = json.loads((run / "summary.json").read_text())
    assert report.scenario.load.standardized.concurrency == 2  # the lanes
    assert report.scenario.load.standardized.source == "random"  # prompts synthesised
    assert "agentx" in report.run.keywords
    extension = report.results.observability.model_extra["agentic_bench"]
    assert extension["trees"]["trees"] == summary["trees"]["trees"]
    assert extension["agentx"] == summary["agentx"]
    # warm-up requests are not counted as events
    assert report.results.session_performance.sessions.total_events == \
        summary["counts"]["requests"]


def test_a_sweep_is_one_report_per_point_sharing_the_experiment(
        run_folder: Callable[[str], Path], tmp_path: Path) -> None:
    out = tmp_path / "reports"
    files = export_llmd_report(run_folder("sweep"), out)
    assert [f.name for f in files] == ["concurrency-1.json", "concurrency-2.json"]
    reports = [llmd.import_benchmark_report(str(f)) for f in files]
    assert [r.scenario.load.standardized.concurrency for r in reports] == [1, 2]
    assert reports[0].run.eid == reports[1].run.eid is not None
    assert reports[0].run.uid != reports[1].run.uid


def test_the_validator_catches_a_broken_report(run_folder: Callable[[str], Path],
                                               tmp_path: Path) -> None:
    """The check above can fail: the package refuses a report that breaks its schema."""
    out = tmp_path / "report.json"
    export_llmd_report(run_folder("single"), out)
    data = json.loads(out.read_text())
    data["results"]["request_performance"]["aggregate"]["latency"][
        "time_to_first_token"]["units"] = "tokens/s"
    out.write_text(json.dumps(data))
    with pytest.raises(pydantic.ValidationError):
        llmd.import_benchmark_report(str(out))


def test_what_cannot_be_exported_is_refused_before_writing(
        run_folder: Callable[[str], Path], tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not a run folder"):
        export_llmd_report(tmp_path, tmp_path / "r.json")
    broken = tmp_path / "broken"
    shutil.copytree(run_folder("single"), broken)
    (broken / "summary.json").unlink()
    with pytest.raises(UsageError, match=r"no summary\.json"):
        export_llmd_report(broken, tmp_path / "r.json")
    with pytest.raises(UsageError, match="give the report's file name"):
        export_llmd_report(run_folder("single"), tmp_path)
    assert not (tmp_path / "r.json").exists()
