"""Where the measuring machine's CPU time went during a run, *steal* included.

On a shared virtual machine, steal is time the hypervisor gave to other guests while this one
wanted to run. It inflates every latency measured on the host: the client's own timestamps and,
with ``--endpoint embedded``, the model's compute. Each run segment records the tick counts of
``/proc/stat`` between its start and end; the summary adds them up over segments (so resumed
runs are covered) as shares of all CPU time. Linux only: elsewhere nothing is recorded.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
STEAL_WARNING = 0.05  # above this share of CPU time, summary.txt says latency is inflated
_PROC_STAT = Path("/proc/stat")


def read_ticks(path: Path = _PROC_STAT) -> dict[str, int] | None:
    """The aggregate ``cpu`` line of /proc/stat (clock ticks since boot), or None."""
    try:
        with path.open() as fh:
            head = fh.readline().split()
    except OSError:
        return None
    if len(head) < 1 + len(FIELDS) or head[0] != "cpu":
        return None
    try:
        return {name: int(v) for name, v in zip(FIELDS, head[1:], strict=False)}
    except ValueError:
        return None


def segment_fields(before: dict[str, int] | None) -> dict[str, Any]:
    """What a segment record carries: the ticks since ``before`` and the core count."""
    ticks = ticks_between(before, read_ticks())
    return {} if ticks is None else {"host_cpu_ticks": ticks, "host_cores": os.cpu_count()}


def ticks_between(before: dict[str, int] | None,
                  after: dict[str, int] | None) -> dict[str, int] | None:
    if before is None or after is None:
        return None
    return {name: max(0, after[name] - before[name]) for name in FIELDS}


def summarize_host_cpu(segments: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """Summed ticks of the segment records that carry ``host_cpu_ticks``, as shares."""
    total = dict.fromkeys(FIELDS, 0)
    seen = count = 0
    cores: int | None = None
    for seg in segments:
        count += 1
        ticks = seg.get("host_cpu_ticks")
        if not isinstance(ticks, dict):
            continue
        seen += 1
        cores = seg.get("host_cores") or cores
        for name in FIELDS:
            total[name] += int(ticks.get(name) or 0)
    all_ticks = sum(total.values())
    if not seen or all_ticks == 0:
        return None
    share = {name: total[name] / all_ticks for name in FIELDS}
    idle_ticks = total["idle"] + total["iowait"]
    return {
        "cores": cores,
        "segments": seen,
        "segments_total": count,
        "ticks": total,
        "share": share,
        "steal": share["steal"],
        "busy": (all_ticks - idle_ticks - total["steal"]) / all_ticks,
        "idle": idle_ticks / all_ticks,
    }


def describe_host_cpu(host: dict[str, Any] | None) -> str | None:
    """One summary.txt line, with a warning when steal is high enough to distort latency."""
    if not host:
        return None
    line = (f"Host CPU  : busy {host['busy']:.1%}, steal {host['steal']:.1%}, idle "
            f"{host['idle']:.1%} of {host.get('cores') or '?'} cores' time")
    if host.get("segments_total", 0) > host.get("segments", 0):
        line += f" (in {host['segments']} of {host['segments_total']} run segments)"
    if host["steal"] > STEAL_WARNING:
        line += (" -- steal above 5%: the hypervisor ran other guests while this machine wanted "
                 "the CPU; latencies measured here are inflated")
    return line
