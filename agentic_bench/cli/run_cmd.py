"""``agentic-bench run BENCHMARK``: run a registered benchmark (built-in or plugin)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "run", help="run a registered benchmark (see `agentic-bench list`)", add_help=False,
        description="Run a benchmark by name. `agentic-bench run BENCHMARK --help` shows its "
        "options.")
    p.add_argument("benchmark", nargs="?", help="benchmark name")
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from agentic_bench.cli.options import add_common_options, execute, run_config
    from agentic_bench.tasks.registry import discover, load_task

    if not args.benchmark or args.benchmark in ("-h", "--help"):
        names = ", ".join(sorted(discover())) or "none installed"
        print(f"usage: agentic-bench run BENCHMARK [options]\nbenchmarks: {names}")
        return 0 if args.benchmark else 2
    task = load_task(args.benchmark)
    parser = argparse.ArgumentParser(prog=f"agentic-bench run {task.name}",
                                     description=task.summary)
    task.add_arguments(parser)
    add_common_options(parser, scenario=task.default_scenario)
    task_args = parser.parse_args(args.rest)
    config = run_config(task_args)
    workload = task.workload(task_args)
    if workload.recipe is None:
        workload.recipe = ("task", task.name, task_args)
    return execute(workload, config, task_args)
