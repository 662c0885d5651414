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


def test_flags(tmp_path: Path) -> None:
    """The words after ``serve`` reach its options model (flags or ``--config FILE``)."""
    import pytest

    from agentic_bench.cli.options_command import parse_command
    from agentic_bench.errors import ConfigError
    from agentic_bench.options.serving import ServeOptions

    argv = ["serve", "--port", "8901", "--host", "0.0.0.0", "--ctx", "2048", "--threads", "2"]
    args = parse(argv)
    assert args.func is serve_cmd.run
    options = parse_command(ServeOptions, args.rest, "serve")
    assert (options.port, options.host, options.ctx, options.threads) == \
        (8901, "0.0.0.0", 2048, 2)
    options = parse_command(ServeOptions, parse(["serve"]).rest, "serve")
    assert options.port is None and options.ctx is None and options.threads is None
    assert options.server == "llama-cpp-python"
    config = tmp_path / "serve.yaml"
    config.write_text("benchmark: serve\nctx: 1024\nport: 8902\n")
    options = parse_command(ServeOptions, ["--config", str(config), "--port", "8903"], "serve")
    assert (options.ctx, options.port) == (1024, 8903)  # the command line wins over the file
    with pytest.raises(ConfigError, match="--ctx: 0: expected a positive integer"):
        parse_command(ServeOptions, ["--ctx", "0"], "serve")


def test_module_imports_nothing_heavy() -> None:
    code = (
        "import sys; import agentic_bench.cli.serve_cmd\n"
        "heavy = {'llama_cpp', 'aiohttp', 'agentic_bench.endpoint.llama_server'}\n"
        "heavy &= set(sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_serve_runs_either_server(tmp_path: Path) -> None:
    """``serve`` starts llama-cpp-python's server (the default, with our tool routing) or
    llama.cpp's own (``--server llama-server --slots N``: the model's context per slot)."""
    import pytest

    from agentic_bench.cli.options_command import parse_command
    from agentic_bench.endpoint.llama_cpp_server import LlamaCppServer
    from agentic_bench.endpoint.llama_server import LlamaServer
    from agentic_bench.errors import ConfigError
    from agentic_bench.options.serving import ServeOptions

    def server(*argv: str) -> object:
        return serve_cmd._server(parse_command(ServeOptions, list(argv), "serve"))

    default = server()
    assert type(default) is LlamaServer and default.n_ctx == 4096
    cpp = server("--server", "llama-server", "--slots", "3")
    assert isinstance(cpp, LlamaCppServer) and cpp.slots == 3 and cpp.n_ctx == 8192
    assert server("--server", "llama-server", "--ctx", "2048").n_ctx == 2048  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match="--slots is llama-server's"):
        server("--slots", "2")
    with pytest.raises(ConfigError, match="--chat-format is llama-cpp-python's"):
        server("--server", "llama-server", "--chat-format", "chatml")
