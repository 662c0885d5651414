"""The distribution name is our own (#41 item 1): `agentic-bench` on PyPI is Alibaba's Abench.

pyproject names `agentic-serving-bench`; the command and the package keep their names; nothing
in the repository tells a user to install the old distribution name.
"""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NAME = "agentic-serving-bench"


def test_pyproject_names_the_new_distribution_and_keeps_the_command() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["name"] == NAME
    assert project["scripts"]["agentic-bench"] == "agentic_bench.cli.main:main"


def test_the_installed_distribution_is_the_new_name() -> None:
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        dist = distribution(NAME)
    except PackageNotFoundError:  # pragma: no cover - an old editable install
        raise AssertionError(f"{NAME} is not installed: run `pip install -e .`") from None
    assert any(ep.name == "agentic-bench" for ep in dist.entry_points
               if ep.group == "console_scripts")


OLD = re.compile(r"pip install[^\n`]*['\"]?agentic-bench(\[|['\"\s`]|$)|"
                 r"(dependencies|requires)\s*=\s*\[[^\]]*\"agentic-bench[\"\[<>=]")


def test_nothing_in_the_repository_claims_the_old_distribution_name() -> None:
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    found = []
    for name in files:
        path = ROOT / name
        if path.suffix not in (".md", ".py", ".toml", ".tmpl", ".sh", ".txt", ".cfg", ".yaml"):
            continue
        if name == "tests/unit/test_distribution_name.py" or not path.is_file():
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace")
                                 .splitlines(), 1):
            if OLD.search(line):
                found.append(f"{name}:{n}: {line.strip()}")
    assert not found, "\n".join(found)


def test_readme_says_why_the_name_differs_from_the_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert NAME in readme and "Abench" in readme
