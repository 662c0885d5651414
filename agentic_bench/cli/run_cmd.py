"""``agentic-bench run BENCHMARK``: run a registered benchmark (built-in or plugin)."""

from __future__ import annotations

import argparse
from typing import Any

from agentic_bench.tasks.registry import PluginRef, discover, load_task, task_recipe


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "run", help="run a registered benchmark (see `agentic-bench list`)", add_help=False,
        description="Run a benchmark by name. `agentic-bench run BENCHMARK --help` shows its "
        "options.")
    p.add_argument("-h", "--help", action="store_true", dest="help_requested",
                   help="list the benchmarks; `run BENCHMARK --help` shows one's options")
    p.add_argument("--config", dest="run_config_file", metavar="FILE",
                   help="a run configuration file naming its benchmark ('benchmark: NAME')")
    p.add_argument("benchmark", nargs="?", help="benchmark name")
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(func=main)


def _usage(tasks: dict[str, PluginRef]) -> str:
    lines = ["usage: agentic-bench run BENCHMARK [options]", "",
             "Run a registered benchmark (built-in or plugin) and write records.jsonl, "
             "summary.json,", "summary.txt and report.html to --out DIR.", "", "benchmarks:"]
    lines += [f"  {name:<16} {ref.summary()}" for name, ref in sorted(tasks.items())]
    if not tasks:
        lines.append("  none installed")
    lines += ["", "`agentic-bench run BENCHMARK --help` shows a benchmark's options "
              "(--quick, --endpoint,", "--scenario, --slo, --out, --resume, ...).",
              "`agentic-bench run --config FILE.yaml` takes them from a file (configs/ has "
              "examples)."]
    return "\n".join(lines)


def parse_task_args(task: Any, argv: list[str], combinations: bool = True) -> Any:
    """A benchmark's validated, frozen options from ``argv`` (defaults < preset < ``--config
    FILE`` < command line): :func:`agentic_bench.tasks.registry.parse_task_options`."""
    from agentic_bench.cli.options import with_resumed_options
    from agentic_bench.tasks.registry import parse_task_options

    return parse_task_options(task, with_resumed_options(list(argv)), combinations)


def main(args: argparse.Namespace) -> int:
    from agentic_bench.options.common import common
    from agentic_bench.run.command import execute

    rest, benchmark = list(args.rest), args.benchmark
    if args.run_config_file:  # `run --config FILE [BENCHMARK] [OPTIONS]`
        from agentic_bench.options.files import check_benchmark, read_config

        benchmark = check_benchmark(read_config(args.run_config_file), benchmark)
        rest = ["--config", args.run_config_file, *rest]
    if args.help_requested and benchmark:  # `run --config FILE --help`: that benchmark's
        rest = ["--help"]
    elif args.help_requested or not benchmark:
        print(_usage(discover()))
        return 0 if args.help_requested else 2
    task = load_task(benchmark)
    task_args = parse_task_args(task, rest)
    workload = task.workload(task_args)
    if workload.recipe is None:
        workload.recipe = task_recipe(task.name, task_args)
    return execute(workload, common(task_args), task.name)
