from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from agentic_bench.cli import serve_cmd

ROOT = Path(__file__).resolve().parents[3]


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    serve_cmd.register(parser.add_subparsers(dest="command"))
    return parser.parse_args(argv)


def test_flags() -> None:
    args = parse(
        ["serve", "--port", "8901", "--host", "0.0.0.0", "--ctx", "2048", "--threads", "2"]
    )
    assert (args.port, args.host, args.ctx, args.threads) == (8901, "0.0.0.0", 2048, 2)
    assert args.func is serve_cmd.run
    args = parse(["serve"])
    assert args.port is None and args.ctx == 4096 and args.threads is None


def test_module_imports_nothing_heavy() -> None:
    code = (
        "import sys; import agentic_bench.cli.serve_cmd\n"
        "heavy = {'llama_cpp', 'aiohttp', 'agentic_bench.endpoint.llama_server'}\n"
        "heavy &= set(sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
