"""#42 items 8 and 12: one extreme ``/metrics`` value never costs a run its summary, and
summary.json is strict JSON.

Reproduction of the issue: a metrics page whose gauge is +Inf on one scrape and -Inf on the
next (``fmean`` then raised "-inf + inf in fsum" after all requests: exit 1, no summary), and
one whose values are 1e308 (their sum overflows). Now: exit 0, summary.json parses with a
parser that rejects NaN/Infinity, and summary.txt names each bad value in a line.
"""

from __future__ import annotations

import http.server
import itertools
import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


def _page(kind: str, n: int) -> str:
    if kind == "huge":
        kv = running = "1e308"
    else:
        kv, running = ("+Inf" if n % 2 else "-Inf"), "NaN"
    return ("# TYPE vllm:kv_cache_usage_perc gauge\n"
            f"vllm:kv_cache_usage_perc {kv}\n"
            "# TYPE vllm:num_requests_running gauge\n"
            f"vllm:num_requests_running {running}\n")


@pytest.fixture
def metrics_server() -> Iterator[Callable[[str], str]]:
    servers: list[http.server.ThreadingHTTPServer] = []

    def start(kind: str) -> str:
        counter = itertools.count()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = _page(kind, next(counter)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; version=0.0.4")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/metrics"

    yield start
    for server in servers:
        server.shutdown()


def _strict(text: str) -> Any:
    def refuse(constant: str) -> Any:
        raise AssertionError(f"summary.json holds {constant}")
    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("kind,first", [("inf", "-inf"), ("huge", "1e+308")])
def test_an_extreme_metrics_value_keeps_the_summary(sim_factory: Any, metrics_server: Any,
                                                    cli: Any, tmp_path: Path, kind: str,
                                                    first: str) -> None:
    sim = sim_factory("--ttft-ms", "5")
    url = metrics_server(kind)
    out = tmp_path / "run"
    proc = cli("replay", str(ROOT / "traces" / "sample.jsonl"), "--endpoint", sim.url,
                   "--server-metrics", url, "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    summary = _strict((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["result"] == "VALID"
    block = summary["server_metrics"]["sources"][url]
    bad = block["bad_values"]
    assert set(bad) == {"kv_cache_usage", "requests_running"}
    assert bad["kv_cache_usage"]["count"] == block["scrapes"] >= 1
    assert first in (bad["kv_cache_usage"]["first"], bad["requests_running"]["first"])
    text = (out / "summary.txt").read_text(encoding="utf-8")
    assert "kv_cache_usage:" in text and "bad value(s)" in text
    assert " -inf %" not in text and "nan J" not in text
