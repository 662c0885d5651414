"""Assemble the agentic-edge workload: which sessions, in what order, and how to score."""

from __future__ import annotations

import argparse
from typing import Any

from agentic_bench.errors import ConfigError
from agentic_bench.load.runner import SessionSource
from agentic_bench.tasks.agentic_edge.executors import EdgeItems, make_executor
from agentic_bench.tasks.agentic_edge.run_summary import edge_accuracy
from agentic_bench.trace.model import SCHEMA_VERSION, Session, Turn
from agentic_bench.workload import Workload

DEFAULT_MAX_TOKENS = 256  # BFCL answers are short; bounds a small model's run-on replies


def _wrap(session_id: str, category: str, turns: int, text: str) -> Session:
    return Session(schema_version=SCHEMA_VERSION, session_id=session_id, category=category,
                   turns=[Turn(user=text) for _ in range(max(1, turns))])


def build_workload(args: argparse.Namespace) -> Workload:
    from agentic_bench.tasks.agentic_edge.multi_turn import MULTI_TURN_SUBSETS, load_multi_turn
    from agentic_bench.tasks.agentic_edge.sampling import sample_single_turn

    items = EdgeItems(tool_mode=args.tool_mode, max_steps=args.max_steps,
                      agent=getattr(args, "agent", "loop"))
    sessions: list[Session] = []
    info: dict[str, Any] = {"mode": args.mode, "tool_mode": args.tool_mode,
                            "agent": items.agent}
    if args.mode in ("accuracy", "both"):
        if args.samples != 0:
            picked = sample_single_turn(n=args.samples, quick=args.quick and not args.samples)
            for s in picked:
                items.single[s.id] = s
                text = next((m["content"] for m in s.messages if m["role"] == "user"), "")
                sessions.append(_wrap(s.id, s.subset, 1, text))
            info["single_turn_samples"] = len(picked)
        n_multi = args.multi_turn_samples
        for i in range(n_multi):
            subset = MULTI_TURN_SUBSETS[i % len(MULTI_TURN_SUBSETS)]
            sample = load_multi_turn(subset)[i // len(MULTI_TURN_SUBSETS)]
            items.multi[sample.id] = sample
            sessions.append(_wrap(sample.id, subset, sample.num_turns, "multi-turn"))
        info["multi_turn_samples"] = n_multi
    if args.mode in ("performance", "both"):
        from agentic_bench.trace.jsonl import TraceFile

        trace = TraceFile(args.perf_trace)
        count = args.perf_sessions or (2 if args.quick else len(trace))
        perf = [trace.session(i % len(trace)) for i in range(count)]
        sessions.extend(perf)
        info["performance_trace"] = str(args.perf_trace)
        info["performance_sessions"] = len(perf)
    if not sessions:
        raise ConfigError("agentic-edge: nothing to run (check --samples/--mode)")
    if args.sessions is None:
        args.sessions = len(sessions)
    target = args.accuracy_target
    slos = {"accuracy": target} if target is not None else {}
    return Workload(
        name="agentic-edge",
        source=SessionSource(len(sessions), sessions.__getitem__),
        make_executor=make_executor(items),
        score=lambda records: edge_accuracy(records, args.tool_mode, target),
        default_slos=slos, info=info,
        default_overrides={"max_tokens": DEFAULT_MAX_TOKENS},
    )
