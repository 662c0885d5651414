"""``agentic-bench config check FILE``, ``config show BENCHMARK [OPTIONS]``, ``config schema``.

``schema`` prints the JSON Schema such a file follows (editors validate and complete with it).
``check`` validates a run configuration file without running anything (exit 0, or 2 with the
file, the key's line and what was expected). ``show`` prints the effective options of a run —
defaults, preset, file and command line merged — as a config file that ``run --config`` takes
back unchanged (``config show replay TRACE [OPTIONS]`` for ``replay --config``; such a file
says ``benchmark: replay``); URLs with credentials are redacted, API keys never appear (only the
names of the variables that hold them). See :mod:`agentic_bench.options.files`.
"""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("config", help="check a run configuration file, or show a run's "
                       "effective options", description=_plain(__doc__.split("\n\n")[1]))
    config_sub = p.add_subparsers(dest="config_command", metavar="SUBCOMMAND")
    c = config_sub.add_parser("check", help="validate FILE without running (exit 0 or 2)")
    c.add_argument("file", metavar="FILE", help="YAML or JSON run configuration")
    c.add_argument("--benchmark", metavar="NAME",
                   help="the benchmark it configures, or 'replay' (default: the file's "
                   "'benchmark' key)")
    c.set_defaults(func=check_main)
    s = config_sub.add_parser("show", add_help=False, prefix_chars="\x00",
                              help="print the effective options of `run BENCHMARK [OPTIONS]`",
                              description="Print the effective options of `run BENCHMARK "
                              "[OPTIONS]` (or `replay TRACE [OPTIONS]` with BENCHMARK replay) "
                              "as a configuration file `run --config` takes back unchanged; "
                              "URLs redacted, API keys only by the name of their variable.")
    s.add_argument("benchmark", metavar="BENCHMARK", nargs="?",
                   help="a benchmark, or 'replay'")
    s.add_argument("rest", nargs=argparse.REMAINDER, metavar="OPTIONS",
                   help="its options, as on its command line")
    s.set_defaults(func=show_main)
    j = config_sub.add_parser("schema", help="print the JSON Schema of BENCHMARK's configuration "
                              "files (for editors: yaml-language-server, VS Code)")
    j.add_argument("benchmark", metavar="BENCHMARK", help="a benchmark, or 'replay'")
    j.set_defaults(func=schema_main)
    p.set_defaults(func=lambda args: _usage(p))


def _plain(text: str) -> str:
    """A docstring paragraph as help text: no reStructuredText markup."""
    import re

    text = re.sub(r":mod:`([^`]+)`", r"\1", text)
    return text.replace("``", "'")


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def check_main(args: argparse.Namespace) -> int:
    from agentic_bench.options.files import check_benchmark, read_config

    config = read_config(args.file)
    name = check_benchmark(config, args.benchmark)
    parsed = parse_for(name, ["--config", str(args.file)])
    print(f"{args.file}: ok — {len(config.entries)} options for `{_command(name)}`"
          + (" (--mlperf preset applied where the file is silent)"
             if getattr(parsed, "mlperf", False) else ""))
    return 0


def parse_for(name: str, argv: list[str], combinations: bool = True) -> Any:
    """The validated options of ``run NAME ARGV`` (or of ``replay ARGV`` for ``replay``);
    ``combinations=False``: each option checked alone, not the rules between them."""
    if name == "replay":
        from agentic_bench.cli.replay_cmd import parse_replay_args

        return parse_replay_args(argv, combinations)
    from agentic_bench.cli.run_cmd import parse_task_args
    from agentic_bench.tasks.registry import load_task

    return parse_task_args(load_task(name), argv, combinations)


def _command(name: str) -> str:
    return "replay" if name == "replay" else f"run {name}"


def effective_options(parsed: Any, benchmark: str) -> dict[str, Any]:
    """The options as a config mapping, from their schema: unset (``None``) options left out,
    paths as text, URLs redacted; API keys appear only as the names of their variables."""
    from agentic_bench.options.schema import public_options

    return {"benchmark": benchmark, **public_options(parsed, exclude_none=True)}


def show_main(args: argparse.Namespace) -> int:
    import yaml

    if args.benchmark in (None, "-h", "--help"):
        print("usage: agentic-bench config show BENCHMARK|replay [--config FILE] [OPTIONS...]\n"
              "\nPrint the effective options of `run BENCHMARK [OPTIONS]` (or `replay TRACE "
              "[OPTIONS]`)\nas a configuration file that `run --config` takes back unchanged;"
              " URLs redacted,\nAPI keys only by the name of their variable. Example:\n"
              "  agentic-bench config show replay traces/sample.jsonl --concurrency 4 "
              "--scenario concurrency")
        return 0 if args.benchmark is not None else 2
    parsed = parse_for(args.benchmark, list(args.rest))
    print(yaml.safe_dump(effective_options(parsed, args.benchmark), sort_keys=False,
                         default_flow_style=False), end="")
    return 0


def schema_main(args: argparse.Namespace) -> int:
    import json

    from agentic_bench.options.schema import json_schema

    print(json.dumps(json_schema(model_for(args.benchmark), args.benchmark), indent=2))
    return 0


def model_for(name: str) -> Any:
    """The options model of ``run NAME`` (or of ``replay``)."""
    if name == "replay":
        from agentic_bench.options.common import ReplayCommandOptions

        return ReplayCommandOptions
    from agentic_bench.tasks.registry import load_task, task_options

    return task_options(load_task(name))
