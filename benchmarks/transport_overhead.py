"""Transport choice: our raw HTTP/1.1 client, our aiohttp client and the official openai SDK.

Each streams from the latency simulator (injected TTFT 100 ms, ITL 10 ms, 64 tokens) at
64 concurrent streams; the simulator runs in its own process on CPU 1, the client on CPU 0
(``taskset``) when the machine has two cores. Prints one JSON line per client:
TTFT mean/p50/p99 error against the injected 100 ms, ITL p50 error, client CPU seconds per
1,000 requests. Reproduce:

    .venv/bin/python benchmarks/transport_overhead.py --requests 640 --concurrency 64

The simulator runs with ``--precise`` so its own timer granularity (±1 ms) does not hide the
clients' differences.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from time import perf_counter_ns

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agentic_bench.metrics.percentiles import describe  # noqa: E402
from agentic_bench.transport.choose import make_chat_client  # noqa: E402

BODY = {"model": "sim", "messages": [{"role": "user", "content": "hello"}]}


async def run_ours(kind: str, url: str, n: int, conc: int) -> tuple[list[float], list[float]]:
    client = make_chat_client(url, kind=kind)
    await client.warm_up(conc)
    sem = asyncio.Semaphore(conc)
    ttft: list[float] = []
    itl: list[float] = []

    async def one() -> None:
        async with sem:
            r = await client.chat(BODY)
        assert r.ok, r.error
        ttft.append((r.t_first_token_ns - r.t_sent_ns) / 1e6)  # type: ignore[operator]
        t = r.token_times_ns
        itl.extend((b - a) / 1e6 for a, b in itertools.pairwise(t))

    await asyncio.gather(*(one() for _ in range(n)))
    await client.aclose()
    return ttft, itl


async def run_openai(url: str, n: int, conc: int) -> tuple[list[float], list[float]]:
    import httpx
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=url, api_key="x", max_retries=0,
                         http_client=httpx.AsyncClient(limits=httpx.Limits(
                             max_connections=conc, max_keepalive_connections=conc)))
    await asyncio.gather(*(client.models.list() for _ in range(conc)))
    sem = asyncio.Semaphore(conc)
    ttft: list[float] = []
    itl: list[float] = []

    async def one() -> None:
        async with sem:
            t0 = perf_counter_ns()
            times: list[int] = []
            stream = await client.chat.completions.create(stream=True, **BODY)  # type: ignore[call-overload]
            async for chunk in stream:
                if chunk.choices and chunk.choices[0].delta.content:
                    times.append(perf_counter_ns())
        ttft.append((times[0] - t0) / 1e6)
        itl.extend((b - a) / 1e6 for a, b in itertools.pairwise(times))

    await asyncio.gather(*(one() for _ in range(n)))
    await client.close()
    return ttft, itl


def run_loop(coro):  # type: ignore[no-untyped-def]
    """The harness's own event loop (uvloop when installed) for both clients."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coro)
    return uvloop.run(coro)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--requests", type=int, default=640)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--port", type=int, default=8977)
    ap.add_argument("--clients", default="raw,aiohttp,openai")
    args = ap.parse_args()
    two = (os.cpu_count() or 1) >= 2
    sim_cmd = [sys.executable, "-m", "agentic_bench", "sim", "--port", str(args.port),
               "--ttft-ms", "100", "--itl-ms", "10", "--output-tokens", "64", "--precise"]
    sim = subprocess.Popen((["taskset", "-c", "1"] if two else []) + sim_cmd,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if two:
        os.sched_setaffinity(0, {0})
    try:
        time.sleep(1.0)
        url = f"http://127.0.0.1:{args.port}/v1"
        for name in args.clients.split(","):
            cpu0 = time.process_time()
            t0 = time.perf_counter()
            if name == "openai":
                ttft, itl = run_loop(run_openai(url, args.requests, args.concurrency))
            else:
                ttft, itl = run_loop(run_ours(name, url, args.requests, args.concurrency))
            cpu = time.process_time() - cpu0
            wall = time.perf_counter() - t0
            t = describe(ttft)
            i = describe(itl)
            print(json.dumps({
                "client": name, "requests": args.requests, "concurrency": args.concurrency,
                "ttft_mean_error_ms": round(t["mean"] - 100, 3),  # type: ignore[operator]
                "ttft_p50_error_ms": round(t["p50"] - 100, 3),  # type: ignore[operator]
                "ttft_p99_error_ms": round(t["p99"] - 100, 3),  # type: ignore[operator]
                "itl_p50_error_ms": round(i["p50"] - 10, 3),  # type: ignore[operator]
                "client_cpu_s_per_1000": round(cpu / args.requests * 1000, 3),
                "wall_s": round(wall, 2)}), flush=True)
    finally:
        sim.terminate()
        sim.wait()


if __name__ == "__main__":
    main()
