"""The SDK side of the ``otel`` export (agentic_bench/export/otel_export.py): spans reach an
SDK exporter with the mapping's ids, instants and status; the endpoint URL; failures."""

from __future__ import annotations

import json
import socket
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.exporter.otlp.proto.http")

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)
from opentelemetry.trace import SpanKind, StatusCode

from agentic_bench.errors import UsageError
from agentic_bench.export import exporter
from agentic_bench.export.otel_export import (
    export_after_run,
    export_otel,
    send_run,
    traces_url,
)
from agentic_bench.export.otel_spans import run_spans
from agentic_bench.transport.traceparent import span_id, trace_id

STARTED = 1_700_000_000.5
BASE = round(STARTED * 1e9)


def write_run(folder: Path, sessions: int = 2) -> Path:
    records: list[dict[str, Any]] = [
        {"type": "run", "benchmark": "replay", "started_at": STARTED, "trace_key": "abc",
         "endpoint": {"url": "http://127.0.0.1:1/v1", "kind": "url", "model": "m"}}]
    for i in range(sessions):
        sid, t = f"s{i}#{i}", i * 10_000_000
        records += [
            {"type": "step", "session_id": sid, "turn": 0, "step": 0, "kind": "llm",
             "status": "ok", "t_sent_ns": t + 1_000, "t_first_token_ns": t + 2_000,
             "t_end_ns": t + 5_000, "input_tokens": 3, "output_tokens": 2, "ttft_ms": 0.001},
            {"type": "step", "session_id": sid, "turn": 0, "step": 1, "kind": "llm",
             "status": "error", "error_type": "timeout", "error": "timed out",
             "t_sent_ns": t + 6_000, "t_end_ns": t + 9_000},
            {"type": "turn", "session_id": sid, "turn": 0, "status": "error",
             "t_start_ns": t, "t_end_ns": t + 9_500},
            {"type": "session", "session_id": sid, "source_session": f"s{i}",
             "status": "error", "t_scheduled_ns": t, "t_end_ns": t + 10_000}]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return folder


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_spans_reach_the_exporter_with_our_ids_times_and_status(tmp_path: Path) -> None:
    memory = InMemorySpanExporter()
    report = send_run(write_run(tmp_path / "run"), "http://unused/v1/traces", exporter=memory)
    got = memory.get_finished_spans()
    assert (report.spans, report.sessions, report.error) == (8, 2, None)
    assert len(got) == 8
    root = next(s for s in got if s.name == "session s0")
    assert root.parent is None
    assert (root.context.trace_id, root.context.span_id) == (trace_id("abc", "s0#0"),
                                                             span_id("abc", "s0#0"))
    assert (root.start_time, root.end_time) == (BASE, BASE + 10_000)
    assert root.status.status_code is StatusCode.ERROR
    chats = sorted((s for s in got if s.name == "chat m" and
                    s.context.trace_id == root.context.trace_id), key=lambda s: s.start_time or 0)
    turn = next(s for s in got if s.name == "turn 0" and
                s.context.trace_id == root.context.trace_id)
    assert turn.parent is not None and turn.parent.span_id == root.context.span_id
    assert all(c.parent is not None and c.parent.span_id == turn.context.span_id
               for c in chats)
    ok, failed = chats
    assert ok.kind is SpanKind.CLIENT and (ok.start_time, ok.end_time) == (BASE + 1_000,
                                                                          BASE + 5_000)
    assert ok.attributes is not None and ok.attributes["gen_ai.usage.output_tokens"] == 2
    assert [(e.name, e.timestamp) for e in ok.events] == [("agentic_bench.first_token",
                                                           BASE + 2_000)]
    assert ok.status.status_code is StatusCode.UNSET
    assert failed.status.status_code is StatusCode.ERROR
    assert failed.status.description == "timed out"
    assert failed.attributes is not None and failed.attributes["error.type"] == "timeout"
    assert root.resource.attributes["service.name"] == "agentic-bench"
    # the SDK's spans are the mapping's, one for one
    mapped = {s.span_id for batch in run_spans(json.loads(x) for x in
              (tmp_path / "run" / "records.jsonl").read_text().splitlines()) for s in batch}
    assert {s.context.span_id for s in got} == mapped


class Refusing(SpanExporter):
    def __init__(self) -> None:
        self.calls = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.calls += 1
        return SpanExportResult.FAILURE


def test_a_refused_export_is_reported_and_stops_early(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("agentic_bench.export.otel_export.FLUSH_EVERY", 4)
    refusing = Refusing()
    report = send_run(write_run(tmp_path / "run", sessions=50), "http://x/v1/traces",
                      exporter=refusing)
    assert report.error is not None
    assert refusing.calls == 1 and report.spans == 4  # no timeout per batch after that


def test_a_dead_collector_after_a_run_is_one_warning(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    report = export_after_run(write_run(tmp_path / "run"), url, quiet=True, timeout_s=3)
    err = capsys.readouterr().err
    assert report.error is not None and "Connection refused" in report.error
    assert err.count("\n") == 1 and err.startswith("warning: OTLP export to ")
    assert f"--to otel --out {url}/v1/traces" in err


def test_nothing_to_send_after_a_run_is_a_warning_too(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    report = export_after_run(tmp_path, "http://127.0.0.1:1")
    assert report.error is not None and "no records.jsonl" in report.error
    assert capsys.readouterr().err.startswith("warning:")


def test_export_command_refuses_a_folder_without_records(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"no records\.jsonl"):
        export_otel(tmp_path, Path("http://127.0.0.1:1"))
    (tmp_path / "records.jsonl").write_text('{"type": "step", "session_id": "a"}\n')
    with pytest.raises(UsageError, match="'run' record"):
        export_otel(tmp_path, Path("http://127.0.0.1:1"))


def test_export_command_fails_when_the_collector_is_down(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "1")
    with pytest.raises(UsageError, match="failed"):
        export_otel(write_run(tmp_path / "run"), Path(f"http://127.0.0.1:{closed_port()}"))


def test_registered_as_the_otel_format() -> None:
    assert exporter("otel") is export_otel


@pytest.mark.parametrize(("given", "url"), [
    ("http://localhost:4318", "http://localhost:4318/v1/traces"),
    ("http://localhost:4318/", "http://localhost:4318/v1/traces"),
    ("https://collector.example:443/v1/traces", "https://collector.example:443/v1/traces"),
    ("http://c:4318/custom/path?x=1", "http://c:4318/custom/path?x=1"),
    (Path("http://localhost:4318"), "http://localhost:4318/v1/traces"),  # through Path
])
def test_traces_url(given: str | Path, url: str) -> None:
    assert traces_url(given) == url


@pytest.mark.parametrize("bad", ["localhost:4318", "ftp://c/v1/traces", "results/run", "http://"])
def test_traces_url_refuses_what_is_no_http_url(bad: str) -> None:
    with pytest.raises(UsageError, match="OTLP/HTTP"):
        traces_url(bad)
