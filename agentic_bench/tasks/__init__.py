"""Benchmark definitions and their registry (entry-point group ``agentic_bench.plugins``).

Importing this package is cheap: ``Task`` (which pulls in the harness types) loads on first use.
"""

from typing import Any

from agentic_bench.tasks.registry import GROUP, PluginRef, TaskRef, discover, load_task

__all__ = ["GROUP", "PluginRef", "Task", "TaskRef", "discover", "load_task"]


def __getattr__(name: str) -> Any:
    if name == "Task":
        from agentic_bench.tasks.base import Task

        return Task
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
