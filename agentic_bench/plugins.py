"""Plugins through the ``agentic_bench.plugins`` entry-point group, discovered lazily.

Built-ins register exactly like third-party plugins (this project's pyproject.toml). An entry
point named ``NAME`` (or ``task:NAME``) is a task; ``importer:NAME`` a trace importer
(:mod:`agentic_bench.trace.importers`); ``scorer:NAME``, ``tool_mode:NAME``, ``reporter:NAME``
and ``metric:NAME`` (a latency metric, :mod:`agentic_bench.metrics.declarations`) are the
other kinds. Listing reads only the entry-point metadata; a plugin module is imported
when it is used, and a plugin that fails to load is reported by name without breaking the CLI.

Each kind has one Protocol (:data:`KIND_PROTOCOLS`, in :mod:`.plugin_kinds`); a loaded plugin
object that lacks what its kind needs is refused at load with a :class:`ConfigError` naming the
plugin, its entry point and what is missing — before anything calls it.
At the bottom of the house: every layer may look plugins up here.
"""

from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass
from importlib.metadata import EntryPoint
from typing import Any

from agentic_bench.errors import ConfigError
from agentic_bench.plugin_kinds import KIND_PROTOCOLS, PLUGIN_KINDS, missing_members

GROUP = "agentic_bench.plugins"
"""The entry-point group every plugin registers in (``KIND:NAME = module:object``)."""


@dataclass
class PluginRef:
    """One registered plugin: its kind, its name and the entry point that names its object."""

    kind: str
    name: str
    entry_point: EntryPoint

    @property
    def source(self) -> str:
        """The distribution that registered it (``name version``), else the entry point."""
        dist = self.entry_point.dist
        return f"{dist.name} {dist.version}" if dist is not None else self.entry_point.value

    def load(self) -> Any:
        """The plugin object (a class is instantiated), checked against its kind's Protocol;
        a :class:`ConfigError` naming the plugin when it cannot be imported or lacks what its
        kind needs."""
        where = f"plugin {self.entry_point.name!r} ({self.entry_point.value})"
        try:
            obj = self.entry_point.load()
        except Exception as exc:  # a broken plugin must not break the CLI
            raise ConfigError(f"{where} failed to load: {type(exc).__name__}: {exc}") from exc
        obj = obj() if isinstance(obj, type) else obj
        lacking = missing_members(self.kind, obj)
        if lacking:
            protocol = KIND_PROTOCOLS[self.kind].__name__
            raise ConfigError(f"{where} is not a {self.kind} plugin ({protocol}): it lacks "
                              f"{', '.join(lacking)}")
        return obj

    def summary(self) -> str:
        """The plugin's one-line summary, or ``BROKEN: why`` (listing never fails on a plugin)."""
        try:
            return str(getattr(self.load(), "summary", ""))
        except ConfigError as exc:
            return f"BROKEN: {exc}"


TaskRef = PluginRef  # a task is a plugin of kind "task"


def split_name(entry_name: str) -> tuple[str, str]:
    """``"scorer:exact"`` → ``("scorer", "exact")``; a name without a known prefix is a task."""
    kind, sep, rest = entry_name.partition(":")
    if sep and kind in PLUGIN_KINDS and rest:
        return kind, rest
    return "task", entry_name


def discover_plugins(kind: str | None = None) -> dict[tuple[str, str], PluginRef]:
    """Registered plugins by ``(kind, name)``, from entry-point metadata only (nothing loaded)."""
    out: dict[tuple[str, str], PluginRef] = {}
    for ep in importlib.metadata.entry_points(group=GROUP):
        k, name = split_name(ep.name)
        if kind is None or k == kind:
            out[(k, name)] = PluginRef(k, name, ep)
    return out


def load_plugin(kind: str, name: str) -> Any:
    """Load one plugin; a broken one raises ConfigError naming it (never an import crash)."""
    refs = discover_plugins(kind)
    if (kind, name) not in refs:
        known = ", ".join(sorted(n for _, n in refs)) or "none installed"
        raise ConfigError(f"unknown {kind} plugin {name!r} (known: {known})")
    obj = refs[(kind, name)].load()
    declared = getattr(obj, "kind", kind)
    if declared != kind:
        raise ConfigError(f"plugin {name!r} is registered as {kind} but declares kind "
                          f"{declared!r}")
    return obj


__all__ = ["GROUP", "KIND_PROTOCOLS", "PLUGIN_KINDS", "PluginRef", "TaskRef", "discover_plugins",
           "load_plugin", "split_name"]
