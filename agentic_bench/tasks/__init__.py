"""Benchmark definitions and their registry (entry-point group :data:`GROUP`).

:class:`Task` is the contract a benchmark meets; :func:`discover` lists the installed ones
(:class:`PluginRef` / :class:`TaskRef` entries, nothing imported) and :func:`load_task` loads
one by name, checked against its kind's Protocol. Importing this package is cheap: ``Task``
(which pulls in the harness types) loads on first use.
"""

from typing import Any

from agentic_bench.tasks.registry import GROUP, PluginRef, TaskRef, discover, load_task

__all__ = ["GROUP", "PluginRef", "Task", "TaskRef", "discover", "load_task"]


def __getattr__(name: str) -> Any:
    if name == "Task":
        from agentic_bench.tasks.base import Task

        return Task
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
