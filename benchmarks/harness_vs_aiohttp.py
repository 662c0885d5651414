"""The harness against a bare aiohttp client, side by side in one run (#33 item 3).

Both stream from the latency simulator (`agentic-bench sim`, its own process on CPU 1); the
client under test runs on CPU 0 (``taskset``; a 2-core machine). Rounds alternate the two
clients so a shared VM's drifting speed falls on both alike.

- ``throughput``: 16-token replies at zero latency; ``--requests`` (4,000) single-request
  sessions at ``--concurrency`` (64) streams, closed loop — once against the simulator (the
  issue's shape; on this machine the simulator's own core is as busy as the client's, so the
  figure is the pair's, not the client's) and once against ``canned_sse_server.py`` (the same
  bytes built once, about a fifth of a core: the client's own ceiling). The harness is the
  real CLI (`agentic-bench replay`, full per-chunk records written and flushed, summary and
  report); its requests/s is summary.json's (successful requests / run duration). The bare
  client is one `aiohttp.ClientSession`, 64 workers, SSE lines parsed with `json.loads`,
  nothing recorded: requests / (last reply − first request).
- ``precision``: 100 ms TTFT, 10 ms ITL, 64 tokens (`--precise` simulator), 64 streams,
  1,280 requests: each client's TTFT mean and p99 error against the injected 100 ms.

One JSON line per figure and round (``server_busy``: the server's CPU seconds over the
client's measured run — near 1, the server is the limit), then ``ratio``: the harness's best
requests/s over the bare client's best, and each round's ratio. Reproduce:

    .venv/bin/python benchmarks/harness_vs_aiohttp.py [--rounds 3] [--requests 4000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness_throughput import TWO, calibrate, emit, free_port, replay, sim, wait_for

BARE = r"""
import asyncio, json, sys, time
import aiohttp

URL, N, C = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
BODY = {"model": "sim", "messages": [{"role": "user", "content": "hi"}], "stream": True,
        "stream_options": {"include_usage": True}}


async def main() -> None:
    left = [N]
    ttft: list[float] = []
    errors = [0]
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=C)) as session:
        async def one() -> None:
            t0 = time.perf_counter_ns()
            first = None
            async with session.post(URL + "/chat/completions", json=BODY) as resp:
                if resp.status != 200:
                    errors[0] += 1
                async for line in resp.content:
                    if not line.startswith(b"data: ") or line.startswith(b"data: [DONE]"):
                        continue
                    doc = json.loads(line[6:])
                    choices = doc.get("choices") or []
                    if first is None and choices and choices[0].get("delta", {}).get("content"):
                        first = time.perf_counter_ns()
            if first is not None:
                ttft.append((first - t0) / 1e6)

        async def worker() -> None:
            while left[0] > 0:
                left[0] -= 1
                await one()

        await asyncio.gather(*(one() for _ in range(C)))  # open the connections (not counted)
        ttft.clear()
        t = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(C)))
        elapsed = time.perf_counter() - t
    ttft.sort()
    print(json.dumps({"requests_per_s": N / elapsed, "errors": errors[0], "run_s": elapsed,
                      "ttft_mean_ms": sum(ttft) / len(ttft),
                      "ttft_p99_ms": ttft[min(len(ttft) - 1, int(0.99 * len(ttft)))]}))


asyncio.run(main())
"""


def bare(url: str, n: int, concurrency: int) -> dict[str, float]:
    cmd = [sys.executable, "-c", BARE, url, str(n), str(concurrency)]
    out = subprocess.run((["taskset", "-c", "0"] if TWO else []) + cmd, check=True,
                         capture_output=True, text=True).stdout
    result: dict[str, float] = json.loads(out)
    return result


def harness(url: str, n: int, concurrency: int) -> dict[str, float]:
    s, _, _ = replay(url, n, "--scenario", "concurrency", "--concurrency", str(concurrency))
    lat = s["latency_ms"]["ttft"]
    return {"requests_per_s": s["throughput"]["requests_per_s"], "run_s": s["duration_s"],
            "errors": s["counts"]["errors"], "ttft_mean_ms": lat["mean"],
            "ttft_p99_ms": lat["p99"], "client_cpu_s_per_1000":
                s["client_cpu_s"] / max(1, s["counts"]["requests"]) * 1000}


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def canned(tokens: int) -> tuple[subprocess.Popen[bytes], str]:
    """``canned_sse_server.py`` on CPU 1: the reply's bytes built once."""
    port = free_port()
    cmd = [sys.executable, str(Path(__file__).with_name("canned_sse_server.py")),
           "--port", str(port), "--tokens", str(tokens)]
    proc = subprocess.Popen((["taskset", "-c", "1"] if TWO else []) + cmd)
    wait_for(port)
    return proc, f"http://127.0.0.1:{port}/v1"


def throughput_rounds(server: str, rounds: int, requests: int, concurrency: int) -> None:
    """Alternate the two clients ``rounds`` times against ``server``; then their ratio."""
    best = {"harness": 0.0, "aiohttp": 0.0}
    ratios = []
    proc, url = (sim("--ttft-ms", "0", "--itl-ms", "0", "--output-tokens", "16")
                 if server == "sim" else canned(16))
    try:
        for r in range(rounds):
            calibrate()
            results = {}
            for name, run in (("harness", harness), ("aiohttp", bare)):
                before = cpu_s(proc.pid)
                got = results[name] = run(url, requests, concurrency)
                best[name] = max(best[name], got["requests_per_s"])
                # the server's CPU over the client's measured run: near 1, it is the limit
                busy = (cpu_s(proc.pid) - before) / got["run_s"]
                emit("throughput", server=server, client=name, round=r + 1,
                     server_busy=round(busy, 2),
                     **{k: round(v, 3) for k, v in got.items()
                        if k in ("requests_per_s", "errors", "client_cpu_s_per_1000")})
            ours, theirs = results["harness"], results["aiohttp"]
            ratios.append(ours["requests_per_s"] / theirs["requests_per_s"])
    finally:
        proc.terminate()
    emit("ratio", server=server, harness_best=round(best["harness"], 1),
         aiohttp_best=round(best["aiohttp"], 1),
         best_over_best=round(best["harness"] / best["aiohttp"], 3),
         per_round=[round(x, 3) for x in ratios], median=round(statistics.median(ratios), 3))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--requests", type=int, default=4000)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--skip-precision", action="store_true")
    args = ap.parse_args()
    for server in ("sim", "canned"):
        throughput_rounds(server, args.rounds, args.requests, args.concurrency)
    if args.skip_precision:
        return 0
    proc, url = sim("--ttft-ms", "100", "--itl-ms", "10", "--output-tokens", "64", "--precise")
    try:
        for r in range(args.rounds):
            for name, run in (("harness", harness), ("aiohttp", bare)):
                got = run(url, 1280, args.concurrency)
                emit("precision", client=name, round=r + 1,
                     ttft_mean_error_ms=round(got["ttft_mean_ms"] - 100, 3),
                     ttft_p99_error_ms=round(got["ttft_p99_ms"] - 100, 3))
    finally:
        proc.terminate()
    return 0


if __name__ == "__main__":
    sys.exit(main())
