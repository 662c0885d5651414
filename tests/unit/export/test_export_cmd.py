"""``agentic-bench export RUN_DIR --to FORMAT --out PATH``: the command over the exporters
(its parser built here as ``main.py`` builds it, from ``export_cmd.register``)."""

from __future__ import annotations

import argparse
import json
import typing
from collections.abc import Callable
from pathlib import Path

import pytest

from agentic_bench.cli import export_cmd
from agentic_bench.cli.errors import run_command
from agentic_bench.cli.export_options import FORMAT_HELP, ExportFormat
from agentic_bench.export import FORMATS


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agentic-bench")
    export_cmd.register(parser.add_subparsers(dest="command"))
    return parser


def _run(*argv: str) -> int:
    namespace = _parser().parse_args(["export", *argv])
    code: int = run_command(namespace.func, namespace)
    return code


def test_the_formats_are_the_registrys_and_help_explains_each(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert set(typing.get_args(ExportFormat)) == set(FORMATS) == set(FORMAT_HELP)
    with pytest.raises(SystemExit) as done:
        _run("--help")
    assert done.value.code == 0
    text = capsys.readouterr().out
    assert "--to FORMAT" in text and "--out PATH" in text and "RUN_DIR" in text
    for name in FORMATS:
        assert f"{name}:" in text


def test_export_writes_and_says_what(run_folder: Callable[[str], Path], tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report.json"
    assert _run(str(run_folder("single")), "--to", "llmd-report", "--out", str(out)) == 0
    assert json.loads(out.read_text())["version"] == "0.2.1"
    assert f"-> llmd-report: 1 file(s)\n  {out}" in capsys.readouterr().out


def test_what_cannot_be_exported_exits_2_with_the_reason(
        run_folder: Callable[[str], Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "agg.json"
    assert _run(str(run_folder("single")), "--to", "inferencex", "--out", str(out)) == 2
    assert "not an --agentx run" in capsys.readouterr().err and not out.exists()
    assert _run(str(tmp_path / "nowhere"), "--to", "mlperf-viz", "--out", str(out)) == 2
    assert "no such run folder" in capsys.readouterr().err
    with pytest.raises(SystemExit) as done:
        _run(str(tmp_path), "--to", "csv", "--out", str(out))
    assert done.value.code == 2
    assert "invalid choice: 'csv'" in capsys.readouterr().err
