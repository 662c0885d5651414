"""Discover tasks through the ``agentic_bench.plugins`` entry-point group (lazily).

Built-in benchmarks register exactly like third-party plugins. Listing reads only the
entry-point metadata; a plugin module is imported when its task is used, and a plugin that
fails to load is reported by name without breaking the CLI.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from agentic_bench.errors import ConfigError

GROUP = "agentic_bench.plugins"


@dataclass
class TaskRef:
    name: str
    entry_point: EntryPoint

    @property
    def source(self) -> str:
        dist = self.entry_point.dist
        return f"{dist.name} {dist.version}" if dist is not None else self.entry_point.value

    def load(self) -> Any:
        try:
            obj = self.entry_point.load()
        except Exception as exc:
            raise ConfigError(f"plugin {self.name!r} ({self.entry_point.value}) failed to load: "
                              f"{type(exc).__name__}: {exc}") from exc
        return obj() if isinstance(obj, type) else obj


OTHER_KINDS = ("scorer", "tool_mode", "importer", "reporter")


def discover() -> dict[str, TaskRef]:
    """Tasks only: entry points named ``NAME`` or ``task:NAME`` (other kinds are skipped)."""
    out: dict[str, TaskRef] = {}
    for ep in entry_points(group=GROUP):
        kind, _, rest = ep.name.partition(":")
        if rest and kind in OTHER_KINDS:
            continue
        name = rest if (kind == "task" and rest) else ep.name
        out[name] = TaskRef(name, ep)
    return out


def load_task(name: str) -> Any:
    refs = discover()
    if name not in refs:
        known = ", ".join(sorted(refs)) or "none installed"
        raise ConfigError(f"unknown benchmark {name!r} (known: {known}); see `agentic-bench list`")
    return refs[name].load()
