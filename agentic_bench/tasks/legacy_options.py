"""An options model for a task written before option models (``add_arguments(parser)``).

Each argparse action becomes a field of the same name: a ``store_true`` switch a ``bool``, an
``append`` option a list of text, ``choices`` a ``Literal``, an ``int``/``float``/``Path`` type
that type, anything else text (its own ``type=`` conversion is not run: declare ``options`` to
keep it). Defaults, help and metavars carry over, so such a task's flags, files and records work
as a built-in's do.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import create_model

from agentic_bench.options.schema import OptionsModel, option

_SKIPPED = (argparse._HelpAction, argparse._VersionAction)


def legacy_options_model(task: Any) -> type[OptionsModel]:
    parser = argparse.ArgumentParser(add_help=False)
    task.add_arguments(parser)
    fields: dict[str, Any] = {}
    for group in parser._action_groups:
        for action in group._group_actions:
            if isinstance(action, _SKIPPED):
                continue
            fields[action.dest] = (_annotation(action), option(
                _default(action), help=action.help or "", group=group.title or task.name,
                metavar=action.metavar if isinstance(action.metavar, str) else None,
                positional=not action.option_strings))
    base = type(f"{type(task).__name__}Base", (OptionsModel,),
                {"option_group": task.name, "__annotations__": {"option_group": ClassVar[str]}})
    model: type[OptionsModel] = create_model(
        f"{type(task).__name__}Options", __base__=base, **fields)
    return model


def _annotation(action: argparse.Action) -> Any:
    if isinstance(action, argparse._StoreTrueAction):
        return bool
    if isinstance(action, argparse._AppendAction):
        return tuple[str, ...]
    if action.choices is not None:
        return Literal[tuple(action.choices)] | None
    scalar = action.type if action.type in (int, float, Path) else str
    return scalar | None


def _default(action: argparse.Action) -> Any:
    if isinstance(action, argparse._StoreTrueAction):
        return False
    if isinstance(action, argparse._AppendAction):
        return tuple(action.default or ())
    return action.default


__all__ = ["legacy_options_model"]
