"""``agentic-bench import FORMAT IN --out OUT``: convert a public trace format into a trace."""

from __future__ import annotations

import argparse
import sys

FORMAT_HELP = ("mlcommons-agentic, mooncake, otel-genai, sglang-agentic, sharegpt, native, or "
               "auto (guess from the file)")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from agentic_bench.cli.options_command import add_options_command

    parser = add_options_command(
        sub, "import",
        "convert a foreign trace (MLCommons, Mooncake, OTel, SGLang, "
        "ShareGPT)")
    parser.set_defaults(func=main)


def main(namespace: argparse.Namespace) -> int:
    import itertools
    import os

    from agentic_bench.cli.options_command import parse_command
    from agentic_bench.cli.tool_options import ImportOptions
    from agentic_bench.errors import UsageError
    from agentic_bench.trace.importers import import_file, resolve_format
    from agentic_bench.trace.jsonl import session_to_json

    args = parse_command(ImportOptions, namespace.rest, "import")
    if not args.input.is_file():
        raise UsageError(f"{args.input}: no such file")
    fmt = resolve_format(args.format, args.input)
    sessions = import_file(fmt, args.input)
    if args.limit is not None:
        sessions = itertools.islice(sessions, max(0, args.limit))
    tmp = args.out.with_name(f".{args.out.name}.tmp{os.getpid()}")
    n = turns = requests = 0
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            for session in sessions:
                fh.write(session_to_json(session) + "\n")
                n += 1
                turns += len(session.turns)
                requests += session.llm_step_count()
        if n == 0:
            raise UsageError(f"{args.input}: no sessions found (format {fmt})")
        os.replace(tmp, args.out)
    finally:
        tmp.unlink(missing_ok=True)
    print(f"{args.input} ({fmt}) -> {args.out}: {n} session(s), {turns} turn(s), "
          f"{requests} request(s)", file=sys.stderr if str(args.out) == "-" else sys.stdout)
    return 0
