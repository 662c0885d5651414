"""``agentic-bench new-task``: names, templates, and a generated package that passes its tests."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agentic_bench.cli import new_task_cmd
from agentic_bench.errors import ConfigError
from agentic_bench.scaffold import LAYOUT, Names, create, render


@pytest.mark.parametrize("name", ["qa", "my-qa", "tau3-retail", "a1"])
def test_good_names(name: str) -> None:
    names = Names.for_task(name)
    assert names.package == name.replace("-", "_") + "_bench"
    assert names.dist == f"agentic-bench-{name}"
    assert names.class_name.endswith("Task") and names.class_name.isidentifier()


@pytest.mark.parametrize("name", ["", "My-QA", "1qa", "qa-", "q--a", "q_a", "a" * 41, "q a"])
def test_bad_names(name: str) -> None:
    with pytest.raises(ConfigError, match="task name"):
        Names.for_task(name)


@pytest.mark.parametrize("package", ["json", "class", "agentic_bench_x", "not-valid"])
def test_bad_packages(package: str) -> None:
    with pytest.raises(ConfigError, match="package name"):
        Names.for_task("qa", package)


def test_every_template_renders_completely() -> None:
    from importlib.resources import files

    names = Names.for_task("my-qa")
    templates = files("agentic_bench.scaffold") / "templates"
    on_disk = {p.name for p in templates.iterdir() if p.name.endswith(".tmpl")}
    assert on_disk == set(LAYOUT)
    for template in LAYOUT:
        text = render((templates / template).read_text(encoding="utf-8"), names)
        assert "{{" not in text, template


def test_create_refuses_a_non_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "qa").mkdir()
    (tmp_path / "qa" / "keep.txt").write_text("x")
    with pytest.raises(ConfigError, match="not empty"):
        create("qa", tmp_path)
    root, _ = create("qa", tmp_path, force=True)
    assert (root / "keep.txt").exists() and (root / "qa_bench" / "task.py").exists()


def test_cli_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    new_task_cmd.register(parser.add_subparsers())
    args = parser.parse_args(["new-task", "demo", "--dir", str(tmp_path), "--package", "dq"])
    assert args.func(args) == 0
    assert "pip install -e" in capsys.readouterr().out
    text = (tmp_path / "demo" / "pyproject.toml").read_text()
    assert 'demo = "dq.task:task"' in text and '[project.entry-points."agentic_bench.plugins"]' \
        in text


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root, _ = create("gen-check", tmp_path_factory.mktemp("scaffold"))
    return root


def test_generated_package_passes_its_own_tests(generated: Path) -> None:
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                         cwd=generated, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    assert "6 passed" in res.stdout


@pytest.mark.skipif(shutil.which("ruff") is None and not (Path(sys.executable).parent
                                                          / "ruff").exists(),
                    reason="ruff is not installed")
def test_generated_package_is_lint_clean(generated: Path) -> None:
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    res = subprocess.run([ruff, "check", "--no-cache", "."], cwd=generated,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stdout
