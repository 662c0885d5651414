"""``agentic-bench traces convert IN --to weka --out OUT``: any content-bearing trace as Weka
traces (token counts and block hashes, no text; agentic_bench/trace/weka/write.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from agentic_bench.cli.traces_cmd import add_traces_subcommand


def _configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", type=Path, metavar="IN",
                   help="trace (native JSONL or any importable format)")
    p.add_argument("--to", required=True, choices=["weka"], help="output format")
    p.add_argument("--out", type=Path, required=True, metavar="OUT",
                   help="a .jsonl corpus (one trace per line), a directory (one .json per "
                   "trace) or a .json file (one session)")
    p.add_argument("--format", default="auto", metavar="FORMAT",
                   help="input format (default auto)")
    p.add_argument("--tokenizer", required=True, metavar="DIR|server",
                   help="the tokenizer of the model the traces will be replayed against: a "
                   "local Hugging Face folder or tokenizer.json, or 'server' with --endpoint")
    p.add_argument("--endpoint", metavar="URL|embedded",
                   help="with --tokenizer server: whose tokenize route (embedded: start the "
                   "packaged llama.cpp endpoint for it)")
    p.add_argument("--block-size", type=int, default=64, metavar="N",
                   help="tokens per hashed block (default 64, as the Weka corpora)")
    p.set_defaults(func=main)


add_traces_subcommand(
    "convert", _configure, help="convert a trace into Weka traces (hash ids, no text)",
    description="Convert a trace with text (native, MLCommons agentic, a recording, ...) into "
    "Weka traces: per request its token counts and chained KV-cache block hashes under the "
    "given tokenizer, timings, subagents — no prompt text — so agent traffic can be shared "
    "without its prompts. Replaying the result writes prompts of exactly the recorded token "
    "counts (docs/agentx.md).")


def main(args: argparse.Namespace) -> int:
    import asyncio

    from agentic_bench.errors import UsageError

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


async def _with_endpoint(args: argparse.Namespace) -> int:
    import os

    from agentic_bench.endpoint.resolve import open_endpoint
    from agentic_bench.synthesis import load_tokenizer

    key = os.environ.get("OPENAI_API_KEY") or None
    async with open_endpoint(args.endpoint, None, key, max_connections=0,
                             request_timeout_s=60.0, warm_connections=0) as endpoint:
        return _convert(args, load_tokenizer("server", endpoint.target, key))


def _convert(args: argparse.Namespace, tokenizer: object) -> int:
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
