"""What a replay actually sent, profiled from its run folder's ``records.jsonl``, and the
``fidelity`` entry of an imported trace's replay summary (planned vs sent).

Read from the records as :mod:`agentic_bench.records.types` declares them (docs/metrics.md,
"Records"):

* **requests** — ``step`` records of ``kind: llm``; an attempt that was retried
  (``status: retried``) and a lane's warm-up (``warmup: true``) are left out, a request that
  failed counts (it was sent; a note counts them).
* **sessions** — the run's sessions (``session`` records, and any session an LLM record
  names); a tree a lane began mid-trajectory (``partial``) is left out whole — its earlier
  requests were, by design, only the warm-up.
* **subagents** — the distinct ``branch`` marks of a session (a fan-out member's path
  ``"1.2"``, a spawned branch's id) on its LLM and ``branch`` records; **trees** — sessions
  with one.
* **ISL** — ``prompt_tokens_synth`` (the content tokens written for a prompt given as blocks)
  when every request has it (``synthesized``), else the server's ``input_tokens`` (``server``).
  **OSL** — the records' ``output_tokens`` of successful requests: ``held`` when every request
  asked for its recorded length (``output_tokens_target``, without ``--honor-eos``), else
  ``server``.
* **gaps** — per conversation (session and branch mark), the end of one request
  (``t_end_ns``) → the next one's send (``t_sent_ns``); ``wait_gaps_s`` leaves out a gap a
  ``fanout`` or ``join`` record of that conversation ends inside (the subagents' time, the
  server's speed). ``gap_scale`` is the run's ``--think-time`` factor, from its ``run``
  record.
* **prefix hit** — Σ ``prefix_hit_blocks`` / Σ ``prefix_blocks`` (prompts given as blocks);
  a text replay's records hold no request text: not known.
* **tool calls** — not known: the records hold the ``tool`` steps the replay waited for, not
  the calls in each request's history (a note gives their number).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

from agentic_bench.trace.model import Session
from agentic_bench.trace.profile import TraceProfile

MAX_PLANNED_SESSIONS = 100_000  # the summary's planned profile: beyond this, not computed


@dataclass
class _Session:
    index: int | None = None
    partial: bool = False
    requests: list[tuple[str, int, int, Any, Any, bool, bool]] = field(default_factory=list)
    branches: set[str] = field(default_factory=set)
    barriers: dict[str, list[int]] = field(default_factory=dict)  # conversation → ends
    tool_steps: int = 0
    hit: int = 0
    blocks: int = 0


def _think_factor(text: Any) -> float:
    from agentic_bench.options.replay import ThinkPolicy

    try:
        return ThinkPolicy.parse(str(text)).factor if text is not None else 1.0
    except Exception:  # an unreadable option: taken as recorded
        return 1.0


class RecordsProfiler:
    """Fed a run's records one at a time (:meth:`add`), then :meth:`profile`. ``issued``
    maps each whole (not mid-trajectory) session id to its index in the workload."""

    def __init__(self) -> None:
        self.sessions: dict[str, _Session] = {}
        self.config: dict[str, Any] = {}
        self.options: dict[str, Any] = {}
        self.warmup = self.retried = 0

    def _session(self, r: Mapping[str, Any]) -> _Session:
        s = self.sessions.setdefault(str(r.get("session_id")), _Session())
        if s.index is None and isinstance(r.get("session_index"), int):
            s.index = r["session_index"]
        return s

    def add(self, r: Mapping[str, Any]) -> None:
        kind = r.get("type")
        if kind == "run":
            self.config = dict(r.get("config") or {})
            self.options = dict(r.get("options") or {})
        elif kind == "session":
            s = self._session(r)
            s.partial = s.partial or bool(r.get("partial"))
        elif kind == "branch":
            self._session(r).branches.add(str(r.get("branch")))
        elif kind == "fanout":
            group = str(r.get("group", ""))
            conv = group.rsplit("/", 1)[0] if "/" in group else ""
            self._session(r).barriers.setdefault(conv, []).append(int(r.get("t_end_ns", 0)))
        elif kind == "join":
            conv = str(r.get("conversation") or "")
            self._session(r).barriers.setdefault(conv, []).append(int(r.get("t_end_ns", 0)))
        elif kind == "step" and r.get("kind") == "tool":
            self._session(r).tool_steps += 1
        elif kind == "step" and r.get("kind") == "llm":
            self._llm(r)

    def _llm(self, r: Mapping[str, Any]) -> None:
        if r.get("warmup"):
            self.warmup += 1
            return
        if r.get("status") == "retried":
            self.retried += 1
            return
        s = self._session(r)
        branch = str(r.get("branch") or "")
        if branch:
            s.branches.add(branch)
        ok = r.get("status") == "ok"
        inp = r.get("prompt_tokens_synth")
        s.requests.append((branch, int(r.get("t_sent_ns", 0)), int(r.get("t_end_ns", 0)),
                           (inp, r.get("input_tokens")), r.get("output_tokens") if ok else None,
                           r.get("output_tokens_target") is not None, ok))
        if r.get("prefix_blocks") is not None:
            s.hit += int(r.get("prefix_hit_blocks") or 0)
            s.blocks += int(r["prefix_blocks"])

    @property
    def issued(self) -> dict[str, int]:
        return {sid: s.index for sid, s in self.sessions.items()
                if not s.partial and s.index is not None}

    def profile(self) -> TraceProfile:
        prof = TraceProfile(unknown=["tool_calls"], output_basis="server")
        prof.gap_scale = _think_factor(self.config.get("think_time"))
        whole = [s for s in self.sessions.values() if not s.partial]
        requests = [q for s in whole for q in s.requests]
        synth = bool(requests) and all(q[3][0] is not None for q in requests)
        held = (bool(requests) and all(q[5] for q in requests)
                and not self.options.get("honor_eos"))
        prof.input_basis = "synthesized" if synth else "server"
        prof.output_basis = "held" if held else "server"
        hit = blocks = tools = 0
        wait_gaps: list[float] = []
        prof.wait_gaps_s = wait_gaps
        for s in whole:
            prof.sessions += 1
            prof.subagents += len(s.branches)
            prof.trees += bool(s.branches)
            tools += s.tool_steps
            hit, blocks = hit + s.hit, blocks + s.blocks
            for q in s.requests:
                prof.requests += 1
                prof.input_tokens.append(q[3][0] if synth else q[3][1])
                prof.output_tokens.append(q[4])
            every, waits = _gaps(s)
            prof.gaps_s += every
            wait_gaps += waits
        if blocks:
            prof.prefix_hit, prof.prefix_basis = hit / blocks, "blocks"
        else:
            prof.unknown.append("prefix_hit")
            prof.notes.append("prefix hit: the records hold no request text (a text replay); "
                              "see the summary's prefix_cache for what the server reused")
        prof.notes.append(f"tool calls: not in the records ({tools} tool step(s) replayed, "
                          "each a recorded result)")
        self._notes(prof, len(self.sessions) - len(whole))
        return prof

    def _notes(self, prof: TraceProfile, partial: int) -> None:
        failed = sum(not q[6] for s in self.sessions.values() if not s.partial
                     for q in s.requests)
        for n, text in ((failed, "request(s) failed (counted: they were sent)"),
                        (self.retried, "retried attempt(s) left out"),
                        (self.warmup, "warm-up request(s) left out"),
                        (partial, "tree(s) begun mid-trajectory left out")):
            if n:
                prof.notes.append(f"{n} {text}")
        if prof.gap_scale != 1.0:
            prof.notes.append(f"--think-time {self.config.get('think_time')}: recorded gaps "
                              f"compared × {prof.gap_scale:g}")
        if self.config.get("history") == "live":
            prof.notes.append("--history live: the model's replies decided the requests")
        if self.options.get("idle_gap_cap") is not None:
            prof.notes.append(f"--idle-gap-cap {self.options['idle_gap_cap']}: long gaps "
                              "were cut")
        if self.options.get("trace_idle_gap_cap") is not None:
            prof.notes.append(f"--trace-idle-gap-cap {self.options['trace_idle_gap_cap']}: a "
                              "tree's long idle gaps were cut")


def _gaps(s: _Session) -> tuple[list[float], list[float]]:
    """(every gap, the waits alone) of one session's conversations."""
    by_conv: dict[str, list[tuple[int, int]]] = {}
    for branch, sent, end, *_ in s.requests:
        by_conv.setdefault(branch, []).append((sent, end))
    every: list[float] = []
    waits: list[float] = []
    for conv, calls in by_conv.items():
        calls.sort()
        walls = s.barriers.get(conv, [])
        for (_, prev_end), (sent, _) in pairwise(calls):
            gap = max(0, sent - prev_end) / 1e9
            every.append(gap)
            if not any(prev_end < w <= sent for w in walls):
                waits.append(gap)
    return every, waits


def profile_records(records: Iterable[Mapping[str, Any]]) -> TraceProfile:
    """What a run sent, from its records (see the module's docstring)."""
    profiler = RecordsProfiler()
    for r in records:
        profiler.add(r)
    return profiler.profile()


def profile_run_dir(run_dir: Path) -> TraceProfile:
    """The profile of a run folder's ``records.jsonl`` (or its ``.gz`` copy)."""
    from agentic_bench.records.stream import RecordStream, run_records_path

    return profile_records(RecordStream(run_records_path(run_dir)))


def summary_fidelity(info: Mapping[str, Any], source: Callable[[int], Session],
                     records_path: Path) -> dict[str, Any] | None:
    """The ``fidelity`` entry of a trace replay's summary (``info``: the workload's info, with
    ``trace`` and ``trace_format``; ``source``: its sessions by index), or None when the trace
    is not an import (``trace_format`` native and its first session carries no
    ``metadata.source``). Planned = the trace's profile of the sessions this run issued
    (mid-trajectory trees left out); sent = the records'. Never raises: a failure becomes
    ``{"ok": None, "error": ...}`` (summary.txt: "not computed")."""
    if "trace" not in info:
        return None
    fmt = str(info.get("trace_format") or "native")
    try:
        name = fmt if fmt != "native" else source(0).metadata.get("source")
    except Exception:  # no session to look at: nothing to say
        return None
    if not name:
        return None
    try:
        return _summary_fidelity(str(name), source, records_path)
    except Exception as exc:  # the run's result must not depend on this row
        return {"ok": None, "error": f"{type(exc).__name__}: {exc}"}


def _summary_fidelity(name: str, source: Callable[[int], Session],
                      records_path: Path) -> dict[str, Any] | None:
    from agentic_bench.records.stream import RecordStream
    from agentic_bench.trace.fidelity import SessionProfiler
    from agentic_bench.trace.fidelity_compare import compare, fidelity_block

    profiler = RecordsProfiler()
    for r in RecordStream(records_path):
        profiler.add(r)
    issued = sorted(profiler.issued.items(), key=lambda item: item[1])
    if not issued:
        return {"ok": None, "source": name, "error": "no whole session in the records (a "
                "tree begun mid-trajectory is left out)"}
    if len(issued) > MAX_PLANNED_SESSIONS:
        return {"ok": None, "source": name,
                "error": f"{len(issued)} sessions, over {MAX_PLANNED_SESSIONS}: not profiled"}
    planned = SessionProfiler()
    for _, index in issued:
        planned.add(source(index))
    left, right = planned.profile(), profiler.profile()
    notes = [f"planned: {n}" for n in left.notes] + [f"sent: {n}" for n in right.notes]
    return fidelity_block(compare(left, right), source=name,
                          planned=f"{len(issued)} session(s) issued",
                          notes=notes)


__all__ = ["RecordsProfiler", "profile_records", "profile_run_dir", "summary_fidelity"]
