"""From validated run options (:mod:`agentic_bench.options.common`) to a RunConfig (which
:mod:`agentic_bench.run.command` runs).

The options themselves — flags, help, files — are declared in ``options.common``; this module
translates them into the harness's :class:`~agentic_bench.options.run.RunConfig` (checking the
combinations a single option cannot: ``--loadgen`` with ``--workers``, ...)."""

from __future__ import annotations

from typing import Any


def with_resumed_options(argv: list[str]) -> list[str]:
    """``--resume DIR`` without ``--config``: the run's own options (``DIR/config.yaml``) under
    what the command line says, so a resume needs no option typed again."""
    from pathlib import Path

    folder = None
    for i, word in enumerate(argv):
        if word == "--resume" and i + 1 < len(argv):
            folder = argv[i + 1]
        elif word.startswith("--resume="):
            folder = word.split("=", 1)[1]
    if folder is None or any(w == "--config" or w.startswith("--config=") for w in argv):
        return argv
    saved = Path(folder) / "config.yaml"
    return ["--config", str(saved), *argv] if saved.is_file() else argv


def run_config(args: Any, command: str | None = None) -> Any:
    """Build a RunConfig from validated options (imports the harness lazily); ``command``:
    the benchmark's name (``run NAME``) or ``replay``, for the run's saved config.yaml."""
    import secrets

    from agentic_bench.options.replay import ReplayOptions
    from agentic_bench.options.run import RunConfig
    from agentic_bench.options.schema import command_line, identity, public_options

    options = ReplayOptions(
        model=args.model or "", history=args.history, think=args.think_time,
        overrides=args.overrides, request_timeout_s=args.request_timeout,
        turn_timeout_s=args.turn_timeout, salt=secrets.token_hex(4) if args.salt else None,
        retries=args.retries, retry_rule=getattr(args, "retry_on", "any"),
        session_headers=args.session_header,
        session_user=args.session_user,
        parent_session_headers=tuple(getattr(args, "parent_session_header", ())),
        synthesis=synthesis_options(args))
    if args.ray_address:
        from agentic_bench.load.ray_executor import check_ray_address

        check_ray_address(args.ray_address)
    return RunConfig(endpoint=args.endpoint, model=args.model, api_key_env=args.api_key_env,
                     api_key_header=args.api_key_header,
                     load=args.load, options=options, slos=args.slos,
                     out=args.resume or args.out, resume=args.resume is not None,
                     retry_errors=args.retry_errors, overwrite=args.overwrite,
                     quiet=args.quiet, workers=args.workers, ray_address=args.ray_address,
                     stop_after_failures=args.stop_after_failures,
                     workers_per_node=args.workers_per_node, loadgen=args.loadgen_options,
                     transport=args.transport,
                     server_metrics=tuple(getattr(args, "server_metrics", ())),
                     server_metrics_interval_s=getattr(args, "server_metrics_interval", 1.0),
                     options_shown=public_options(args), identity=identity(args),
                     command=command,
                     command_line="" if command is None else command_line(
                         ["agentic-bench", *(["replay"] if command == "replay"
                                             else ["run", command])], args))


def synthesis_options(args: Any) -> Any:
    """How prompts given as blocks are written (replay's agent-tree options; defaults for a
    command without them)."""
    from agentic_bench.options.replay import SynthesisOptions

    if not hasattr(args, "tokenizer"):
        return SynthesisOptions(seed=args.seed)
    return SynthesisOptions(tokenizer=args.tokenizer, seed=args.seed,
                            ignore_eos=not args.honor_eos, min_tokens=args.min_tokens)


def lane_spec(args: Any) -> Any:
    """The lanes of a run over agent trees (``replay`` of Weka traces): ``--concurrency``
    lanes (1 without it), the trajectory start, warm-up, wrap, idle cap and duration."""
    from agentic_bench.errors import ConfigError
    from agentic_bench.options.common import parse_trajectory
    from agentic_bench.options.load import LaneSpec

    if args.scenario not in ("single-stream", "concurrency"):
        raise ConfigError(f"--scenario {args.scenario}: agent trees (Weka traces) run in lanes "
                          "as AgentX does: --scenario concurrency --concurrency N (or the "
                          "default single-stream, one lane)")
    if args.rate is not None or args.max_errors is not None:
        raise ConfigError("--rate and --max-errors do not apply to lanes of agent trees")
    if args.workers > 1 or args.ray_address:
        raise ConfigError("agent trees run in one process (a lane holds a whole tree and its "
                          "subagents): drop --workers/--ray-address")
    if args.warmup_requests_per_lane < 1:
        raise ConfigError("--warmup-requests-per-lane must be >= 1")
    if args.gpus < 1:
        raise ConfigError("--gpus must be >= 1")
    if args.idle_gap_cap is not None and args.idle_gap_cap < 0:
        raise ConfigError("--idle-gap-cap must be >= 0 seconds")
    lanes = (args.concurrency or 1) if args.scenario == "concurrency" else 1
    if args.scenario == "single-stream" and args.concurrency not in (None, 1):
        raise ConfigError(f"--concurrency {args.concurrency} with --scenario single-stream: "
                          "pass --scenario concurrency for lanes (--agentx sets it)")
    return LaneSpec(lanes=lanes, trajectory=parse_trajectory(args.trajectory_start),
                    warmup_requests=args.warmup_requests_per_lane,
                    duration_s=args.duration, cut=args.agentx,
                    allow_wrap=args.allow_dataset_wrap, idle_gap_cap_s=args.idle_gap_cap,
                    cache_bust=args.cache_bust != "none", seed=args.seed, grace_s=args.grace,
                    sessions=args.sessions)
