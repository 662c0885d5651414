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
    assert not options.no_tool_routing and options.slots == 1
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


def test_serve_runs_llama_server_behind_the_routing(tmp_path: Path) -> None:
    """``serve`` starts llama.cpp's ``llama-server`` (the model's context per slot, ``--slots``)
    behind our tool-call routing; ``--no-tool-routing`` serves it alone."""
    from agentic_bench.cli.options_command import parse_command
    from agentic_bench.endpoint.llama_server import LlamaServer
    from agentic_bench.options.serving import ServeOptions

    def server(*argv: str) -> LlamaServer:
        made = serve_cmd._server(parse_command(ServeOptions, list(argv), "serve"))
        assert isinstance(made, LlamaServer)
        return made

    default = server()
    assert default.n_ctx == 8192 and default.slots == 1 and default.tool_routing
    three = server("--slots", "3", "--no-tool-routing")
    assert three.slots == 3 and not three.tool_routing
    assert server("--ctx", "2048", "--port", "8904").n_ctx == 2048


def test_removed_server_and_chat_format_are_refused_with_what_to_use() -> None:
    """An old ``serve`` command line gets a usage error naming the replacement, not a trace."""
    import pytest

    from agentic_bench.errors import ConfigError

    def run(*argv: str) -> int:
        return serve_cmd.run(parse(["serve", *argv]))

    with pytest.raises(ConfigError, match=r"--server was removed on 2026-12-06.*llama-server") \
            as caught:
        run("--server", "llama-cpp-python")
    assert "--no-tool-routing" in str(caught.value)
    with pytest.raises(ConfigError, match="--server was removed"):
        run("--port", "0", "--server=llama-server")
    with pytest.raises(ConfigError, match="--chat-format was removed"):
        run("--chat-format", "chatml")


def test_old_serve_command_line_exits_2_with_the_message() -> None:
    res = subprocess.run([sys.executable, "-m", "agentic_bench", "serve", "--server",
                          "llama-cpp-python"], capture_output=True, text=True, cwd=ROOT,
                         timeout=120)
    assert res.returncode == 2, res.stderr
    assert "removed on 2026-12-06" in res.stderr and "Traceback" not in res.stderr
