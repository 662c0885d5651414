"""Lanes of agent trees over worker processes or Ray actors (``--workers N``,
``--ray-address``).

Worker ``k`` of ``N`` owns the lanes ``l`` with ``l mod N == k`` and draws the trees ``t`` with
``t mod N == k`` in the one-process order (:class:`~agentic_bench.load.lanes.LaneRunner`'s
``share``): a tree and its subagents never split across workers, and over the workers a run
draws exactly the trees one process draws. Each worker waits at the wall-clock start barrier,
runs its lanes' warm-up, then arrives at the gate (:func:`lane_gate`); once every worker has
arrived the parent opens it at one wall-clock instant shortly ahead (:func:`open_when_all`)
and every worker's measured phase begins then. Each worker's ``lanes`` record comes back in
its report; :func:`merged_lanes_record` makes the run's one ``lanes`` record of them, with
the spread of the workers' measured-phase starts (:func:`start_spread_ms`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from agentic_bench.load.lanes import LaneRunner
    from agentic_bench.options.load import LaneSpec

GATE_POLL_S = 0.002  # how often a worker at the gate looks whether it has opened
GATE_LEAD_S = 0.25  # how far ahead of now the parent opens the gate (local processes)


class WorkerGate(Protocol):
    """A gate as a worker sees it: arrive, then read the instant it opens at (0.0: shut)."""

    def arrive(self) -> None: ...

    def opens_at(self) -> float: ...


class StopFlag(Protocol):
    """An interrupt a worker polls (a ``multiprocessing`` or ``asyncio`` event)."""

    def is_set(self) -> bool: ...


class GateState(Protocol):
    """A gate as the parent sees it: how many workers arrived, and its opening instant."""

    opens: float

    @property
    def arrived(self) -> int: ...


class LocalGate:
    """A gate in one process (a Ray actor's): who arrived, and the wall-clock instant it
    opens at (0.0 while shut)."""

    def __init__(self) -> None:
        self.arrived = 0
        self.opens = 0.0

    def arrive(self) -> None:
        self.arrived += 1

    def opens_at(self) -> float:
        return self.opens


class ProcessGate:
    """A gate shared by local worker processes (spawn): a count of arrivals and the opening
    instant, in shared memory."""

    def __init__(self, ctx: Any) -> None:
        self.arrivals = ctx.Value("i", 0)
        self.opening = ctx.Value("d", 0.0)

    def arrive(self) -> None:
        with self.arrivals.get_lock():
            self.arrivals.value += 1

    def opens_at(self) -> float:
        return float(self.opening.value)

    @property
    def arrived(self) -> int:
        return int(self.arrivals.value)

    @property
    def opens(self) -> float:
        return float(self.opening.value)

    @opens.setter
    def opens(self, wall: float) -> None:
        self.opening.value = wall


def open_when_all(gate: GateState, workers: int, lead_s: float = GATE_LEAD_S,
                  force: bool = False) -> bool:
    """Open ``gate`` ``lead_s`` from now once ``workers`` have arrived (or at once with
    ``force``: a worker failed, the others must not wait for it); True when it is open."""
    if gate.opens > 0:
        return True
    if gate.arrived >= workers or force:
        gate.opens = time.time() + (0.0 if force else lead_s)
        return True
    return False


def lane_gate(gate: WorkerGate | None,
              stop: StopFlag | None) -> Callable[[], Awaitable[None]] | None:
    """What a worker's lane runner awaits between its warm-up and its measured phase: arrive,
    wait for the parent to open the gate (or for ``stop``), then for its instant."""
    if gate is None:
        return None

    async def wait() -> None:
        gate.arrive()
        while (wall := gate.opens_at()) <= 0:
            if stop is not None and stop.is_set():
                return
            await asyncio.sleep(GATE_POLL_S)
        delay = wall - time.time()
        if delay > 0:
            await asyncio.sleep(delay)

    return wait


def shard_lanes_record(runner: LaneRunner) -> dict[str, Any]:
    """A worker's ``lanes`` record, with what the merge needs: its lanes, their busy time and
    its measured phase's wall-clock start."""
    busy = sum(min(b, max(runner.stats.t_end_ns - runner.stats.t_start_ns, 1))
               for b in runner.stats.busy_ns)
    return {**runner.lanes_record(), "worker": runner.share, "lanes_owned": len(runner.owned),
            "busy_s": busy / 1e9, "measured_start_wall_ns": runner.stats.measured_wall_ns}


def start_spread_ms(records: list[dict[str, Any]]) -> float | None:
    """Latest minus earliest measured-phase start over the workers, in ms (None: no worker
    reached its measured phase)."""
    starts = [r["measured_start_wall_ns"] for r in records if r.get("measured_start_wall_ns")]
    return (max(starts) - min(starts)) / 1e6 if starts else None


def merged_lanes_record(spec: LaneSpec, records: list[dict[str, Any]],
                        stop_reason: str) -> dict[str, Any]:
    """The run's one ``lanes`` record from its workers' (the keys of a one-process run's, and
    ``workers``, ``measured_start_spread_ms`` and each worker's part, with where it ran: host
    name and pid, and a Ray actor's ``ray_node_id``): counts summed, the measured phase the
    longest worker's, occupancy the lane-time held over the lane-time measured, the warm-up
    the longest, idle jumps summed and the skipped time the most any worker skipped (the
    idle-gap cap applies per worker: idle means idle in that worker); the per-tree cap's jumps
    and skipped time summed (a tree lives in one worker); the measured phase's start the
    earliest worker's."""
    lane_time = sum(r["measured_s"] * r["lanes_owned"] for r in records)
    first = records[0] if records else {}
    return {
        "type": "lanes", "lanes": spec.lanes, "run_id": first.get("run_id"),
        **{k: sum(r[k] for r in records) for k in (
            "trees_started", "trees_completed", "unfilled", "starved", "wrapped",
            "warmup_requests", "jumps", "tree_jumps", "trees_idle_capped")},
        "tree_skipped_s": sum(r["tree_skipped_s"] for r in records),
        "trace_idle_gap_cap_s": spec.trace_idle_gap_cap_s,
        "measured_start_ns": min((r["measured_start_ns"] for r in records), default=None),
        "occupancy": sum(r["busy_s"] for r in records) / lane_time if lane_time else 0.0,
        "warmup_s": max((r["warmup_s"] for r in records), default=0.0),
        "measured_s": max((r["measured_s"] for r in records), default=0.0),
        "trajectory": list(spec.trajectory), "duration_s": spec.duration_s,
        "stop_reason": stop_reason, "idle_gap_cap_s": spec.idle_gap_cap_s,
        "skipped_s": max((r["skipped_s"] for r in records), default=0.0),
        "workers": len(records), "measured_start_spread_ms": start_spread_ms(records),
        "per_worker": [{k: r.get(k) for k in (
            "worker", "lanes_owned", "trees_started", "trees_completed", "occupancy",
            "warmup_s", "measured_s", "measured_start_wall_ns", "stop_reason", "host", "pid")}
            | ({"ray_node_id": r["ray_node_id"]} if "ray_node_id" in r else {})
            for r in records],
    }


__all__ = ["GateState", "LocalGate", "ProcessGate", "StopFlag", "WorkerGate", "lane_gate",
           "merged_lanes_record", "open_when_all", "shard_lanes_record", "start_spread_ms"]
