"""Load specifications: which scenario, how hard, when to stop (:class:`LoadSpec`), and the
lanes of a run over agent trees (:class:`LaneSpec`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from agentic_bench.errors import ConfigError

SCENARIOS = {
    "single-stream": "one session at a time, back to back (closed loop, 1 stream)",
    "multi-stream": "N sessions issued together; the next N when all are done (lockstep)",
    "server": "Poisson session arrivals at --rate sessions/s (open loop, seeded)",
    "offline": "every session issued at t=0, at most --concurrency in flight",
    "concurrency": "closed loop: N sessions in flight; a new one starts when one finishes",
    "trace-timed": "sessions start at their recorded start_offset_s",
}
OPEN_LOOP = frozenset({"server", "offline", "trace-timed"})


@dataclass
class LoadSpec:
    """A run's load: the scenario and its rate or concurrency, how many sessions or how long,
    the error budget, the arrival seed and the interrupt grace period."""

    scenario: str = "single-stream"
    rate: float | None = None
    concurrency: int | None = None
    sessions: int | None = None
    duration_s: float | None = None
    max_errors: int | None = None
    seed: int = 42
    grace_s: float = 30.0

    def check(self) -> LoadSpec:
        """Every option checked before anything is sent; the first problem is raised."""
        if self.scenario not in SCENARIOS:
            raise ConfigError(
                f"--scenario {self.scenario!r}: expected one of {', '.join(SCENARIOS)}")
        for name in ("concurrency", "sessions", "max_errors"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ConfigError(f"--{name.replace('_', '-')} {value}: must be ≥ 1")
        if self.rate is not None:
            if not math.isfinite(self.rate) or self.rate <= 0:
                raise ConfigError(f"--rate {self.rate:g}: must be > 0 sessions per second")
            if self.scenario != "server":
                raise ConfigError(f"--rate applies to --scenario server only (this run is "
                                  f"{self.scenario}); drop it or add --scenario server")
        if self.scenario == "server" and self.rate is None:
            raise ConfigError("--scenario server needs --rate (sessions per second)")
        if self.scenario in ("multi-stream", "concurrency") and self.concurrency is None:
            raise ConfigError(f"--scenario {self.scenario} needs --concurrency N")
        if self.duration_s is not None and (not math.isfinite(self.duration_s)
                                            or self.duration_s <= 0):
            raise ConfigError(f"--duration {self.duration_s:g}: must be > 0 seconds")
        if self.grace_s < 0:
            raise ConfigError(f"--grace {self.grace_s:g}: must be ≥ 0 seconds")
        return self

    @property
    def streams(self) -> int:
        if self.scenario == "single-stream":
            return 1
        return self.concurrency or 0


@dataclass(frozen=True)
class LaneSpec:
    lanes: int = 1
    trajectory: tuple[float, float] = (0.0, 0.0)  # t* range, fractions of a tree's span
    warmup_requests: int = 1
    duration_s: float | None = None
    cut: bool = False  # the measured phase's end stops trees mid-way (--agentx)
    allow_wrap: bool = False
    idle_gap_cap_s: float | None = None
    cache_bust: bool = True
    seed: int = 42
    grace_s: float = 30.0
    sessions: int | None = None  # trees to draw in all (None: one pass, or until --duration)
