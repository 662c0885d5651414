"""Options shared by ``replay`` and ``run``, and their translation into a RunConfig."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

SCENARIO_CHOICES = ("single-stream", "multi-stream", "server", "offline", "concurrency",
                    "trace-timed", "interactive")


def add_common_options(p: argparse.ArgumentParser, scenario: str = "single-stream") -> None:
    g = p.add_argument_group("endpoint")
    g.add_argument("--endpoint", default="embedded", metavar="URL|embedded|inproc",
                   help="OpenAI-compatible base URL (http://host:port/v1; /v1 is added when "
                   "missing), 'embedded' (default: start the packaged llama.cpp server) or "
                   "'inproc' (the same model in-process, no HTTP)")
    g.add_argument("--model", help="model name to request (default: the first one the endpoint "
                   "lists)")
    g.add_argument("--api-key-env", default="OPENAI_API_KEY", metavar="VAR",
                   help="environment variable holding the API key (never stored)")
    g.add_argument("--request-timeout", type=float, default=300.0, metavar="S",
                   help="per-request timeout in seconds (default 300)")
    g.add_argument("--retries", type=int, default=0, metavar="N",
                   help="retry a failed request up to N times (attempts are recorded)")
    g.add_argument("--max-tokens", type=int, metavar="N", help="max_tokens sent with each call")
    g.add_argument("--temperature", type=float, metavar="T", help="temperature for each call")
    g.add_argument("--session-header", action="append", default=[], metavar="NAME",
                   help="send each session's id in this HTTP header on every request of the "
                   "session (repeatable; X-Session-ID is the usual name), so a KV-cache-aware "
                   "router keeps a conversation on one replica")
    g.add_argument("--transport", choices=("raw", "aiohttp"),
                   help="HTTP client: raw (default: timestamps in the socket's read "
                   "callback) or aiohttp (to compare, or if a server's framing trips the raw "
                   "client); also $AGENTIC_BENCH_TRANSPORT. docs/transport.md")
    g.add_argument("--session-user", action="store_true",
                   help="also send each session's id as the request body's OpenAI 'user' "
                   "field (for routers that key on it)")
    g = p.add_argument_group("load")
    g.add_argument("--scenario", choices=SCENARIO_CHOICES, default=scenario,
                   help=f"load scenario (default {scenario}); see `agentic-bench list`")
    g.add_argument("--rate", type=float, metavar="R", help="server: sessions per second")
    g.add_argument("--concurrency", type=int, metavar="N",
                   help="streams for multi-stream/concurrency; in-flight cap for offline/server")
    g.add_argument("--sessions", type=int, metavar="N",
                   help="sessions to issue (cycling through the trace; default: one pass)")
    g.add_argument("--duration", type=float, metavar="S", help="stop issuing after S seconds")
    g.add_argument("--max-errors", type=int, metavar="N", help="stop issuing after N errors")
    g.add_argument("--seed", type=int, default=42, help="seed for arrival schedules (42)")
    g.add_argument("--sweep", metavar="KEY=V1,V2,...",
                   help="run at each point (rate=1,2,4 or concurrency=1,4,16) and write "
                   "sweep.json/sweep.html: a throughput-latency curve with the knee marked")
    g.add_argument("--search", metavar="KEY=LO:HI",
                   help="capacity under SLO: find the largest concurrency (or rate) in "
                   "[LO, HI] at which the goodput fraction (sessions meeting every --slo) "
                   "stays >= --search-fraction, by doubling from LO then bisection; writes "
                   "search.json and sweep.html. Needs a latency --slo")
    g.add_argument("--search-fraction", type=float, default=0.95, metavar="F",
                   help="--search: goodput fraction a load must keep (default 0.95)")
    g.add_argument("--search-resolution", type=float, metavar="R",
                   help="--search: stop bisecting when the bracket is this narrow (default 1 "
                   "for concurrency, 5%% of LO for a rate)")
    g.add_argument("--search-repeats", type=int, default=1, metavar="N",
                   help="--search: runs per point, decided on the median fraction (default 1)")
    g.add_argument("--workers", type=int, default=1, metavar="N",
                   help="shard sessions over N local worker processes (one event loop each)")
    g.add_argument("--ray-address", metavar="ADDR",
                   help="run the shards as Ray actors on this cluster ('auto' = local one); "
                   "needs `pip install agentic-bench[distributed]`")
    g.add_argument("--workers-per-node", type=int, metavar="N",
                   help="with --ray-address: at most N shard actors per node")
    g.add_argument("--grace", type=float, default=30.0, metavar="S",
                   help="on Ctrl-C, wait this long for in-flight sessions (default 30)")
    g = p.add_argument_group("MLPerf LoadGen (optional: pip install 'agentic-bench[loadgen]')")
    g.add_argument("--loadgen", choices=("mlperf",),
                   help="let MLPerf LoadGen issue the sessions (one query = one session) "
                   "instead of our scheduler; scenarios offline, server, single-stream, "
                   "multi-stream, interactive; see docs/loadgen.md")
    g.add_argument("--target-qps", type=float, metavar="Q",
                   help="LoadGen server/interactive: target queries per second "
                   "(offline: expected QPS)")
    g.add_argument("--loadgen-conf", type=Path, metavar="FILE",
                   help="user.conf-style LoadGen settings (model.scenario.key = value), read "
                   "over LoadGen's built-in mlperf.conf")
    g.add_argument("--loadgen-mode", choices=("performance", "accuracy"), default="performance",
                   help="performance (default) or accuracy: every sample once, "
                   "mlperf_log_accuracy.json, scored by the benchmark's scorer")
    g.add_argument("--loadgen-model", metavar="NAME",
                   help="model key for mlperf.conf/user.conf lookups (default: the benchmark "
                   "name), e.g. llama2-70b")
    g = p.add_argument_group("replay")
    g.add_argument("--history", choices=("recorded", "live"), default="recorded",
                   help="recorded: send recorded history, score but do not feed back the reply; "
                   "live: feed replies back (default recorded)")
    g.add_argument("--think-time", default="recorded", metavar="POLICY",
                   help="recorded | scaled:<factor> | none — user think time and recorded "
                   "tool/retrieve/rerank durations (default recorded)")
    g.add_argument("--turn-timeout", type=float, metavar="S", help="per-turn timeout in seconds")
    g.add_argument("--salt", action="store_true",
                   help="give each session a unique prefix so a server cache cannot serve repeats")
    g = p.add_argument_group("verdict and output")
    g.add_argument("--slo", action="append", metavar="KEY=VALUE",
                   help="constraint, repeatable: ttft_p99_ms, tpot_p99_ms, turn_p90_ms, "
                   "min_duration_s, min_sessions, accuracy")
    g.add_argument("--out", type=Path, metavar="DIR",
                   help="output directory (default results/<benchmark>-<timestamp>/)")
    g.add_argument("--resume", type=Path, metavar="DIR",
                   help="continue an interrupted run in DIR (same options): sessions already "
                   "complete are skipped and the summary covers the whole run")
    g.add_argument("--overwrite", action="store_true",
                   help="--out already holds a run: move its files into DIR/replaced-<time>/ "
                   "and start anew (without it such a folder is refused, so two runs never "
                   "mix)")
    g.add_argument("--retry-errors", action="store_true",
                   help="with --resume: also run again the sessions that ended in an error "
                   "(their old records are kept in records.before-resume-N.jsonl)")
    g.add_argument("--quiet", action="store_true", help="no progress and no summary on stdout")


def run_config(args: argparse.Namespace) -> Any:
    """Build a RunConfig from parsed options (imports the harness lazily)."""
    import secrets

    from agentic_bench.errors import ConfigError
    from agentic_bench.load.spec import LoadSpec
    from agentic_bench.metrics.verdict import parse_slos
    from agentic_bench.replay.think import ThinkPolicy
    from agentic_bench.run_config import RunConfig
    from agentic_bench.run_options import ReplayOptions
    from agentic_bench.transport.session_headers import check_names

    overrides: dict[str, Any] = {}
    if args.max_tokens is not None:
        overrides["max_tokens"] = args.max_tokens
    if args.temperature is not None:
        overrides["temperature"] = args.temperature
    rate, concurrency = args.rate, args.concurrency
    if getattr(args, "sweep", None):  # checked now; each point replaces the swept value
        from agentic_bench.metrics.sweep import parse_sweep

        key, values = parse_sweep(args.sweep)
        if key == "rate":
            rate = values[0]
        else:
            concurrency = int(values[0])
    search = search_spec(args)  # checked now; each probe replaces the searched value
    if search is not None and search.key == "rate":
        rate = search.lo
    elif search is not None:
        concurrency = int(search.lo)
    loadgen = None
    if args.loadgen == "mlperf":
        from agentic_bench.loadgen.options import LoadgenOptions, require_loadgen

        if args.workers > 1 or args.ray_address or args.resume or getattr(args, "sweep", None):
            raise ConfigError("--loadgen mlperf runs once in one process: drop --workers, "
                              "--ray-address, --resume and --sweep")
        require_loadgen()
        loadgen = LoadgenOptions(scenario=args.scenario, mode=args.loadgen_mode,
                                 target_qps=args.target_qps, conf=args.loadgen_conf,
                                 model=args.loadgen_model).check()
    elif (args.scenario == "interactive" or args.target_qps is not None or args.loadgen_conf
          or args.loadgen_mode != "performance" or args.loadgen_model):
        raise ConfigError("--scenario interactive, --target-qps, --loadgen-conf, "
                          "--loadgen-mode and --loadgen-model need --loadgen mlperf")
    retry_errors = bool(getattr(args, "retry_errors", False))
    if retry_errors and args.resume is None:
        raise ConfigError("--retry-errors goes with --resume DIR (the run whose errors to retry)")
    load = LoadSpec(scenario=args.scenario, rate=rate, concurrency=concurrency,
                    sessions=args.sessions, duration_s=args.duration, max_errors=args.max_errors,
                    seed=args.seed, grace_s=args.grace)
    if loadgen is None:
        load.check()
    options = ReplayOptions(
        model=args.model or "", history=args.history, think=ThinkPolicy.parse(args.think_time),
        overrides=overrides, request_timeout_s=args.request_timeout,
        turn_timeout_s=args.turn_timeout, salt=secrets.token_hex(4) if args.salt else None,
        retries=args.retries,
        session_headers=check_names(getattr(args, "session_header", None) or []),
        session_user=bool(getattr(args, "session_user", False)))
    return RunConfig(endpoint=args.endpoint, model=args.model, api_key_env=args.api_key_env,
                     load=load, options=options, slos=parse_slos(args.slo),
                     out=args.resume or args.out, resume=args.resume is not None,
                     retry_errors=retry_errors, overwrite=bool(getattr(args, "overwrite", False)),
                     quiet=args.quiet, workers=args.workers, ray_address=args.ray_address,
                     workers_per_node=args.workers_per_node, loadgen=loadgen,
                     transport=getattr(args, "transport", None))


def execute(workload: Any, config: Any, args: argparse.Namespace) -> int:
    """Run once, or once per sweep point; print the result; return the exit code."""
    if getattr(args, "search", None):
        return _search(workload, config, args)
    if getattr(args, "sweep", None):
        from agentic_bench.metrics.sweep import parse_sweep
        from agentic_bench.sweep_run import run_sweep

        key, values = parse_sweep(args.sweep)
        sweep = run_sweep(workload, config, key, values)
        if not args.quiet:
            knee = sweep["knee"]
            print(f"sweep: {len(values)} points, knee "
                  f"{'at ' + key + '=' + format(knee[key], 'g') if knee else 'not found'}; "
                  f"{sweep['out_dir']}/sweep.html")
        return 0 if all(p["result"] == "VALID" for p in sweep["points"]) else 3
    from agentic_bench.bench import run_workload

    return finish(run_workload(workload, config), args.quiet)


def search_spec(args: argparse.Namespace) -> Any:
    """The parsed ``--search``, or None; bad values raise before anything is sent."""
    if not getattr(args, "search", None):
        return None
    from agentic_bench.capacity_search import parse_search
    from agentic_bench.errors import ConfigError

    if getattr(args, "sweep", None):
        raise ConfigError("--search and --sweep: choose one")
    return parse_search(args.search, args.search_fraction, args.search_resolution,
                        args.search_repeats)


def _search(workload: Any, config: Any, args: argparse.Namespace) -> int:
    from agentic_bench.capacity_search import run_search

    result = run_search(workload, config, search_spec(args))
    if not args.quiet:
        cap = result["capacity"]
        print(f"capacity: {result['key']}={'-' if cap is None else format(cap, 'g')} "
              f"({result['capacity_note']}; {len(result['points'])} runs); "
              f"{result['out_dir']}/search.json")
    return 0 if result["capacity"] is not None else 3


def finish(summary: dict[str, Any], quiet: bool) -> int:
    from agentic_bench.reporting.summary_text import render_text

    if not quiet:
        print(render_text(summary), end="")
        print(f"outputs: {summary.get('out_dir')}/")
    return 0 if summary["result"] == "VALID" else 3
