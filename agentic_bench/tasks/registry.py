"""Benchmarks (tasks) among the plugins: discover them, load one by name.

The entry-point machinery itself lives in :mod:`agentic_bench.plugins` (re-exported here).
"""

from __future__ import annotations

from typing import Any

from agentic_bench.errors import ConfigError
from agentic_bench.plugins import (
    GROUP,
    PLUGIN_KINDS,
    PluginRef,
    TaskRef,
    discover_plugins,
    load_plugin,
    split_name,
)


def discover() -> dict[str, PluginRef]:
    """Tasks by name."""
    return {name: ref for (_, name), ref in discover_plugins("task").items()}


def task_workload(name: str, args: Any) -> Any:
    """The workload of benchmark ``name`` with options ``args`` (what a worker process builds)."""
    return load_task(name).workload(args)


def task_recipe(name: str, args: Any) -> tuple[Any, ...]:
    """A picklable recipe by which a worker process rebuilds this benchmark's workload."""
    return ("agentic_bench.tasks.registry:task_workload", (name, args), {})


def load_task(name: str) -> Any:
    refs = discover()
    if name not in refs:
        known = ", ".join(sorted(refs)) or "none installed"
        raise ConfigError(f"unknown benchmark {name!r} (known: {known}); see `agentic-bench list`")
    return refs[name].load()


__all__ = ["GROUP", "PLUGIN_KINDS", "PluginRef", "TaskRef", "discover", "discover_plugins",
           "load_plugin", "load_task", "split_name", "task_recipe", "task_workload"]
