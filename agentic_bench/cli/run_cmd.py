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


def parse_task_args(task: Any, argv: list[str]) -> argparse.Namespace:
    """A benchmark's options from ``argv``, merged lowest first: the defaults, a preset the
    task offers (``preset_defaults(args)``: rag-e2e's ``--mlperf``), a ``--config FILE`` (checked
    strictly: :mod:`agentic_bench.config_file`), the command line."""
    from agentic_bench.cli.options import add_common_options
    from agentic_bench.config_file import check_benchmark, config_defaults, read_config

    parser = argparse.ArgumentParser(prog=f"agentic-bench run {task.name}",
                                     description=task.summary)
    task.add_arguments(parser)
    add_common_options(parser, scenario=task.default_scenario)
    parser.add_argument_group("configuration file").add_argument(
        "--config", metavar="FILE", help="options from a YAML or JSON file (keys: these "
        "options, e.g. max-rounds: 2; `agentic-bench config check FILE` validates one); the "
        "command line wins over the file, the file over a preset")
    parsed = parser.parse_args(argv)
    from_file: dict[str, Any] = {}
    if parsed.config:
        config = read_config(parsed.config)
        check_benchmark(config, task.name)
        from_file = config_defaults(parser, config)
        parser.set_defaults(**from_file)
        parsed = parser.parse_args(argv)
    preset = getattr(task, "preset_defaults", None)
    defaults = {k: v for k, v in (preset(parsed) if preset is not None else {}).items()
                if k not in from_file}
    if defaults:
        parser.set_defaults(**defaults)
        parsed = parser.parse_args(argv)
    return parsed


def main(args: argparse.Namespace) -> int:
    from agentic_bench.cli.options import execute, run_config

    rest = list(args.rest)
    if args.run_config_file:  # `run --config FILE [BENCHMARK] [OPTIONS]`
        from agentic_bench.config_file import check_benchmark, read_config

        args.benchmark = check_benchmark(read_config(args.run_config_file), args.benchmark)
        rest = ["--config", args.run_config_file, *rest]
    if args.help_requested or not args.benchmark:
        print(_usage(discover()))
        return 0 if args.help_requested else 2
    task = load_task(args.benchmark)
    task_args = parse_task_args(task, rest)
    config = run_config(task_args)
    workload = task.workload(task_args)
    if workload.recipe is None:
        workload.recipe = task_recipe(task.name, task_args)
    return execute(workload, config, task_args)
