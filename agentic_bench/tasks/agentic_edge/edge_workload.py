"""Assemble the agentic-edge workload: which sessions, in what order, and how to score."""

from __future__ import annotations

from typing import Any

from agentic_bench.contracts import SessionSource, Workload
from agentic_bench.errors import ConfigError
from agentic_bench.tasks.agentic_edge.coding_phase import TURN_TIMEOUT_S, as_session
from agentic_bench.tasks.agentic_edge.executors import EdgeItems, make_executor
from agentic_bench.tasks.agentic_edge.mlperf_artifacts import write_artifacts
from agentic_bench.tasks.agentic_edge.mlperf_config import MLPERF_NAME, file_sha256, mlperf_block
from agentic_bench.tasks.agentic_edge.options import QUICK_PERF_SESSIONS, AgenticEdgeOptions
from agentic_bench.tasks.agentic_edge.phase_cap import PERF_MAX_DURATION_S, PhaseCap
from agentic_bench.tasks.agentic_edge.reference_notes import with_run_state
from agentic_bench.tasks.agentic_edge.run_summary import edge_scores
from agentic_bench.trace.model import SCHEMA_VERSION, Session, Turn

QUICK_CONVERSATIONS = 2


def _wrap(session_id: str, category: str, turns: int, text: str) -> Session:
    return Session(schema_version=SCHEMA_VERSION, session_id=session_id, category=category,
                   turns=[Turn(user=text) for _ in range(max(1, turns))])


def _accuracy_sessions(args: Any, items: EdgeItems, info: dict[str, Any],
                       planned: dict[str, str]) -> list[Session]:
    from agentic_bench.tasks.agentic_edge.multi_turn import MULTI_TURN_SUBSETS, load_multi_turn
    from agentic_bench.tasks.agentic_edge.sampling import sample_single_turn

    sessions: list[Session] = []
    if args.samples != 0:
        selection = "random" if getattr(args, "sample_selection", "mlperf") == "random" \
            else "head"
        picked = sample_single_turn(n=args.samples, quick=args.quick and not args.samples,
                                    selection=selection)  # type: ignore[arg-type]
        for s in picked:
            items.single[s.id] = s
            planned[s.id] = s.subset
            text = next((m["content"] for m in s.messages if m["role"] == "user"), "")
            sessions.append(_wrap(s.id, s.subset, 1, text))
        info["single_turn_samples"] = len(picked)
        info["sample_selection"] = ("MLPerf (first n of each subset, subsets in "
                                    "lexicographic order)" if selection == "head"
                                    else "seeded random (not MLPerf)")
    n_multi = args.multi_turn_samples
    for i in range(n_multi):
        subset = MULTI_TURN_SUBSETS[i % len(MULTI_TURN_SUBSETS)]
        sample = load_multi_turn(subset)[i // len(MULTI_TURN_SUBSETS)]
        items.multi[sample.id] = sample
        sessions.append(_wrap(sample.id, subset, sample.num_turns, "multi-turn"))
    info["multi_turn_samples"] = n_multi
    return sessions


def _performance_sessions(args: Any, items: EdgeItems,
                          info: dict[str, Any]) -> tuple[list[Session], bool]:
    """The performance phase's sessions, and whether they are MLCommons' coding conversations
    (auto-detected) rather than our recorded BFCL trajectories."""
    from agentic_bench.trace.mlcommons_agentic import (
        load_conversations,
        looks_like_mlcommons_agentic,
    )

    info["performance_trace"] = str(args.perf_trace)
    from agentic_bench.errors import ConfigError

    if args.perf_sessions is not None and args.perf_sessions < 1:
        raise ConfigError(f"--perf-sessions {args.perf_sessions}: must be >= 1 (leave it out "
                          "for the whole trace)")
    if looks_like_mlcommons_agentic(args.perf_trace):
        conversations = load_conversations(args.perf_trace)
        count = args.perf_sessions or (QUICK_CONVERSATIONS if args.quick else len(conversations))
        chosen = conversations[:count]
        for conv in chosen:
            items.coding.conversations[conv.id] = conv
        timeout = getattr(args, "turn_timeout", None)
        items.coding.turn_timeout_s = timeout if timeout is not None else TURN_TIMEOUT_S
        info["performance_format"] = "mlcommons-agentic"
        info["performance_sessions"] = len(chosen)
        info["performance_requests"] = sum(len(c.rows) for c in chosen)
        info["performance_file"] = {"conversations": len(conversations),
                                    "requests": sum(len(c.rows) for c in conversations),
                                    "sha256": file_sha256(args.perf_trace)}
        info["turn_timeout_s"] = items.coding.turn_timeout_s
        cap_s = getattr(args, "perf_max_duration", PERF_MAX_DURATION_S)
        if cap_s < 0:
            raise ConfigError(f"--perf-max-duration {cap_s:g}: must be >= 0 (0: no cap)")
        items.coding.cap = PhaseCap(limit_s=cap_s or None)
        info["performance_max_duration_s"] = cap_s
        items.coding.tool_delays = bool(getattr(args, "tool_delays", False))
        if items.coding.tool_delays:
            info["tool_delays"] = True
        return [as_session(c) for c in chosen], True
    from agentic_bench.errors import UsageError
    from agentic_bench.trace.importers import foreign_format_hint
    from agentic_bench.trace.jsonl import TraceFile

    hint = foreign_format_hint(args.perf_trace)
    if hint is not None:
        raise UsageError(f"--perf-trace takes MLCommons' agentic JSONL or our native trace: "
                         f"{hint}")
    if getattr(args, "tool_delays", False):
        raise ConfigError("--tool-delays applies to MLCommons' coding conversations; a native "
                          "--perf-trace waits its tool steps' recorded durations under "
                          "--think-time instead")
    trace = TraceFile(args.perf_trace)
    count = args.perf_sessions or (QUICK_PERF_SESSIONS if args.quick else len(trace))
    perf = [trace.session(i % len(trace)) for i in range(count)]
    info["performance_format"] = "agentic-bench"
    info["performance_sessions"] = len(perf)
    return perf, False


def build_workload(args: AgenticEdgeOptions) -> Workload:
    items = EdgeItems(tool_mode=args.tool_mode, max_steps=args.max_steps,
                      agent=getattr(args, "agent", "loop"))
    info: dict[str, Any] = {"mode": args.mode, "tool_mode": args.tool_mode,
                            "agent": items.agent}
    planned: dict[str, str] = {}
    accuracy = (_accuracy_sessions(args, items, info, planned)
                if args.mode in ("accuracy", "both") else [])
    perf, mlcommons = (_performance_sessions(args, items, info)
                       if args.mode in ("performance", "both") else ([], False))
    # MLPerf runs its performance phase first (online_edge_full_run.yaml); ours kept
    # accuracy first with the recorded BFCL trajectories
    sessions = perf + accuracy if mlcommons else accuracy + perf
    if not sessions:
        raise ConfigError("agentic-edge: nothing to run (check --samples/--mode)")
    target = args.accuracy_target
    perf_file = info.get("performance_file")
    bfcl = None
    if args.mode in ("accuracy", "both") and args.samples != 0:
        from agentic_bench.tasks.agentic_edge.bfcl_env import bfcl_version

        bfcl = bfcl_version()
    info["mlperf"] = mlperf_block(
        args, mlcommons_trace=mlcommons, bfcl=bfcl,
        perf_file=(perf_file["conversations"], perf_file["requests"]) if perf_file else None,
        perf_sha256=perf_file["sha256"] if perf_file else None)
    gated = bool(planned)
    before_run = info["mlperf"]
    asked = getattr(args, "sessions", None)  # --sessions N (a departure itself) plans N
    planned_sessions = len(sessions) if asked is None else min(asked, len(sessions))

    def score(records: list[dict[str, Any]]) -> dict[str, Any] | None:
        # the departures the run's course causes (an interrupted run), once its records are in
        info["mlperf"] = with_run_state(before_run, records, planned_sessions, MLPERF_NAME)
        return edge_scores(records, args.tool_mode, target, planned, gated)

    return Workload(
        name="agentic-edge",
        source=SessionSource(len(sessions), sessions.__getitem__),
        make_executor=make_executor(items),
        score=score,
        info=info,
        # --resume compares what was run, not how the departures are worded
        identity={k: v for k, v in info.items() if k != "mlperf"},
        write_artifacts=write_artifacts,
        tool_routing=args.tool_mode == "native",
    )
