"""Benchmarks (tasks) among the plugins: discover them, load one by name.

The entry-point machinery itself lives in :mod:`agentic_bench.plugins` (re-exported here).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from agentic_bench.options.schema import OptionsModel


def discover() -> dict[str, PluginRef]:
    """Tasks by name."""
    return {name: ref for (_, name), ref in discover_plugins("task").items()}


def task_options(task: Any) -> type[OptionsModel]:
    """The model of ``agentic-bench run TASK``'s options: the task's own and the common ones
    (the scenario's default the task's). A task without ``options`` gets one derived from its
    ``add_arguments`` (:mod:`agentic_bench.tasks.legacy_options`)."""
    from agentic_bench.options.common import run_options_model

    own = getattr(task, "options", None)
    if own is None:
        from agentic_bench.tasks.legacy_options import legacy_options_model

        own = _LEGACY.get(task.name) or _LEGACY.setdefault(task.name, legacy_options_model(task))
    return run_options_model(own, task.default_scenario)


_LEGACY: dict[str, type[OptionsModel]] = {}


def parse_task_options(task: Any, argv: Sequence[str], combinations: bool = True) -> Any:
    """The validated, frozen options of ``agentic-bench run TASK ARGV``, merged lowest first:
    the defaults, a preset the task offers (``preset_defaults(options)``: rag-e2e's
    ``--mlperf``), a ``--config FILE`` (checked strictly by the same schema), the command
    line."""
    from agentic_bench.options.parser import parse_options

    return parse_options(task_options(task), argv, prog=f"agentic-bench run {task.name}",
                         description=task.summary,
                         preset=getattr(task, "preset_defaults", None), benchmark=task.name,
                         combinations=combinations)


def task_workload(name: str, options: dict[str, Any]) -> Any:
    """The workload of benchmark ``name`` with ``options`` (a recipe's JSON data, validated again
    by the task's schema): what a worker process builds."""
    from agentic_bench.options.schema import from_recipe

    task = load_task(name)
    return task.workload(from_recipe(task_options(task), options))


def task_recipe(name: str, options: OptionsModel) -> tuple[Any, ...]:
    """A picklable recipe by which a worker process rebuilds this benchmark's workload: the
    validated options as JSON data, not a pickled object."""
    from agentic_bench.options.schema import recipe_data

    return ("agentic_bench.tasks.registry:task_workload", (name, recipe_data(options)), {})


def load_task(name: str) -> Any:
    """The task named ``name``, loaded and checked; a :class:`ConfigError` naming the known
    ones when there is none."""
    refs = discover()
    if name not in refs:
        known = ", ".join(sorted(refs)) or "none installed"
        raise ConfigError(f"unknown benchmark {name!r} (known: {known}); see `agentic-bench list`")
    return refs[name].load()


__all__ = ["GROUP", "PLUGIN_KINDS", "PluginRef", "TaskRef", "discover", "discover_plugins",
           "load_plugin", "load_task", "parse_task_options", "split_name",
           "task_options", "task_recipe", "task_workload"]
