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


def load_task(name: str) -> Any:
    refs = discover()
    if name not in refs:
        known = ", ".join(sorted(refs)) or "none installed"
        raise ConfigError(f"unknown benchmark {name!r} (known: {known}); see `agentic-bench list`")
    return refs[name].load()


__all__ = ["GROUP", "PLUGIN_KINDS", "PluginRef", "TaskRef", "discover", "discover_plugins",
           "load_plugin", "load_task", "split_name"]
