"""OpenTelemetry export end to end: a run on the simulator, its spans at a real OTLP/HTTP
receiver on loopback (protobuf ``ExportTraceServiceRequest`` bodies decoded with
opentelemetry-proto), after the fact and live (``--otel-endpoint``), and every request's W3C
``traceparent`` naming its session's trace and root span."""

from __future__ import annotations

import http.server
import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.exporter.otlp.proto.http")

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from agentic_bench.export.otel_export import export_otel
from agentic_bench.transport.traceparent import parse

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "traces" / "sample.jsonl"
TREE = ROOT / "tests" / "data" / "weka" / "tree_subagents.json"


@dataclass
class Receiver:
    """What the collector got: each span as a dict, and the paths posted to."""

    url: str
    spans: list[dict[str, Any]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def roots(self) -> dict[str, dict[str, Any]]:
        """Root spans by their gen_ai.conversation.id (the session id)."""
        with self.lock:
            return {s["attrs"]["gen_ai.conversation.id"]: s for s in self.spans
                    if not s["parent"]}


def _value(any_value: Any) -> Any:
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [_value(v) for v in any_value.array_value.values]
    return getattr(any_value, kind) if kind else None


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    box: list[Receiver] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            got = [{"name": span.name, "trace": span.trace_id.hex(),
                    "span": span.span_id.hex(), "parent": span.parent_span_id.hex(),
                    "start": span.start_time_unix_nano, "end": span.end_time_unix_nano,
                    "attrs": {a.key: _value(a.value) for a in span.attributes}}
                   for resource in request.resource_spans for scope in resource.scope_spans
                   for span in scope.spans]
            with box[0].lock:
                box[0].spans += got
                box[0].paths.append(self.path)
            reply = ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    box.append(Receiver(f"http://127.0.0.1:{server.server_port}"))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield box[0]
    server.shutdown()
    server.server_close()


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def check_requests_join_their_sessions(log: Path, got: Receiver) -> int:
    """Every logged request carries a traceparent naming its session's trace and root span
    (the session told by X-Session-ID; a subagent's by the part before '/')."""
    roots = got.roots()
    requests = lines(log)
    for request in requests:
        headers = request["headers"]
        parsed = parse(headers["traceparent"])
        assert parsed is not None, headers
        session = headers["x-session-id"].split("/")[0]
        root = roots[session]
        assert (f"{parsed[0]:032x}", f"{parsed[1]:016x}", parsed[2]) == \
            (root["trace"], root["span"], 1)
    return len(requests)


def test_a_finished_run_folder_reaches_the_collector(sim_factory: Any, cli: Any,
                                                     tmp_path: Path, receiver: Receiver) -> None:
    log = tmp_path / "requests.jsonl"
    sim = sim_factory("--ttft-ms", "5", "--itl-ms", "1", "--request-log", str(log))
    out = tmp_path / "run"
    res = cli("replay", str(SAMPLE), "--endpoint", sim.url, "--out", str(out), "--quiet",
              "--think-time", "none", "--traceparent", "--session-header", "X-Session-ID")
    assert res.returncode == 0, res.stderr
    assert receiver.spans == []  # --traceparent alone sends headers, not spans
    # the export command's --out goes through pathlib: the URL comes mangled, and is mended
    assert export_otel(out, Path(receiver.url)) == []
    records = lines(out / "records.jsonl")
    llm = [r for r in records if r.get("kind") == "llm"]
    chats = [s for s in receiver.spans if s["attrs"].get("gen_ai.operation.name") == "chat"]
    assert receiver.paths and set(receiver.paths) == {"/v1/traces"}
    assert len(chats) == len(llm) > 0
    assert sorted(c["attrs"]["gen_ai.usage.output_tokens"] for c in chats) == \
        sorted(r["output_tokens"] for r in llm)
    assert all(c["start"] < c["end"] and c["attrs"]["gen_ai.response.time_to_first_chunk"] > 0
               for c in chats)
    sessions = {r["session_id"] for r in records if r.get("type") == "session"}
    assert set(receiver.roots()) == sessions
    assert check_requests_join_their_sessions(log, receiver) == len(llm)
    # exported again later: the same traces, the same spans
    first = sorted((s["trace"], s["span"], s["parent"], s["start"], s["end"])
                   for s in receiver.spans)
    receiver.spans.clear()
    export_otel(out, Path(receiver.url + "/v1/traces"))
    assert sorted((s["trace"], s["span"], s["parent"], s["start"], s["end"])
                  for s in receiver.spans) == first


def test_a_live_run_of_agent_trees_sends_its_spans_as_it_ends(
        sim_factory: Any, cli: Any, tmp_path: Path, receiver: Receiver) -> None:
    log = tmp_path / "requests.jsonl"
    sim = sim_factory("--ttft-ms", "5", "--itl-ms", "1", "--request-log", str(log))
    out = tmp_path / "run"
    res = cli("replay", str(TREE), "--endpoint", sim.url, "--out", str(out),
              "--tokenizer", "server", "--otel-endpoint", receiver.url,
              "--session-header", "X-Session-ID", "--parent-session-header",
              "X-Dynamo-Parent-Session-ID")
    assert res.returncode == 0, res.stderr
    assert "spans of 1 sessions sent to" in res.stderr
    n = check_requests_join_their_sessions(log, receiver)
    assert n == sum(1 for r in lines(out / "records.jsonl") if r.get("kind") == "llm") == 11
    (root,) = receiver.roots().values()
    assert root["name"].startswith("tree ")
    agents = [s for s in receiver.spans if s["attrs"].get("gen_ai.operation.name") ==
              "invoke_agent"]
    assert len(agents) == 3 and {a["trace"] for a in agents} == {root["trace"]}
    by_id = {s["span"]: s for s in receiver.spans}
    for agent in agents:  # spawned from the root conversation's first turn
        assert by_id[agent["parent"]]["name"] == "turn 0"
    chats = [s for s in receiver.spans if s["name"].startswith("chat ")]
    assert sum(1 for c in chats if by_id[c["parent"]] in agents) == 6


def test_a_dead_collector_costs_a_warning_not_the_run(sim_factory: Any, cli: Any,
                                                      tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    sim = sim_factory("--ttft-ms", "5", "--itl-ms", "1")
    out = tmp_path / "run"
    res = cli("replay", str(SAMPLE), "--endpoint", sim.url, "--out", str(out), "--quiet",
              "--think-time", "none", "--otel-endpoint", f"http://127.0.0.1:{port}",
              env={"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "1"})
    assert res.returncode == 0, res.stderr
    assert json.loads((out / "summary.json").read_text())["result"] == "VALID"
    warnings = [x for x in res.stderr.splitlines() if x.startswith("warning: OTLP export")]
    assert len(warnings) == 1 and "--to otel" in warnings[0]
