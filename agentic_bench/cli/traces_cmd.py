"""``agentic-bench traces SUBCOMMAND``: tools that work on trace files (``stats`` for now).

Adding a subcommand (e.g. ``traces build``) from another module::

    from agentic_bench.cli.traces_cmd import add_traces_subcommand

    def configure(p: argparse.ArgumentParser) -> None:   # p = the new sub-parser
        p.add_argument(...)
        p.set_defaults(func=main)                       # main(args) -> exit code

    add_traces_subcommand("build", configure, help="build a trace from a task")

and list that module in ``TRACES_MODULES`` below, so it is imported (lazily, stdlib-only at
top level) when the ``traces`` parser is built. A missing module is skipped.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from typing import Any

Configure = Callable[[argparse.ArgumentParser], None]
TRACES_MODULES: tuple[str, ...] = ("agentic_bench.cli.traces_build_cmd",
                                   "agentic_bench.cli.traces_convert_cmd",
                                   "agentic_bench.cli.traces_verify_cmd")
_SUBCOMMANDS: dict[str, tuple[Configure, dict[str, Any]]] = {}


def add_traces_subcommand(name: str, configure: Configure, **parser_kwargs: Any) -> None:
    """Register ``agentic-bench traces NAME``; ``configure`` fills in its parser."""
    _SUBCOMMANDS[name] = (configure, parser_kwargs)


def _configure_stats(p: argparse.ArgumentParser) -> None:
    from agentic_bench.cli.options_command import take_remainder

    take_remainder(p)
    p.set_defaults(func=stats_main)


add_traces_subcommand(
    "stats", _configure_stats, help="sessions, turns, token sizes, tool calls, think time, "
    "prefix sharing", add_help=False, prefix_chars="\x00")  # TracesStatsOptions


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    for name in TRACES_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
    p = sub.add_parser("traces", help="work with trace files (stats, convert, build)",
                       description="Tools for trace files. `agentic-bench traces stats FILE`; "
                       "`traces convert FILE --to weka --out OUT --tokenizer DIR`.")
    tsub = p.add_subparsers(dest="traces_command", metavar="SUBCOMMAND")
    for name, (configure, kwargs) in _SUBCOMMANDS.items():
        configure(tsub.add_parser(name, **kwargs))
    p.set_defaults(func=lambda args: _help(p))


def _help(p: argparse.ArgumentParser) -> int:
    p.print_help()
    return 2


def stats_main(namespace: argparse.Namespace) -> int:
    import json

    from agentic_bench.cli.options_command import parse_command
    from agentic_bench.cli.tool_options import TracesStatsOptions
    from agentic_bench.errors import UsageError
    from agentic_bench.trace.importers import import_file, resolve_format
    from agentic_bench.trace.stats import render_stats, trace_stats

    args = parse_command(TracesStatsOptions, namespace.rest, "traces stats")
    if not args.file.exists():
        raise UsageError(f"{args.file}: no such file or directory")
    if args.block_chars < 1:
        raise UsageError("--block-chars must be >= 1")
    fmt = resolve_format(args.format, args.file)
    if args.cache_capacity and fmt != "weka":
        raise UsageError("--cache-capacity needs prompts given as blocks: a Weka trace")
    if fmt == "weka":  # a corpus is read as a stream; its own figures
        from agentic_bench.options.capacity import parse_capacities
        from agentic_bench.trace.weka import WekaCorpus
        from agentic_bench.trace.weka.stats import CorpusStats, render_corpus_stats

        corpus_stats = CorpusStats(capacities=parse_capacities(args.cache_capacity))
        WekaCorpus(args.file, on_trace=lambda _spot, trace: corpus_stats.add(trace))
        out = {"file": str(args.file), "format": fmt, **corpus_stats.summary()}
        print(json.dumps(out, indent=2) if args.json_output
              else render_corpus_stats(out, f"{args.file} (weka)"), end="" if not args.json_output
              else "\n")
        return 0
    stats = trace_stats(import_file(fmt, args.file), block_chars=args.block_chars)
    stats = {"file": str(args.file), "format": fmt, **stats}
    if args.json_output:
        print(json.dumps(stats, indent=2))
    else:
        print(render_stats(stats, title=f"{args.file} ({fmt})"), end="")
    return 0
