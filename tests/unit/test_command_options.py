"""#32: ``sim``, ``record``, ``serve`` and ``rag build-index`` take options models too: flags and
``--help`` generated from the declarations, ``--config FILE``, ``config schema`` — and the proxy
no longer imports the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "agentic_bench", *argv], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)


@pytest.mark.parametrize(("command", "flag"), [
    (["sim"], "--ttft-ms"), (["record"], "--upstream"), (["serve"], "--ctx"),
    (["rag", "build-index"], "--embed-backend"),
])
def test_help_is_the_models_with_config_file(command: list[str], flag: str) -> None:
    res = _cli(*command, "--help")
    assert res.returncode == 0, res.stderr
    assert flag in res.stdout and "--config FILE" in res.stdout


@pytest.mark.parametrize(("name", "field"), [("sim", "ttft_ms"), ("record", "upstream"),
                                             ("serve", "ctx"), ("rag-build-index", "embedder")])
def test_config_schema_covers_every_command(name: str, field: str) -> None:
    res = _cli("config", "schema", name)
    assert res.returncode == 0, res.stderr
    assert field in json.loads(res.stdout)["properties"]


def test_a_config_file_configures_the_simulator(tmp_path: Path) -> None:
    config = tmp_path / "sim.yaml"
    config.write_text("benchmark: sim\nttft-ms: 5\nfail-rate: 2\n")
    res = _cli("config", "check", str(config))
    assert res.returncode == 2 and f"{config}:3: fail-rate: 2.0: expected a probability" in \
        res.stderr, res.stderr
    config.write_text("benchmark: record\nttft-ms: 5\n")
    res = _cli("sim", "--config", str(config))
    assert res.returncode == 2 and "benchmark: record, but this is `sim`" in res.stderr


def test_the_proxy_module_parses_its_own_options_without_the_cli() -> None:
    code = ("import sys; import agentic_bench.proxy.__main__ as m\n"
            "assert not [n for n in sys.modules if n.startswith('agentic_bench.cli')]\n"
            "sys.exit(m.main([]))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, cwd=ROOT)
    assert res.returncode == 2 and "--upstream: required" in res.stderr, res.stderr
