"""#42.10: a ``/metrics`` page longer than one network read (a 217 kB vLLM/DCGM page) is stored
whole — it was cut to the first chunk and failed every scrape — and a page over the cap is a
failed scrape that says why, never a cut page."""

from __future__ import annotations

import asyncio
import http.server
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentic_bench.server_metrics.parse import parse_scrape
from agentic_bench.server_metrics.scraper import MAX_TEXT_BYTES, MetricsScraper

pytestmark = pytest.mark.integration

LINE = 'vllm:num_requests_running{{model_name="m",engine="0",series="{k:06d}"}} {k}\n'
PAGE = "".join(LINE.format(k=k) for k in range(2800)).encode()  # about 217 kB
HUGE = b"# padding\n" * (MAX_TEXT_BYTES // 10 + 1000)


@pytest.fixture
def exporter() -> Iterator[str]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = PAGE if self.path == "/metrics" else HUGE
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            for start in range(0, len(body), 16384):  # in pieces, as a slow exporter does
                self.wfile.write(body[start:start + 16384])
                self.wfile.flush()
                if self.path == "/metrics":
                    time.sleep(0.001)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def test_long_pages_are_read_whole_and_huge_ones_refused(exporter: str, tmp_path: Path) -> None:
    async def scrape() -> None:
        async with MetricsScraper([f"{exporter}/metrics", f"{exporter}/huge"], tmp_path,
                                  time.perf_counter_ns(), interval_s=0.2):
            await asyncio.sleep(0.3)

    asyncio.run(scrape())
    lines = [json.loads(x) for x in (tmp_path / "server_metrics.jsonl").read_text()
             .splitlines()]
    page = [x for x in lines if x["source"].endswith("/metrics")]
    huge = [x for x in lines if x["source"].endswith("/huge")]
    assert len(page) >= 2 and all(x["ok"] for x in page)
    assert all(x["text"].encode() == PAGE for x in page)
    parsed = parse_scrape(page[0]["text"])  # the whole page parses: the last series is in
    assert parsed.engines == {"vllm"} and parsed.values["requests_running"] > 2799
    assert huge and all(not x["ok"] and "over 4 MiB" in x["error"] for x in huge)
