"""AIPerf 0.13 beside us in ``benchmarks/agentx_scale.py`` (#46 acceptance: "AIPerf's shown
beside").

AIPerf replays the same trees (one ``*.json`` Weka file per tree, its ``weka_trace`` loader)
under its ``inferencex-agentx-mvp`` scenario, as ``agentx_aiperf_differential/run_diff.sh`` runs
it (``--unsafe-override`` for a short run, trajectory start 0:0 so each tree is sent once from
its first row, concurrency = lanes), against its own ``agentic-bench sim --timestamps
--timing-log``. AIPerf reads no usage event, so the server's side comes from the sim's timing
log, joined to AIPerf's per-request export (``profile_export.jsonl``) on ``X-Request-ID``, a
header AIPerf sends on every request.

Per request: AIPerf's client share of TTFT = (server's read of the body's last byte − the
credit's issue, AIPerf's due instant) + (AIPerf's first token − the server's first-token
write), all on the wall clock (the sim's perf_counter readings shifted by its
``wall_minus_perf_ns``; AIPerf stamps ``time.time_ns`` anchored to perf_counter). Also
"share from its send": its TTFT − the server's TTFT, the part that needs no due instant, which
is given for ours and the floor too. AIPerf's CPU and peak memory are its whole process tree's
(sampled from /proc every 0.25 s: AIPerf runs several processes).

Setup: ``bash benchmarks/agentx_aiperf_differential/setup.sh`` (aiperf==0.13.0 in a venv, and
an offline Hugging Face cache entry for the MiniLM tokenizer).
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

MODEL = "claude-test-model"
TICK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def write_trace_dir(jsonl: Path, folder: Path) -> Path:
    """Each tree of the JSON Lines file as its own ``<id>.json`` (AIPerf's loader reads a
    folder of ``*.json``)."""
    folder.mkdir(parents=True, exist_ok=True)
    for line in jsonl.read_text().splitlines():
        if line:
            tree = json.loads(line)
            (folder / f"{tree['id']}.json").write_text(json.dumps(tree))
    return folder


def _tree(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return out


class TreeSampler:
    """Peak summed RSS and CPU seconds of a process tree, read from /proc every ``every`` s
    (CPU of processes that ended between two reads is lost: a lower bound)."""

    def __init__(self, pid: int, every: float = 0.25) -> None:
        self.pid, self.every = pid, every
        self.peak_rss_mb = 0.0
        self.cpu: dict[int, float] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.wait(self.every):
            rss = 0
            for p in _tree(self.pid):
                try:
                    fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
                    rss += int(Path(f"/proc/{p}/statm").read_text().split()[1]) * PAGE
                except OSError:
                    continue
                self.cpu[p] = (int(fields[11]) + int(fields[12])) / TICK
            self.peak_rss_mb = max(self.peak_rss_mb, rss / 2**20)

    def close(self) -> dict[str, float]:
        self.stop.set()
        self.thread.join()
        return {"cpu_s": sum(self.cpu.values()), "peak_rss_mb": self.peak_rss_mb}


def run(aiperf: Path, traces: Path, lanes: int, trees: int, url: str, out: Path, log: Path,
        hf_home: Path) -> dict[str, Any]:
    """One AIPerf run; its wall time, process-tree CPU and peak RSS."""
    cmd = [str(aiperf), "profile", "--url", url, "-m", MODEL, "--endpoint-type", "chat",
           "--input-file", str(traces), "--custom-dataset-type", "weka_trace",
           "--tokenizer", "local/all-MiniLM-L6-v2", "--ui", "none", "--no-server-metrics",
           "--no-gpu-telemetry", "--artifact-dir", str(out), "--streaming",
           "--scenario", "inferencex-agentx-mvp", "--unsafe-override",
           "--benchmark-duration", "600", "--trajectory-start-min-ratio", "0",
           "--trajectory-start-max-ratio", "0", "--concurrency", str(lanes),
           "--conversation-num", str(trees), "--random-seed", "7", "--use-legacy-max-tokens"]
    env = {**os.environ, "HF_HOME": str(hf_home), "HF_HUB_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1"}
    began = time.perf_counter()
    with log.open("w") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, env=env)
        sampler = TreeSampler(proc.pid)
        code = proc.wait()
    usage = sampler.close()
    if code:
        raise RuntimeError(f"aiperf failed ({code}); see {log}")
    return {"wall_s": time.perf_counter() - began, **usage}


def _ns(metric: dict[str, Any] | None) -> float | None:
    if not metric:
        return None
    scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[metric.get("unit", "ms")]
    return float(metric["value"]) * scale


def shares(export: Path, timing_log: Path) -> dict[str, list[float]]:
    """Per request (ms): AIPerf's client share from its due instant, from its send, its send
    lateness (credit issued → request start), its TTFT, and the server's TTFT; the requests
    AIPerf reported, and those the timing log could not match."""
    server = {}
    for line in timing_log.read_text().splitlines():
        if line:
            row = json.loads(line)
            server[row["x_request_id"]] = row
    out: dict[str, list[float]] = {k: [] for k in (
        "client_share_ms", "share_from_send_ms", "send_late_ms", "ttft_ms", "server_ttft_ms",
        "body_kb")}
    counts = {"requests": 0, "errors": 0, "unmatched": 0}
    for line in export.read_text().splitlines():
        if not line:
            continue
        rec = json.loads(line)
        meta = rec["metadata"]
        if meta.get("benchmark_phase") != "profiling":
            continue
        counts["requests"] += 1
        if rec.get("error"):
            counts["errors"] += 1
            continue
        ttft = _ns(rec["metrics"].get("time_to_first_token"))
        s = server.get(meta.get("x_request_id"))
        if ttft is None or s is None:
            counts["unmatched"] += 1
            continue
        shift = s["wall_minus_perf_ns"]
        first_token = meta["request_start_ns"] + ttft
        server_ttft = s["first_token"] - s["body_last"]
        out["body_kb"].append(s["body_bytes"] / 1000)
        out["ttft_ms"].append(ttft / 1e6)
        out["server_ttft_ms"].append(server_ttft / 1e6)
        out["share_from_send_ms"].append((ttft - server_ttft) / 1e6)
        if meta.get("credit_issued_ns") is not None:
            due = meta["credit_issued_ns"]
            out["send_late_ms"].append((meta["request_start_ns"] - due) / 1e6)
            out["client_share_ms"].append(((s["body_last"] + shift - due)
                                           + (first_token - (s["first_token"] + shift))) / 1e6)
    return {**out, **counts}  # type: ignore[dict-item]
