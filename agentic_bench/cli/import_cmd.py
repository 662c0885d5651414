"""``agentic-bench import FORMAT PATH... --out OUT``: convert public trace formats into a trace."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from agentic_bench.cli.options_command import add_options_command

    parser = add_options_command(
        sub, "import",
        "convert agent logs and foreign traces (Claude Code, Codex, TraceLab, ATIF, Dynamo, "
        "LangSmith, Abench, MLCommons, Mooncake, OTel, SGLang, ShareGPT, Weka)")
    parser.set_defaults(func=main)


def main(namespace: argparse.Namespace) -> int:
    import itertools
    import os
    from collections.abc import Iterator

    from agentic_bench.cli.options_command import parse_command
    from agentic_bench.cli.tool_options import ImportOptions
    from agentic_bench.errors import UsageError
    from agentic_bench.trace.importers import import_file, resolve_format, unique_ids
    from agentic_bench.trace.jsonl import session_to_json
    from agentic_bench.trace.model import Session

    args = parse_command(ImportOptions, namespace.rest, "import")
    missing = [str(p) for p in args.inputs if not p.exists()]
    if missing:
        raise UsageError(f"{', '.join(missing)}: no such file or directory")
    formats = [resolve_format(args.format, path) for path in args.inputs]  # all before any read

    def every_session() -> Iterator[Session]:
        for fmt, path in zip(formats, args.inputs, strict=True):
            yield from import_file(fmt, path)

    sessions: Iterator[Session] = unique_ids(every_session())
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
        named = ", ".join(str(p) for p in args.inputs)
        if n == 0:
            raise UsageError(f"{named}: no sessions found (format {', '.join(set(formats))})")
        os.replace(tmp, args.out)
    finally:
        tmp.unlink(missing_ok=True)
    label = formats[0] if len(set(formats)) == 1 else "mixed: " + ", ".join(sorted(set(formats)))
    print(f"{named} ({label}) -> {args.out}: {n} session(s), {turns} turn(s), "
          f"{requests} request(s)", file=sys.stderr if str(args.out) == "-" else sys.stdout)
    return 0
