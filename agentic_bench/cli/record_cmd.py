"""``agentic-bench record``: a recording pass-through proxy that writes a trace (its options:
:class:`agentic_bench.options.serving.RecordOptions`)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from agentic_bench.cli.options_command import add_options_command

    add_options_command(sub, "record", "record an agent's calls through an OpenAI-compatible "
                        "proxy").set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from agentic_bench.cli.options_command import parse_command
    from agentic_bench.options.serving import RecordOptions
    from agentic_bench.proxy import ProxyConfig, run_proxy

    options = parse_command(RecordOptions, args.rest, "record")  # URL checked before listening
    return run_proxy(ProxyConfig.from_options(options))
