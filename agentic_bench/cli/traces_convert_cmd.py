"""``agentic-bench traces convert IN --to weka --out OUT``: any content-bearing trace as Weka
traces (token counts and block hashes, no text; agentic_bench/trace/weka/write.py)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from agentic_bench.cli.traces_cmd import add_traces_subcommand

if TYPE_CHECKING:
    from agentic_bench.cli.tool_options import TracesConvertOptions


def _configure(p: argparse.ArgumentParser) -> None:
    from agentic_bench.cli.options_command import take_remainder

    take_remainder(p)
    p.set_defaults(func=main)


add_traces_subcommand(
    "convert", _configure, help="convert a trace into Weka traces (hash ids, no text)",
    add_help=False, prefix_chars="\x00")  # TracesConvertOptions


def main(namespace: argparse.Namespace) -> int:
    import asyncio

    from agentic_bench.cli.options_command import parse_command
    from agentic_bench.cli.tool_options import TracesConvertOptions
    from agentic_bench.errors import UsageError

    args = parse_command(TracesConvertOptions, namespace.rest, "traces convert")
    if args.block_size < 1:
        raise UsageError("--block-size must be >= 1")
    if not args.input.exists():
        raise UsageError(f"{args.input}: no such file")
    if args.tokenizer != "server":
        from agentic_bench.synthesis import load_tokenizer

        return _convert(args, load_tokenizer(args.tokenizer))
    if not args.endpoint:
        raise UsageError("--tokenizer server needs --endpoint URL (or embedded)")
    return asyncio.run(_with_endpoint(args))


async def _with_endpoint(args: TracesConvertOptions) -> int:
    import os

    from agentic_bench.endpoint.resolve import open_endpoint
    from agentic_bench.synthesis import load_tokenizer

    key = os.environ.get("OPENAI_API_KEY") or None
    async with open_endpoint(args.endpoint or "embedded", None, key, max_connections=0,
                             request_timeout_s=60.0, warm_connections=0) as endpoint:
        return _convert(args, load_tokenizer("server", endpoint.target, key))


def _convert(args: TracesConvertOptions, tokenizer: object) -> int:
    import json
    import os
    import re

    from agentic_bench.errors import UsageError
    from agentic_bench.trace.importers import import_file, resolve_format
    from agentic_bench.trace.weka.write import sessions_to_weka

    fmt = resolve_format(args.format, args.input)
    if fmt == "weka":
        raise UsageError(f"{args.input} is already in the Weka format")
    traces = list(sessions_to_weka(import_file(fmt, args.input), tokenizer,  # type: ignore[arg-type]
                                   args.block_size))
    if not traces:
        raise UsageError(f"{args.input}: no sessions found")
    out: Path = args.out
    if out.suffix == ".json":
        if len(traces) != 1:
            raise UsageError(f"{args.input} holds {len(traces)} sessions: write them to a "
                             ".jsonl corpus or a directory")
        out.write_text(json.dumps(traces[0]) + "\n", encoding="utf-8")
    elif out.suffix == ".jsonl":
        tmp = out.with_name(f".{out.name}.tmp{os.getpid()}")
        tmp.write_text("".join(json.dumps(t) + "\n" for t in traces), encoding="utf-8")
        os.replace(tmp, out)
    else:
        out.mkdir(parents=True, exist_ok=True)
        for trace in traces:
            name = re.sub(r"[^A-Za-z0-9_.-]+", "_", trace["id"])[:120] or "trace"
            (out / f"{name}.json").write_text(json.dumps(trace) + "\n", encoding="utf-8")
    rows = sum(sum(1 + len(e.get("requests", [])) - (e["type"] == "subagent")
                   for e in t["requests"]) for t in traces)
    print(f"{args.input} ({fmt}) -> {out}: {len(traces)} Weka trace(s), {rows} request(s)")
    return 0
