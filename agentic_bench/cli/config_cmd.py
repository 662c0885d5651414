"""``agentic-bench config check FILE``, ``config show BENCHMARK [OPTIONS]``, ``config schema``.

``schema`` prints the JSON Schema such a file follows (editors validate and complete with it).
``check`` validates a run configuration file without running anything (exit 0, or 2 with the
file, the key's line and what was expected). ``show`` prints the effective options of a run —
defaults, preset, file and command line merged — as a config file that ``run --config`` takes
back unchanged (``config show replay TRACE [OPTIONS]`` for ``replay --config``; such a file
says ``benchmark: replay``); URLs with credentials are redacted, API keys never appear (only the
names of the variables that hold them). See :mod:`agentic_bench.options.files`. The commands
``sim``, ``record``, ``serve``, ``rag build-index``, ``compare``, ``report``, ``validate``,
``import``, ``new-task``, ``traces stats|convert|build`` and ``submission pack`` have options
models too (a two-word command as one word: ``rag-build-index``): ``config schema sim``, ``sim
--config FILE``.
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
                   help="the benchmark it configures, or a command: replay, sim, record, "
                   "serve, rag-build-index, compare, ... (default: the file's 'benchmark' "
                   "key)")
    c.set_defaults(func=check_main)
    s = config_sub.add_parser("show", add_help=False, prefix_chars="\x00",
                              help="print the effective options of `run BENCHMARK [OPTIONS]`",
                              description="Print the effective options of `run BENCHMARK "
                              "[OPTIONS]` (or `replay TRACE [OPTIONS]` with BENCHMARK replay) "
                              "as a configuration file `run --config` takes back unchanged; "
                              "URLs redacted, API keys only by the name of their variable.")
    s.add_argument("benchmark", metavar="BENCHMARK", nargs="?",
                   help="a benchmark, or a command: replay, sim, record, serve, "
                   "rag-build-index")
    s.add_argument("rest", nargs=argparse.REMAINDER, metavar="OPTIONS",
                   help="its options, as on its command line")
    s.set_defaults(func=show_main)
    j = config_sub.add_parser("schema", help="print the JSON Schema of BENCHMARK's configuration "
                              "files (for editors: yaml-language-server, VS Code)")
    j.add_argument("benchmark", metavar="BENCHMARK", help="a benchmark, or a command: replay, "
                   "sim, record, serve, rag-build-index")
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
    name = check_benchmark(config, args.benchmark and _command_name(args.benchmark))
    parsed = parse_for(name, ["--config", str(args.file)])
    print(f"{args.file}: ok — {len(config.entries)} options for `{_command(name)}`"
          + (" (--mlperf preset applied where the file is silent)"
             if getattr(parsed, "mlperf", False) else ""))
    return 0


# the commands that are not benchmarks but take options models too (--config FILE included)
COMMAND_MODELS = {
    "sim": "agentic_bench.options.serving:SimOptions",
    "record": "agentic_bench.options.serving:RecordOptions",
    "serve": "agentic_bench.options.serving:ServeOptions",
    "rag build-index": "agentic_bench.tasks.rag_e2e.options:BuildIndexOptions",
    "export": "agentic_bench.cli.export_options:ExportOptions",
    "traces verify": "agentic_bench.cli.traces_verify_options:TracesVerifyOptions",
    **{name: f"agentic_bench.cli.tool_options:{model}" for name, model in (
        ("compare", "CompareOptions"), ("report", "ReportOptions"),
        ("validate", "ValidateOptions"), ("import", "ImportOptions"),
        ("new-task", "NewTaskOptions"), ("traces stats", "TracesStatsOptions"),
        ("traces convert", "TracesConvertOptions"), ("traces build", "TracesBuildOptions"),
        ("submission pack", "SubmissionPackOptions"),
        ("rag sample-layout", "SampleLayoutOptions"))},
}


def _command_name(name: str) -> str:
    """A two-word command as one word (``rag-build-index``, ``traces-stats``) is the command
    (``rag build-index``)."""
    spaced = {key.replace(" ", "-"): key for key in COMMAND_MODELS if " " in key}
    return spaced.get(name, name)


def parse_for(name: str, argv: list[str], combinations: bool = True) -> Any:
    """The validated options of ``run NAME ARGV`` (or of ``replay ARGV`` for ``replay``, of
    ``sim ARGV`` for ``sim``...); ``combinations=False``: each option checked alone, not the
    rules between them."""
    name = _command_name(name)
    if name == "replay":
        from agentic_bench.cli.replay_cmd import parse_replay_args

        return parse_replay_args(argv, combinations)
    if name in COMMAND_MODELS:
        from agentic_bench.options.parser import parse_options

        return parse_options(model_for(name), argv, prog=f"agentic-bench {name}",
                             benchmark=name, combinations=combinations)
    from agentic_bench.cli.run_cmd import parse_task_args
    from agentic_bench.tasks.registry import load_task

    return parse_task_args(load_task(name), argv, combinations)


def _command(name: str) -> str:
    from agentic_bench.options.files import command_of

    return command_of(_command_name(name))


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
    name = _command_name(args.benchmark)
    parsed = parse_for(name, list(args.rest))
    print(yaml.safe_dump(effective_options(parsed, name), sort_keys=False,
                         default_flow_style=False), end="")
    return 0


def schema_main(args: argparse.Namespace) -> int:
    import json

    from agentic_bench.options.schema import json_schema

    name = _command_name(args.benchmark)
    print(json.dumps(json_schema(model_for(name), name), indent=2))
    return 0


def model_for(name: str) -> Any:
    """The options model of ``run NAME`` (or of ``replay``, ``sim``, ``record``, ``serve``,
    ``rag build-index``)."""
    name = _command_name(name)
    if name in COMMAND_MODELS:
        import importlib

        module, _, attr = COMMAND_MODELS[name].partition(":")
        return getattr(importlib.import_module(module), attr)
    if name == "replay":
        from agentic_bench.options.replay_command import ReplayCommandOptions

        return ReplayCommandOptions
    from agentic_bench.tasks.registry import load_task, task_options

    return task_options(load_task(name))
