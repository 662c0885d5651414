"""Load specifications: which scenario, how hard, when to stop (:class:`LoadSpec`), the
lanes of a run over agent trees (:class:`LaneSpec`) — one of the two is a run's load, the
tagged union :data:`LoadShape` (tag ``kind``) — and the loads a sweep (:class:`SweepSpec`)
or a capacity search (:class:`SearchSpec`) runs at — the last two the parsed values of
``--sweep`` and ``--search``."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import ClassVar, Literal

from agentic_bench.errors import ConfigError
from agentic_bench.options.schema import TextValue

SCENARIOS = {
    "single-stream": "one session at a time, back to back (closed loop, 1 stream)",
    "multi-stream": "N sessions issued together; the next N when all are done (lockstep)",
    "server": "Poisson session arrivals at --rate sessions/s (open loop, seeded)",
    "offline": "every session issued at t=0, at most --concurrency in flight",
    "concurrency": "closed loop: N sessions in flight; a new one starts when one finishes",
    "trace-timed": "sessions start at their recorded start_offset_s",
}
OPEN_LOOP = frozenset({"server", "offline", "trace-timed"})


@dataclass(frozen=True)
class LoadSpec:
    """A run's load: the scenario and its rate or concurrency, how many sessions or how long,
    the error budget, the arrival seed and the interrupt grace period."""

    kind: ClassVar[Literal["sessions"]] = "sessions"  # the tag of :data:`LoadShape`
    scenario: str = "single-stream"
    rate: float | None = None
    concurrency: int | None = None
    sessions: int | None = None
    duration_s: float | None = None
    max_errors: int | None = None
    seed: int = 42
    grace_s: float = 30.0

    def check(self) -> LoadSpec:
        """The rules between the load's options (each option's own bounds are the options
        model's field validators): a rate is a server's, a server needs one, lockstep and
        closed loops need a concurrency. Called once, by the options' validator."""
        if self.scenario not in SCENARIOS:
            raise ConfigError(
                f"--scenario {self.scenario!r}: expected one of {', '.join(SCENARIOS)}")
        if self.rate is not None and self.scenario != "server":
            raise ConfigError(f"--rate applies to --scenario server only (this run is "
                              f"{self.scenario}); drop it or add --scenario server")
        if self.scenario == "server" and self.rate is None:
            raise ConfigError("--scenario server needs --rate (sessions per second)")
        if self.scenario in ("multi-stream", "concurrency") and self.concurrency is None:
            raise ConfigError(f"--scenario {self.scenario} needs --concurrency N")
        return self

    @property
    def streams(self) -> int:
        if self.scenario == "single-stream":
            return 1
        return self.concurrency or 0


@dataclass(frozen=True)
class LaneSpec:
    """The lanes of a run over agent trees (load/lanes.py): how many, where each first tree
    starts and its warm-up, how long, wrap, the idle-gap caps (the run's and each tree's),
    cache busting, seed, grace and how many trees in all."""

    kind: ClassVar[Literal["lanes"]] = "lanes"  # the tag of :data:`LoadShape`
    lanes: int = 1
    trajectory: tuple[float, float] = (0.0, 0.0)  # t* range, fractions of a tree's span
    warmup_requests: int = 1
    duration_s: float | None = None
    cut: bool = False  # the measured phase's end stops trees mid-way (--agentx)
    allow_wrap: bool = False
    idle_gap_cap_s: float | None = None
    trace_idle_gap_cap_s: float | None = None  # per tree (load/clock.py TreeClock)
    cache_bust: bool = True
    seed: int = 42
    grace_s: float = 30.0
    sessions: int | None = None  # trees to draw in all (None: one pass, or until --duration)


LoadShape = LoadSpec | LaneSpec
"""A run's load, decided once per run (``run/plan.py``): sessions issued by a scenario
(:class:`LoadSpec`, ``kind == "sessions"``) or agent trees held by lanes (:class:`LaneSpec`,
``kind == "lanes"``). ``run/segments.py`` makes the scheduler of either from it."""

LOAD_KEYS = ("rate", "concurrency")  # what a sweep or a search varies


@dataclass(frozen=True)
class SweepSpec(TextValue):
    """``--sweep KEY=V1,V2,...``: the load points of a sweep (a rate in sessions/s, or a whole
    number of streams)."""

    key: str
    values: tuple[float, ...]

    @classmethod
    def parse(cls, text: str) -> SweepSpec:
        key, sep, values = text.partition("=")
        key = key.strip()
        if not sep or key not in LOAD_KEYS:
            raise ConfigError(f"--sweep {text!r}: expected rate=R1,R2,... or "
                              "concurrency=N1,N2,...")
        try:
            points = tuple(float(v) for v in values.split(",") if v.strip())
        except ValueError:
            raise ConfigError(f"--sweep {text!r}: values must be numbers") from None
        if not points or any(not math.isfinite(p) or p <= 0 for p in points):
            raise ConfigError(f"--sweep {text!r}: give at least one value > 0")
        if key == "concurrency" and any(p != int(p) for p in points):
            raise ConfigError(f"--sweep {text!r}: concurrency values must be integers")
        return cls(key, points)

    def __str__(self) -> str:
        return f"{self.key}={','.join(format(v, 'g') for v in self.values)}"


@dataclass(frozen=True)
class SearchSpec(TextValue):
    """``--search KEY=LO:HI``, tuned by ``--search-fraction``, ``--search-resolution``,
    ``--search-repeats`` and ``--search-max-runs`` (:meth:`tuned`): the goodput fraction a load
    must keep, how narrow the bracket gets, the runs per point, and the runs at most of a point
    whose interval stays undecided (run/search.py)."""

    key: str
    lo: float
    hi: float
    fraction: float = 0.95
    resolution: float | None = None
    repeats: int = 1
    max_runs: int = 3

    @classmethod
    def parse(cls, text: str) -> SearchSpec:
        key, sep, span = text.partition("=")
        lo_text, colon, hi_text = span.partition(":")
        if not sep or not colon or key.strip() not in LOAD_KEYS:
            raise ConfigError(f"--search {text!r}: expected concurrency=LO:HI or rate=LO:HI")
        try:
            lo, hi = float(lo_text), float(hi_text)
        except ValueError:
            raise ConfigError(f"--search {text!r}: LO and HI must be numbers") from None
        key = key.strip()
        if not 0 < lo <= hi or not math.isfinite(hi):
            raise ConfigError(f"--search {text!r}: need 0 < LO <= HI")
        if key == "concurrency" and (lo != int(lo) or hi != int(hi)):
            raise ConfigError(f"--search {text!r}: concurrency bounds must be integers")
        return cls(key, lo, hi)

    def tuned(self, fraction: float, resolution: float | None, repeats: int,
              max_runs: int | None = None) -> SearchSpec:
        """This range with the search's criterion and precision (checked by the options);
        ``max_runs`` below ``repeats`` is raised to it."""
        most = max(repeats, self.max_runs if max_runs is None else max_runs)
        return replace(self, fraction=fraction, resolution=resolution, repeats=repeats,
                       max_runs=most)

    def __str__(self) -> str:
        return f"{self.key}={self.lo:g}:{self.hi:g}"

    @property
    def integer(self) -> bool:
        return self.key == "concurrency"

    @property
    def step(self) -> float:
        if self.resolution is not None:
            return self.resolution
        return 1.0 if self.integer else max(self.lo * 0.05, 1e-6)
