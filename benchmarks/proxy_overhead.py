"""Latency the recording proxy adds: TTFT direct to the simulator vs through ``record``.

Starts the latency simulator (injected TTFT 20 ms, ITL 2 ms, 32 tokens) and the recording
proxy in front of it, each in its own process, then sends the same streamed request
alternately direct and through the proxy (one at a time, after a warm-up) and compares
client-side TTFT and ITL. Prints a JSON line with p50/p90/p99 of each and the paired TTFT
difference. Reproduce:

    .venv/bin/python benchmarks/proxy_overhead.py --requests 400
    .venv/bin/python benchmarks/proxy_overhead.py --requests 400 --concurrency 16
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agentic_bench.metrics.percentiles import describe, percentile  # noqa: E402
from agentic_bench.transport.aiohttp_client import AiohttpChatClient  # noqa: E402

BODY = {"model": "sim", "max_tokens": 32,
        "messages": [{"role": "system", "content": "You are a benchmark."},
                     {"role": "user", "content": "hello " * 200}]}


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"process exited: {proc.args}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"port {port} did not open")


async def measure(direct: str, proxied: str, n: int, conc: int,
                  ) -> dict[str, list[float]]:
    clients = {"direct": AiohttpChatClient(direct), "proxy": AiohttpChatClient(proxied)}
    for c in clients.values():
        await c.warm_up(conc)
        for _ in range(20):  # warm both paths (connections, code paths)
            await c.chat(BODY)
    out: dict[str, list[float]] = {"direct": [], "proxy": [], "itl_direct": [],
                                   "itl_proxy": [], "paired": []}
    sem = asyncio.Semaphore(conc)

    async def one(i: int) -> None:
        order = ("direct", "proxy") if i % 2 else ("proxy", "direct")
        got = {}
        async with sem:
            for name in order:
                r = await clients[name].chat(BODY)
                assert r.ok, r.error
                got[name] = (r.t_first_token_ns - r.t_sent_ns) / 1e6  # type: ignore[operator]
                out[name].append(got[name])
                t = r.token_times_ns
                out[f"itl_{name}"].extend((b - a) / 1e6 for a, b in itertools.pairwise(t))
        out["paired"].append(got["proxy"] - got["direct"])

    await asyncio.gather(*(one(i) for i in range(n)))
    for c in clients.values():
        await c.aclose()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--requests", type=int, default=400)
    ap.add_argument("--concurrency", type=int, default=1)
    ap.add_argument("--ttft-ms", type=float, default=20.0)
    args = ap.parse_args()
    sim_port, proxy_port = free_port(), free_port()
    py = sys.executable
    procs: list[subprocess.Popen[str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        try:
            sim = subprocess.Popen(
                [py, "-m", "agentic_bench", "sim", "--port", str(sim_port), "--ttft-ms",
                 str(args.ttft_ms), "--itl-ms", "2", "--output-tokens", "32"],
                stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, text=True)
            procs.append(sim)
            wait_port(sim_port, sim)
            proxy = subprocess.Popen(
                [py, "-m", "agentic_bench.proxy", "--upstream", f"http://127.0.0.1:{sim_port}/v1",
                 "--port", str(proxy_port), "--out", str(Path(tmp) / "rec.jsonl"),
                 "--idle-timeout", "1"],
                stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, text=True)
            procs.append(proxy)
            wait_port(proxy_port, proxy)
            cpu0 = cpu_seconds(proxy.pid)
            res = asyncio.run(measure(f"http://127.0.0.1:{sim_port}/v1",
                                      f"http://127.0.0.1:{proxy_port}/v1",
                                      args.requests, args.concurrency))
            proxy_cpu = cpu_seconds(proxy.pid) - cpu0
        finally:
            for p in procs:
                if p.poll() is None:
                    p.send_signal(signal.SIGINT)
                    try:
                        p.wait(timeout=10)
                    except subprocess.TimeoutExpired:
                        p.kill()
    summary = {
        "requests": args.requests, "concurrency": args.concurrency,
        "ttft_direct_ms": describe(res["direct"]), "ttft_proxy_ms": describe(res["proxy"]),
        "ttft_added_ms_paired": describe(res["paired"]),
        "itl_direct_ms_p50": describe(res["itl_direct"])["p50"],
        "itl_proxy_ms_p50": describe(res["itl_proxy"])["p50"],
        # least-disturbed requests: robust to other load on the machine
        "ttft_added_ms_p10_to_p10": percentile(sorted(res["proxy"]), 10)
        - percentile(sorted(res["direct"]), 10),
        "ttft_added_ms_min_to_min": min(res["proxy"]) - min(res["direct"]),
        # the proxy's CPU time per proxied request (33 streamed chunks each, warm-up included)
        "proxy_cpu_ms_per_request": proxy_cpu * 1000 / (args.requests + 20),
        "load_average": os.getloadavg()[0], "cpus": os.cpu_count(),
    }
    print(json.dumps(summary))
    added = summary["ttft_added_ms_paired"]
    print(f"TTFT added by the proxy (paired): p50 {added['p50']:.3f} ms, "
          f"p90 {added['p90']:.3f} ms, p99 {added['p99']:.3f} ms "
          f"(direct p50 {summary['ttft_direct_ms']['p50']:.3f} ms); p10-to-p10 "
          f"{summary['ttft_added_ms_p10_to_p10']:.3f} ms, min-to-min "
          f"{summary['ttft_added_ms_min_to_min']:.3f} ms; proxy CPU "
          f"{summary['proxy_cpu_ms_per_request']:.2f} ms/request; load average "
          f"{summary['load_average']:.1f} on {summary['cpus']} CPUs", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
