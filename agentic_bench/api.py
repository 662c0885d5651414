"""The public API for benchmark plugins: everything a task author needs, from one module.

A plugin is a distribution that registers objects in the ``agentic_bench.plugins`` entry-point
group (built-in benchmarks register the same way). A *task* supplies its sessions, its tools
(OpenAI schemas plus a simulated implementation), its scorer, its default scenario, SLOs and
accuracy target; :func:`simple_workload` turns ``(sessions, async per-session function,
scorer)`` into the :class:`Workload` the harness runs, so a plugin never touches the runner.
See ``docs/adding-a-task.md`` (``agentic-bench new-task NAME`` writes a working skeleton).

Importing this module is cheap: the harness types below are imported on first use
(``from agentic_bench.api import Workload`` works as usual).

Plugin kinds: an entry-point name ``KIND:NAME`` registers a plugin of that kind (``task`` when
there is no prefix): ``task``, ``scorer``, ``tool_mode``, ``importer``, ``reporter``,
``metric`` (a :class:`MetricDecl`: a latency metric derived from a request's
:class:`Timestamps`, shown in every summary, report and comparison). An object
may also declare ``kind = "..."``. The harness runs tasks; the other kinds are discoverable
with :func:`discover_plugins` / :func:`load_plugin` so tasks and tools can share them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentic_bench.contracts import (
        ExecContext,
        SessionOutcome,
        SessionSource,
        SessionTicket,
        Workload,
    )
    from agentic_bench.errors import ConfigError
    from agentic_bench.metrics.declarations import MetricDecl
    from agentic_bench.options.replay import ReplayOptions
    from agentic_bench.options.schema import OptionsModel, option
    from agentic_bench.plugin_kinds import (
        ImporterPlugin,
        MetricPlugin,
        ReporterPlugin,
        ScorerPlugin,
        TaskPlugin,
        ToolModePlugin,
    )
    from agentic_bench.records.llm import Timestamps
    from agentic_bench.tasks.base import Task
    from agentic_bench.tasks.lazy_method import lazy
    from agentic_bench.tasks.recorder import SessionRecorder
    from agentic_bench.tasks.simple import (
        RunScorer,
        SessionFn,
        SessionScorer,
        make_session,
        sample_accuracy,
        simple_workload,
    )
    from agentic_bench.testing import FakeTransport, run_offline
    from agentic_bench.trace.model import SCHEMA_VERSION, References, Session, ToolCall, Turn
    from agentic_bench.transport.choose import make_chat_client
    from agentic_bench.transport.request import RequestContext
    from agentic_bench.transport.result import ChatResult
    from agentic_bench.transport.url import redact_url

__all__ = [
    "GROUP",
    "PLUGIN_KINDS",
    "SCHEMA_VERSION",
    "ChatResult",
    "ConfigError",
    "ExecContext",
    "FakeTransport",
    "ImporterPlugin",
    "MetricDecl",
    "MetricPlugin",
    "OptionsModel",
    "PluginRef",
    "References",
    "ReplayOptions",
    "ReporterPlugin",
    "RequestContext",
    "RunScorer",
    "ScorerPlugin",
    "Session",
    "SessionFn",
    "SessionOutcome",
    "SessionRecorder",
    "SessionScorer",
    "SessionSource",
    "SessionTicket",
    "Task",
    "TaskPlugin",
    "Timestamps",
    "ToolCall",
    "ToolModePlugin",
    "Turn",
    "Workload",
    "discover_plugins",
    "lazy",
    "load_plugin",
    "make_chat_client",
    "make_session",
    "option",
    "parse_task_options",
    "redact_url",
    "run_offline",
    "sample_accuracy",
    "simple_workload",
    "split_name",
]

_LAZY = {
    "Task": "agentic_bench.tasks.base",
    "Workload": "agentic_bench.contracts",
    "ExecContext": "agentic_bench.contracts",
    "SessionRecorder": "agentic_bench.tasks.recorder",
    "SessionSource": "agentic_bench.contracts",
    "Session": "agentic_bench.trace.model",
    "Turn": "agentic_bench.trace.model",
    "References": "agentic_bench.trace.model",
    "ToolCall": "agentic_bench.trace.model",
    "SCHEMA_VERSION": "agentic_bench.trace.model",
    "ChatResult": "agentic_bench.transport.result",
    "RequestContext": "agentic_bench.transport.request",  # what one chat request carries
    "SessionTicket": "agentic_bench.contracts",
    "SessionOutcome": "agentic_bench.contracts",
    "ReplayOptions": "agentic_bench.options.replay",
    "ConfigError": "agentic_bench.errors",
    "make_chat_client": "agentic_bench.transport.choose",  # a plugin's own second endpoint
    "redact_url": "agentic_bench.transport.url",  # a URL safe to write into a summary
    "lazy": "agentic_bench.tasks.lazy_method",  # a task method imported on first call
    "OptionsModel": "agentic_bench.options.schema",  # a task's options, declared
    "option": "agentic_bench.options.schema",
    # a latency metric: its declaration and the timestamps it is derived from
    "MetricDecl": "agentic_bench.metrics.declarations",
    "Timestamps": "agentic_bench.records.llm",
    # one Protocol per plugin kind, checked when a plugin loads (docs/adding-a-task.md §6)
    **dict.fromkeys(("TaskPlugin", "ScorerPlugin", "ToolModePlugin", "ImporterPlugin",
                     "ReporterPlugin", "MetricPlugin"), "agentic_bench.plugin_kinds"),
    # a workload from sessions, a per-session function and a scorer; the default accuracy
    **dict.fromkeys(("make_session", "sample_accuracy", "simple_workload", "SessionFn",
                     "SessionScorer", "RunScorer"), "agentic_bench.tasks.simple"),
    # testing without a server
    **dict.fromkeys(("FakeTransport", "run_offline"), "agentic_bench.testing"),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


# --- plugin kinds (one implementation, in the registry) ------------------------------------

from agentic_bench.tasks.registry import (  # noqa: E402 - re-exported public API
    GROUP,
    PLUGIN_KINDS,
    PluginRef,
    discover_plugins,
    load_plugin,
    parse_task_options,  # the validated options of `agentic-bench run TASK ARGV`
    split_name,
)
