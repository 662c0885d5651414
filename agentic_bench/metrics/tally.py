"""A run's summary inputs, kept as the records go by: what a run holds instead of its records.

:class:`RunTally` is fed every record once (:meth:`RunTally.add`, from the run's record sink or
from a file read line by line) and keeps only what ``summary.json`` is computed from: counts,
errors by type, each declared latency metric and each stage as an exact value→count map at
1 µs (:class:`~agentic_bench.metrics.distribution.Distribution`), the interactivity, prefix
cache, load and failure tallies, and for sessions still running their few open facts (dropped
when the session record comes). Memory grows with the distinct values and the sessions in
flight, plus 16 bytes per request and per session (the intervals whose peak overlap the
``load`` block reports) — not with the records.

Kept whole: the few records of the run's own types (``run``, ``segment``, ``lanes``) and the
fan-out records (``fanout``, ``branch``, ``join``: one per subagent, what the ``fanout`` block
and the trees' subagent figures read).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from agentic_bench.metrics.declarations import (
    field_of,
    in_latency_population,
    latency_metrics,
    shown_in,
)
from agentic_bench.metrics.distribution import MICROSECOND_MS, Distribution
from agentic_bench.metrics.early_stop import FailureCauses
from agentic_bench.metrics.interactivity import InteractivityTally
from agentic_bench.metrics.load_reached import LoadTally
from agentic_bench.metrics.prefix_cache import PrefixCacheTally
from agentic_bench.metrics.trees import TreesTally
from agentic_bench.metrics.verdict import goodput_limits

KEPT_TYPES = frozenset({"run", "segment", "lanes", "fanout", "branch", "join"})
REQUEST = field_of("request")


def _distribution(unit: str) -> Distribution:
    return Distribution(MICROSECOND_MS if unit == "ms" else None)




class RoleTally:
    """LLM calls of one ``role`` (e.g. rag-e2e's main and grade models): each metric of the
    ``roles`` view (metrics/declarations.py) under its record field's name."""

    def __init__(self) -> None:
        self.requests = 0
        self.errors = 0
        self.metrics = {decl.field: Distribution() for decl in shown_in("roles")}

    def add(self, r: dict[str, Any], ok: bool) -> None:
        self.requests += 1
        if not ok:
            self.errors += 1
            return
        for field, dist in self.metrics.items():
            value = r.get(field)
            if isinstance(value, list | tuple):
                dist.add_all(value)
            elif value is not None:
                dist.add(value)

    def block(self, sessions: int) -> dict[str, Any]:
        return {"requests": self.requests, "errors": self.errors,
                "requests_per_session": self.requests / sessions if sessions else None,
                **{field: dist.describe() for field, dist in self.metrics.items()}}


class RunTally:
    """Every figure ``summarize`` needs, fed one record at a time (see the module's doc)."""

    def __init__(self, slos: dict[str, float] | None = None, *, phases: bool = True) -> None:
        self.metrics = [(d, _distribution(d.unit)) for d in latency_metrics()]
        self._by_source = {src: [(d.field, dist) for d, dist in self.metrics
                                 if d.source == src] for src in ("step", "turn", "session")}
        self.stages: dict[str, Distribution] = {}
        self.schedule_lag = Distribution()
        self.prompt_build = Distribution()  # prompts given as blocks (replay/prompt_ahead.py)
        self.prompt_ahead = 0
        self.prompt_late = 0
        self.send_late = Distribution()
        self.client_share = Distribution()  # against a timestamping server
        self.counts: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.warmup: Counter[str] = Counter()
        self.token_source: Counter[str] = Counter()
        self.output_tokens = 0
        self.planned_turns = 0
        self.tool_calls = [0, 0, 0]  # unmatched, scored, matched
        self.goodput = 0
        self._limits = goodput_limits(slos or {})
        self._violated: set[Any] = set()  # running sessions that broke a latency limit
        self.interactivity = InteractivityTally()
        self.prefix_cache = PrefixCacheTally()
        self.load = LoadTally()
        self.failures = FailureCauses()
        self.roles: dict[str, RoleTally] = {}
        self.kept: list[dict[str, Any]] = []  # KEPT_TYPES records
        self.trees = TreesTally()
        self.has_prompt_targets = False
        self.lanes_seen = False
        self.phases: dict[str, RunTally] | None = {} if phases else None

    def add(self, rec: dict[str, Any]) -> None:
        """One record, in the order the run wrote it."""
        rtype = rec.get("type")
        phase = rec.get("phase")
        if phase and self.phases is not None:
            sub = self.phases.get(phase)
            if sub is None:
                sub = self.phases[phase] = RunTally(phases=False)
            sub.add(rec)
        if rtype in KEPT_TYPES:
            self.kept.append(rec)
            self.lanes_seen = self.lanes_seen or rtype == "lanes"
        if rec.get("warmup"):  # a lane's warm-up: recorded, never counted
            if rtype == "step" and rec.get("status") != "retried":
                self.warmup["requests"] += 1
                self.warmup["errors"] += rec.get("status") != "ok"
            return
        if rtype == "step":
            self._step(rec)
        elif rtype == "turn":
            self._turn(rec)
        elif rtype == "session":
            self._session(rec)

    def _step(self, rec: dict[str, Any]) -> None:
        status = rec.get("status")
        if status == "retried":
            self.counts["retries"] += 1
        elif rec.get("kind") == "llm":
            self._llm(rec, status == "ok")
        elif status == "ok":
            self._stage(rec.get("stage") or rec["kind"], rec["duration_ms"])
        else:
            self.errors[rec.get("error_type") or "error"] += 1

    def _stage(self, name: str, value: float) -> None:
        dist = self.stages.get(name)
        if dist is None:
            dist = self.stages[name] = Distribution()
        dist.add(value)

    def _llm(self, r: dict[str, Any], ok: bool) -> None:
        self.counts["requests"] += 1
        if "schedule_lag_ms" in r:
            self.schedule_lag.add(r["schedule_lag_ms"])
        if "prompt_build_ms" in r:
            self.prompt_build.add(r["prompt_build_ms"])
            self.prompt_ahead += bool(r.get("prompt_ahead"))
            self.prompt_late += bool(r.get("prompt_late"))
        if "send_late_ms" in r:
            self.send_late.add(r["send_late_ms"])
        if "client_share_ms" in r:
            self.client_share.add(r["client_share_ms"])
        if ok:
            self.counts["requests_ok"] += 1
            self.output_tokens += r.get("output_tokens") or 0
            self.token_source[r.get("token_source", "none")] += 1
            self._add_values("step", r)
            if r.get("stage"):
                self._stage(r["stage"], r[REQUEST])
        else:
            self.errors[r.get("error_type") or "error"] += 1
            self.failures.add(r)
        if not (ok and self._limits.met(r, "step")):
            self._violated.add(r.get("session_id"))
        self.interactivity.add_llm(r, ok)
        self.prefix_cache.add_llm(r)
        self.load.add_llm(r)
        if r.get("role"):
            role = self.roles.get(str(r["role"]))
            if role is None:
                role = self.roles[str(r["role"])] = RoleTally()
            role.add(r, ok)
        if "prompt_tokens_target" in r:
            self.has_prompt_targets = True
        self.trees.add_llm(r)

    def _turn(self, t: dict[str, Any]) -> None:
        self.tool_calls[0] += t.get("unmatched_tool_calls", 0)
        self.tool_calls[1] += t.get("tool_calls_scored", 0)
        self.tool_calls[2] += t.get("tool_calls_matched", 0)
        if not in_latency_population(t):
            return
        self.counts["turns_ok"] += 1
        self._add_values("turn", t)
        if not self._limits.met(t, "turn"):
            self._violated.add(t["session_id"])

    def _session(self, s: dict[str, Any]) -> None:
        self.counts["sessions"] += 1
        if s.get("error_type") == "internal":  # the harness failed it (never a server error)
            self.counts["internal_errors"] += 1
        self.planned_turns += s.get("turns", 0)
        sid = s["session_id"] if "session_id" in s else None
        if s.get("status") == "ok":
            self.counts["sessions_ok"] += 1
            if in_latency_population(s):
                self._add_values("session", s)
            self.goodput += sid not in self._violated and self._limits.met(s, "session")
        self._violated.discard(sid)
        self.interactivity.add_session(s)
        self.prefix_cache.end_session(s.get("session_id"))
        self.load.add_session(s)
        self.trees.add_session(s)

    def _add_values(self, source: str, rec: dict[str, Any]) -> None:
        for name, dist in self._by_source[source]:
            value = rec.get(name)
            if isinstance(value, list | tuple):
                dist.add_all(value)
            elif value is not None:
                dist.add(value)


__all__ = ["KEPT_TYPES", "RoleTally", "RunTally"]
