"""AgentX replay at scale: the client's share of TTFT, ours beside a bare client (#46 item 3).

For each lane count (16, 64, 256 by default) one Weka tree per lane
(``agentx_scale_traces.py``: 8 requests whose prompt grows 17k → 101k tokens, ~70-420 kB
bodies) is replayed against the simulator (``agentic-bench sim --timestamps``, TTFT 1 ms, ITL
0.5 ms, 32 tokens a reply), first by ``agentic-bench replay`` (lanes; the raw transport),
then by the floor (``agentx_scale_floor.py``: a bare asyncio client with every body built
before the clock starts). The recorded gap after each reply is scaled with the lane count so
the offered load stays near --rate requests/s: the points differ in lanes, not in CPU demand.

Per point: the client's share of TTFT (records/client_share.py: due → the server's read of the
body's last byte, plus the server's first-token write → the client's stamp) for ours and the
floor, their ratio, each send's lateness against its due instant (p99), TTFT as the client
measures it (first token − send), prompts ready late, and each client's CPU seconds and peak
RSS (the child's rusage). The host's load (/proc/loadavg, /proc/stat busy share) is recorded
beside each point: on a shared machine every figure moves with it.

    python benchmarks/agentx_scale.py --record benchmarks/results/agentx-scale/NAME
    python benchmarks/agentx_scale.py --lanes 1000 --rate 67 --no-floor --record ...
    python benchmarks/agentx_scale.py \
        --aiperf benchmarks/agentx_aiperf_differential/work/venv/bin/aiperf --record ...

With ``--aiperf``, AIPerf 0.13 replays the same trees too, third, against a fresh simulator
(``agentx_scale_aiperf.py``: its client share from the sim's timing log joined on
X-Request-ID). "Share from send" (TTFT − the server's TTFT) is given for all three: the part
of the client's share that needs no due instant.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import agentx_scale_aiperf  # noqa: E402
from agentx_scale_traces import write_trees  # noqa: E402

REQUESTS = 8  # per tree


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    s = sorted(values)
    return s[min(len(s) - 1, round(q / 100 * (len(s) - 1)))]


def stats(values: list[float]) -> dict[str, Any]:
    return {"n": len(values), "mean": sum(values) / len(values) if values else None,
            "p50": pct(values, 50), "p90": pct(values, 90), "p99": pct(values, 99),
            "max": max(values) if values else None}


def busy_ticks() -> tuple[int, int]:
    parts = [int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle = parts[3] + parts[4]
    return sum(parts) - idle, sum(parts)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def timed_child(cmd: list[str], log: Path, code: Path = ROOT) -> dict[str, Any]:
    """Run ``cmd`` (``agentic_bench`` imported from ``code``); its wall time, CPU seconds and
    peak RSS (rusage of the child)."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    began = time.perf_counter()
    with log.open("w") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, env=env, cwd=code)
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise RuntimeError(f"{cmd[:4]} failed ({proc.returncode}); see {log}")
    return {"wall_s": time.perf_counter() - began,
            "cpu_s": usage.ru_utime + usage.ru_stime, "peak_rss_mb": usage.ru_maxrss / 1024}


def ours(records: Path) -> dict[str, Any]:
    llm = [r for line in records.read_text().splitlines() if line
           for r in [json.loads(line)] if r.get("kind") == "llm" and not r.get("warmup")]
    ahead = [r for r in llm if r.get("request_index", 0) > 0]  # after a wait: written ahead
    return {
        "requests": len(llm), "errors": sum(r["status"] != "ok" for r in llm),
        "client_share_ms": stats([r["client_share_ms"] for r in llm if "client_share_ms" in r]),
        "client_share_ahead_ms": stats([r["client_share_ms"] for r in ahead
                                        if "client_share_ms" in r]),
        "send_late_ahead_ms": stats([r["send_late_ms"] for r in ahead if "send_late_ms" in r]),
        "server_ttft_ms": stats([r["server_ttft_ms"] for r in llm if "server_ttft_ms" in r]),
        # (a checkout from before send_late_ms: its schedule lag)
        "send_late_ms": stats([r.get("send_late_ms", r["schedule_lag_ms"]) for r in llm]),
        "ttft_ms": stats([r["ttft_ms"] for r in llm if "ttft_ms" in r]),
        "share_from_send_ms": stats([r["ttft_ms"] - r["server_ttft_ms"] for r in llm
                                     if "ttft_ms" in r and "server_ttft_ms" in r]),
        "prompt_build_ms": stats([r["prompt_build_ms"] for r in llm if "prompt_build_ms" in r]),
        "ttft_after_a_wait_ms": stats([r["ttft_ms"] for r in ahead if "ttft_ms" in r]),
        "prompt_ahead": sum(bool(r.get("prompt_ahead")) for r in llm),
        "prompt_late": sum(bool(r.get("prompt_late")) for r in llm),
    }


def floor(rows_path: Path) -> dict[str, Any]:
    rows = [json.loads(line) for line in rows_path.read_text().splitlines() if line]
    share, later, late, ttft, server, from_send = [], [], [], [], [], []
    body_kb = [r["bytes"] / 1000 for r in rows]
    for r in rows:
        s = r["server_timing_ns"]
        late.append((r["sent"] - r["due"]) / 1e6)
        if r["first_token"] is None or not s:
            continue
        one = ((s["body_last"] - r["due"]) + (r["first_token"] - s["first_token"])) / 1e6
        share.append(one)
        if r["k"]:
            later.append(one)
        server.append((s["first_token"] - s["body_last"]) / 1e6)
        ttft.append((r["first_token"] - r["sent"]) / 1e6)
        from_send.append(ttft[-1] - server[-1])
    return {"requests": len(rows), "client_share_ms": stats(share),
            "client_share_later_ms": stats(later), "server_ttft_ms": stats(server),
            "send_late_ms": stats(late), "ttft_ms": stats(ttft),
            "share_from_send_ms": stats(from_send), "body_kb": stats(body_kb)}


def aiperf_point(aiperf: Path, traces: Path, lanes: int, trees: int, work: Path
                 ) -> dict[str, Any]:
    """AIPerf on the same trees, against a fresh simulator with a timing log."""
    port, timing = free_port(), work / f"aiperf-{lanes}-timing.jsonl"
    timing.unlink(missing_ok=True)
    sim = subprocess.Popen([sys.executable, "-m", "agentic_bench", "sim", "--port", str(port),
                            "--ttft-ms", "1", "--itl-ms", "0.5", "--output-tokens", "32",
                            "--model", agentx_scale_aiperf.MODEL, "--timing-log", str(timing)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        time.sleep(2.0)
        folder = agentx_scale_aiperf.write_trace_dir(traces, work / f"aiperf-trees-{lanes}")
        art = work / f"aiperf-{lanes}"
        process = agentx_scale_aiperf.run(
            aiperf, folder, lanes, trees, f"http://127.0.0.1:{port}", art,
            work / f"aiperf-{lanes}.log", aiperf.parent.parent.parent / "hf_home")
    finally:
        sim.terminate()
        sim.wait(10)
    rows = agentx_scale_aiperf.shares(art / "profile_export.jsonl", timing)
    return {"process": process, **{k: v for k, v in rows.items() if not isinstance(v, list)},
            **{k: stats(v) for k, v in rows.items() if isinstance(v, list)}}


def point(lanes: int, rate: float, work: Path, with_floor: bool, code: Path,
          aiperf: Path | None = None, trees_per_lane: int = 1) -> dict[str, Any]:
    gap = max(0.05, lanes / rate - 0.02)  # offered load ~ rate requests/s
    requests = REQUESTS
    traces = write_trees(work / f"trees-{lanes}.weka.jsonl", lanes * trees_per_lane,
                         requests=requests,
                         gap_s=gap)
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    py = sys.executable
    sim = subprocess.Popen([py, "-m", "agentic_bench", "sim", "--port", str(port), "--ttft-ms",
                            "1", "--itl-ms", "0.5", "--output-tokens", "32", "--timestamps"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    url = f"http://127.0.0.1:{port}/v1"
    out: dict[str, Any] = {"lanes": lanes, "trees": lanes * trees_per_lane,
                           "requests_per_tree": requests, "gap_s": gap,
                           "load_before": Path("/proc/loadavg").read_text().split()[:3]}
    try:
        time.sleep(2.0)
        busy0 = busy_ticks()
        run = work / f"ours-{lanes}"
        out["ours_process"] = timed_child(
            [py, "-m", "agentic_bench", "replay", str(traces), "--endpoint", url,
             "--tokenizer", "server", "--scenario", "concurrency", "--concurrency", str(lanes),
             "--out", str(run),
             "--overwrite", "--quiet"], work / f"ours-{lanes}.log", code)
        out["ours"] = ours(run / "records.jsonl")
        if with_floor:
            rows = work / f"floor-{lanes}.jsonl"
            out["floor_process"] = timed_child(
                [py, str(HERE / "agentx_scale_floor.py"), str(traces), "--url", url,
                 "--lanes", str(lanes), "--out", str(rows)], work / f"floor-{lanes}.log")
            out["floor"] = floor(rows)
            o, f = out["ours"], out["floor"]
            out["share_ratio"] = {
                "all": ratio(o["client_share_ms"], f["client_share_ms"]),
                "after_a_wait": ratio(o["client_share_ahead_ms"], f["client_share_later_ms"])}
        if aiperf is not None:
            out["aiperf"] = aiperf_point(aiperf, traces, lanes, out["trees"], work)
            a = out["aiperf"]
            out.setdefault("share_ratio", {})["aiperf_all"] = ratio(
                a["client_share_ms"], out["ours"]["client_share_ms"])
        busy1 = busy_ticks()
        out["host_busy_share"] = (busy1[0] - busy0[0]) / max(1, busy1[1] - busy0[1])
        out["load_after"] = Path("/proc/loadavg").read_text().split()[:3]
    finally:
        sim.terminate()
        sim.wait(10)
    return out


def ratio(a: dict[str, Any], b: dict[str, Any]) -> dict[str, float | None]:
    return {q: (a[q] / b[q] if a[q] and b[q] else None) for q in ("mean", "p50", "p99")}


def fmt(x: Any) -> str:
    return "—" if x is None else f"{x:.1f}" if isinstance(x, float) else str(x)


def two(d: dict[str, Any] | None) -> str:
    """``p50 / p99`` of a stats block."""
    return "—" if not d else f"{fmt(d.get('p50'))} / {fmt(d.get('p99'))}"


def table(points: list[dict[str, Any]]) -> str:
    head = ("| lanes | requests | client share of TTFT, all requests, p50 / p99 ms: ours; floor "
            "| ratio | after a wait (ours: written ahead): ours; floor | ratio "
            "| send lateness p99 ms: ours all; ours after a wait; floor "
            "| TTFT p50 / p99 ms: ours; floor | prompts late (ours) "
            "| CPU s: ours; floor | peak RSS MB: ours; floor | host busy |\n|"
            + "---|" * 12 + "\n")
    rows = []
    for p in points:
        o, f = p["ours"], p.get("floor") or {}
        r = p.get("share_ratio", {})
        fp = p.get("floor_process", {})
        rows.append(
            f"| {p['lanes']} | {o['requests']} | {two(o['client_share_ms'])}; "
            f"{two(f.get('client_share_ms'))} | {two(r.get('all'))} "
            f"| {two(o['client_share_ahead_ms'])}; {two(f.get('client_share_later_ms'))} "
            f"| {two(r.get('after_a_wait'))} "
            f"| {fmt(o['send_late_ms']['p99'])}; {fmt(o['send_late_ahead_ms']['p99'])}; "
            f"{fmt((f.get('send_late_ms') or {}).get('p99'))} "
            f"| {two(o['ttft_ms'])}; {two(f.get('ttft_ms'))} "
            f"| {o['prompt_late']} of {o['requests']} "
            f"| {fmt(p['ours_process']['cpu_s'])}; {fmt(fp.get('cpu_s'))} "
            f"| {fmt(p['ours_process']['peak_rss_mb'])}; {fmt(fp.get('peak_rss_mb'))} "
            f"| {p['host_busy_share']:.0%} (load {' '.join(p['load_before'])}) |")
    return head + "\n".join(rows) + "\n"


def from_send_table(points: list[dict[str, Any]]) -> str:
    """Client share from the send (TTFT − server TTFT) for all three, and AIPerf's figures."""
    head = ("| lanes | share from send p50 / p99 ms: ours; floor; AIPerf "
            "| client share from due p50 / p99 ms: ours; AIPerf | AIPerf / ours "
            "| send lateness p99 ms: ours; AIPerf (credit → start) "
            "| TTFT p50 / p99 ms: ours; AIPerf | requests: ours; AIPerf (errors, unmatched) "
            "| CPU s: ours; AIPerf (tree) | peak RSS MB: ours; AIPerf (tree) | wall s: ours; "
            "AIPerf | body kB mean: ours (= floor's); AIPerf |\n|" + "---|" * 11 + "\n")
    rows = []
    for p in points:
        o, f, a = p["ours"], p.get("floor") or {}, p.get("aiperf")
        if a is None:
            continue
        op, ap = p["ours_process"], a["process"]
        rows.append(
            f"| {p['lanes']} | {two(o['share_from_send_ms'])}; "
            f"{two(f.get('share_from_send_ms'))}; {two(a['share_from_send_ms'])} "
            f"| {two(o['client_share_ms'])}; {two(a['client_share_ms'])} "
            f"| {two(p['share_ratio'].get('aiperf_all'))} "
            f"| {fmt(o['send_late_ms']['p99'])}; {fmt(a['send_late_ms']['p99'])} "
            f"| {two(o['ttft_ms'])}; {two(a['ttft_ms'])} "
            f"| {o['requests']}; {a['requests']} ({a['errors']}, {a['unmatched']}) "
            f"| {fmt(op['cpu_s'])}; {fmt(ap['cpu_s'])} "
            f"| {fmt(op['peak_rss_mb'])}; {fmt(ap['peak_rss_mb'])} "
            f"| {fmt(op['wall_s'])}; {fmt(ap['wall_s'])} "
            f"| {fmt((f.get('body_kb') or {}).get('mean'))}; {fmt(a['body_kb']['mean'])} |")
    return head + "\n".join(rows) + "\n" if rows else ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lanes", default="16,64,256", help="lane counts, comma-separated")
    ap.add_argument("--rate", type=float, default=40.0,
                    help="offered load, requests/s: the recorded gap is lanes / rate, so a "
                    "point lasts about 8 x lanes / rate seconds")
    ap.add_argument("--trees-per-lane", type=int, default=1, metavar="K",
                    help="K x lanes trees, each lane running K one after another (default 1; "
                    "more samples for a steadier p99 at few lanes)")
    ap.add_argument("--no-floor", action="store_true", help="our harness only")
    ap.add_argument("--ours-from", type=Path, default=ROOT,
                    help="the checkout whose agentic-bench replays (another commit, for a "
                    "before/after; the simulator and the floor stay this one's)")
    ap.add_argument("--aiperf", type=Path, metavar="AIPERF",
                    help="also replay with AIPerf 0.13 (its executable, from "
                    "agentx_aiperf_differential/setup.sh; HF_HOME is its work/hf_home)")
    ap.add_argument("--record", type=Path, help="write RECORD.json and RECORD.md")
    args = ap.parse_args()
    points = []
    with tempfile.TemporaryDirectory(prefix="agentx-scale-") as tmp:
        tmp = os.environ.get("AGENTX_SCALE_WORK", tmp)
        for lanes in (int(x) for x in args.lanes.split(",")):
            points.append(point(lanes, args.rate, Path(tmp), not args.no_floor,
                                args.ours_from.resolve(), args.aiperf,
                                args.trees_per_lane))
            print(json.dumps(points[-1]), flush=True)
    text = table(points)
    if any("aiperf" in p for p in points):
        text += "\nBeside AIPerf 0.13 (`inferencex-agentx-mvp`, same trees, its own simulator):\n\n"
        text += from_send_table(points)
    print(text)
    if args.record:
        args.record.parent.mkdir(parents=True, exist_ok=True)
        meta = {"command": " ".join(["python", *sys.argv]), "cores": os.cpu_count(),
                "ours_from": str(args.ours_from),
                "when_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()), "points": points}
        args.record.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")
        args.record.with_suffix(".md").write_text(
            f"# AgentX scale: {meta['when_utc']} UTC, {meta['cores']} cores\n\n"
            f"`{meta['command']}`\n\n{text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
