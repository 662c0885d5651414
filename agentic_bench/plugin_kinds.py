"""One Protocol per plugin kind: what a plugin object must offer, checked when it loads.

:class:`~agentic_bench.plugins.PluginRef.load` refuses an object that lacks a member its
kind's Protocol declares (:func:`missing_members`), so a plugin registered under the wrong kind,
or one missing a method, fails at load with a message naming it and what it lacks — not later,
deep inside a run. The Protocols name only what the harness calls; the full task contract (the
types of ``options`` and ``workload``) is :class:`agentic_bench.tasks.base.Task`. This module
sits at the bottom of the house beside :mod:`agentic_bench.plugins`: it imports nothing here.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol


class TaskPlugin(Protocol):
    """``task``: a benchmark. ``workload(options)`` returns the
    :class:`~agentic_bench.contracts.Workload` the harness runs; its options are declared by
    ``options`` (an ``OptionsModel`` class) or, in a task written before option models, by
    ``add_arguments(parser)`` — one of the two is required."""

    name: str
    summary: str
    default_scenario: str

    def workload(self, options: Any) -> Any: ...


class ScorerPlugin(Protocol):
    """``scorer``: a callable shared between tasks — a per-session scorer
    ``score(session, outcome) -> verdict`` or a run scorer ``aggregate(records) -> block``."""

    def __call__(self, *args: Any) -> Any: ...


class ToolModePlugin(Protocol):
    """``tool_mode``: how tool calls travel in a request and come back in a reply."""

    def build_request(self, *args: Any, **kwargs: Any) -> dict[str, Any]: ...

    def parse_reply(self, *args: Any, **kwargs: Any) -> Any: ...


class ImporterPlugin(Protocol):
    """``importer``: ``importer(path) -> sessions`` (an iterable of trace ``Session``); an
    optional ``detect(head: str) -> bool`` lets ``--format auto`` recognise the format."""

    def __call__(self, path: Path) -> Iterable[Any]: ...


class ReporterPlugin(Protocol):
    """``reporter``: ``reporter(out_dir, summary, records) -> path(s) written`` (after every
    run and by ``agentic-bench report DIR``)."""

    def __call__(self, out: Path, summary: dict[str, Any],
                 records: list[dict[str, Any]]) -> Any: ...


class MetricPlugin(Protocol):
    """``metric``: a latency metric's declaration (an
    :class:`~agentic_bench.metrics.declarations.MetricDecl`, or an object with its fields):
    its ``name`` (the entry point's ``NAME``, the key in summary.json's ``latency_ms``), the
    records it is read from (``source``: step, turn or session) and their ``field``, how it is
    shown and gated, and, for a step metric, ``derive(timestamps)`` — its value for one request
    (optional: without it the field is read as another plugin wrote it). Loaded in every
    process that summarises (a run's, its workers', ``report``'s and ``compare``'s)."""

    name: str
    label: str
    source: str
    field: str
    unit: str
    better: str
    slo: str | None
    compare: tuple[str, ...]
    description: str


KIND_PROTOCOLS: dict[str, type] = {
    "task": TaskPlugin,
    "scorer": ScorerPlugin,
    "tool_mode": ToolModePlugin,
    "importer": ImporterPlugin,
    "reporter": ReporterPlugin,
    "metric": MetricPlugin,
}
PLUGIN_KINDS = tuple(KIND_PROTOCOLS)  # the prefixes of entry-point names (``scorer:NAME``)


def protocol_members(protocol: type) -> tuple[list[str], list[str]]:
    """The attributes (annotated) and the methods (defined; ``__call__`` included, other
    dunders not) a Protocol declares."""
    attributes = list(vars(protocol).get("__annotations__", {}))
    methods = [name for name, value in vars(protocol).items() if inspect.isfunction(value)
               and (name == "__call__" or not name.startswith("__"))]
    return attributes, methods


def missing_members(kind: str, obj: Any) -> list[str]:
    """What ``obj`` lacks to be a plugin of ``kind`` (empty: nothing), in words."""
    attributes, methods = protocol_members(KIND_PROTOCOLS[kind])
    lacking = [f"attribute `{name}`" for name in attributes if not hasattr(obj, name)]
    for name in methods:
        if name == "__call__":
            if not callable(obj):
                lacking.append("being callable")
        elif not callable(getattr(obj, name, None)):
            lacking.append(f"method `{name}()`")
    if kind == "task" and not (hasattr(obj, "options") or hasattr(obj, "add_arguments")):
        lacking.append("`options` (an OptionsModel class) or `add_arguments(parser)`")
    return lacking


__all__ = ["KIND_PROTOCOLS", "PLUGIN_KINDS", "ImporterPlugin", "MetricPlugin", "ReporterPlugin",
           "ScorerPlugin", "TaskPlugin", "ToolModePlugin", "missing_members", "protocol_members"]
