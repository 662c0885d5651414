"""#32 item 5: one Protocol per plugin kind, checked when a plugin loads — an object that lacks
what its kind needs is refused at load, naming the plugin, its entry point and what it lacks."""

from __future__ import annotations

import sys
import types
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any

import pytest

from agentic_bench.errors import ConfigError
from agentic_bench.plugin_kinds import KIND_PROTOCOLS, PLUGIN_KINDS, missing_members
from agentic_bench.plugins import GROUP, PluginRef, discover_plugins, split_name

MODULE = "fake_plugins_for_kind_checks"


class GoodTask:
    name = "good"
    summary = "a task"
    default_scenario = "single"
    options = object

    def workload(self, options: Any) -> Any:
        return None


class TaskWithoutWorkload:
    name = "half"
    summary = "no workload"
    default_scenario = "single"
    options = object


class ToolMode:
    def build_request(self, sample: Any) -> dict[str, Any]:
        return {}

    def parse_reply(self, sample: Any) -> Any:
        return None


class HalfToolMode:
    def build_request(self, sample: Any) -> dict[str, Any]:
        return {}


def reporter(out: Path, summary: dict[str, Any], records: list[dict[str, Any]]) -> list[Path]:
    return []


@pytest.fixture()
def fake_module(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    module = types.ModuleType(MODULE)
    for name, value in {
        "good_task": GoodTask(), "task_without_workload": TaskWithoutWorkload(),
        "task_class_without_options": type("NoOptions", (), {
            "name": "x", "summary": "s", "default_scenario": "single",
            "workload": lambda self, options: None}),
        "tool_mode": ToolMode(), "half_tool_mode": HalfToolMode(),
        "reporter": reporter, "not_callable": {"a": "dict"}, "text": "just a string",
        "importer": lambda path: iter(()),
    }.items():
        setattr(module, name, value)
    monkeypatch.setitem(sys.modules, MODULE, module)
    return module


def ref(entry: str, target: str) -> PluginRef:
    kind, name = split_name(entry)
    return PluginRef(kind, name, EntryPoint(entry, f"{MODULE}:{target}", GROUP))


@pytest.mark.parametrize("entry,target,lacks", [
    ("bad-task", "task_without_workload", "method `workload()`"),
    ("task:bare", "task_class_without_options",
     "`options` (an OptionsModel class) or `add_arguments(parser)`"),
    ("task:text", "text", "attribute `name`"),
    ("scorer:data", "not_callable", "being callable"),
    ("tool_mode:half", "half_tool_mode", "method `parse_reply()`"),
    ("importer:data", "not_callable", "being callable"),
    ("reporter:text", "text", "being callable"),
])
def test_each_kind_refuses_what_lacks_its_members(fake_module: types.ModuleType, entry: str,
                                                   target: str, lacks: str) -> None:
    kind, _ = split_name(entry)
    with pytest.raises(ConfigError) as caught:
        ref(entry, target).load()
    message = str(caught.value)
    assert f"plugin {entry!r} ({MODULE}:{target})" in message  # the plugin, its entry point
    assert f"is not a {kind} plugin ({KIND_PROTOCOLS[kind].__name__})" in message
    assert lacks in message


@pytest.mark.parametrize("entry,target", [
    ("good", "good_task"), ("scorer:fn", "reporter"), ("tool_mode:json", "tool_mode"),
    ("importer:tiny", "importer"), ("reporter:md", "reporter"),
])
def test_each_kind_loads_what_has_its_members(fake_module: types.ModuleType, entry: str,
                                              target: str) -> None:
    assert ref(entry, target).load() is not None


def test_every_kind_has_one_protocol() -> None:
    assert set(KIND_PROTOCOLS) == set(PLUGIN_KINDS)
    assert missing_members("task", GoodTask()) == []
    assert set(missing_members("tool_mode", object())) == {"method `build_request()`",
                                                          "method `parse_reply()`"}


def test_the_installed_plugins_all_pass_their_kind() -> None:
    """Every plugin this project registers (built-ins, and the tau2 plugin when installed)
    satisfies its kind's Protocol."""
    refs = discover_plugins()
    assert refs, [ep.name for ep in entry_points(group=GROUP)]
    for (kind, name), plugin in refs.items():
        assert missing_members(kind, plugin.load()) == [], (kind, name)
