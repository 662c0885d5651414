"""Import shim for the pinned ``bfcl-eval`` package (data, AST checker, simulated APIs).

``bfcl-eval`` is installed with ``--no-deps``. Two of its import-time side effects must be
neutralised before any of its checker modules is imported:

* ``bfcl_eval.constants.model_config`` imports every provider SDK (openai, anthropic, …). The
  checker only needs ``MODEL_CONFIG_MAPPING[model].underscore_to_dot``, so a small stub module is
  placed in ``sys.modules`` first. Its mapping answers every model name with
  ``underscore_to_dot=True`` (OpenAI-style tool calling: dots in function names are sent as
  underscores, and the checker compares against the underscore form).
* ``bfcl_eval.constants.eval_config`` creates ``result/``, ``score/`` and ``.file_locks/`` under
  ``BFCL_PROJECT_ROOT`` — by default inside site-packages. We point it at a scratch cache folder
  (``$XDG_CACHE_HOME/agentic-bench/bfcl``, falling back to a temp dir) unless the user set it.

Nothing here imports ``bfcl_eval`` at module import time.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import tempfile
import threading
import types
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

from agentic_bench.errors import ConfigError

BFCL_DISTRIBUTION = "bfcl-eval"
BFCL_PINNED_VERSION = "2026.3.23"
MODEL_CONFIG_MODULE = "bfcl_eval.constants.model_config"
PROJECT_ROOT_ENV = "BFCL_PROJECT_ROOT"
# The model name handed to the checkers; the stub answers any name, this one is just readable.
CHECKER_MODEL_NAME = "agentic-bench"

_INSTALL_HINT = (
    f"install it with: pip install --no-deps {BFCL_DISTRIBUTION}=={BFCL_PINNED_VERSION} "
    "mpmath filelock tenacity tree_sitter==0.21.3 tree-sitter-java==0.21.0 "
    "tree-sitter-javascript==0.21.4  (or: pip install 'agentic-serving-bench[bfcl]' plus the "
    "--no-deps bfcl-eval install)"
)
_lock = threading.Lock()


@dataclass(frozen=True)
class StubModelConfig:
    """What bfcl-eval's checkers read from a model config."""

    model_name: str = CHECKER_MODEL_NAME
    display_name: str = CHECKER_MODEL_NAME
    is_fc_model: bool = True
    underscore_to_dot: bool = True


class _StubModelConfigMapping(dict[str, StubModelConfig]):
    """``MODEL_CONFIG_MAPPING`` stand-in: any model name maps to :class:`StubModelConfig`."""

    def __missing__(self, key: str) -> StubModelConfig:
        return StubModelConfig(model_name=key, display_name=key)


def _stub_module() -> types.ModuleType:
    module = types.ModuleType(MODEL_CONFIG_MODULE)
    module.__doc__ = "agentic-bench stub: avoids importing every provider SDK."
    module.ModelConfig = StubModelConfig  # type: ignore[attr-defined]
    module.MODEL_CONFIG_MAPPING = _StubModelConfigMapping()  # type: ignore[attr-defined]
    module.api_inference_model_map = {}  # type: ignore[attr-defined]
    module.local_inference_model_map = {}  # type: ignore[attr-defined]
    module.third_party_inference_model_map = {}  # type: ignore[attr-defined]
    return module


def scratch_root() -> Path:
    """The folder bfcl-eval may write its ``result/``, ``score/`` and lock folders into."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    candidate = Path(base) / "agentic-bench" / "bfcl"
    try:
        candidate.mkdir(parents=True, exist_ok=True)
        if os.access(candidate, os.W_OK):
            return candidate
    except OSError:
        pass
    fallback = Path(tempfile.gettempdir()) / f"agentic-bench-bfcl-{os.getuid()}"
    fallback.mkdir(parents=True, exist_ok=True)
    return fallback


def package_dir() -> Path:
    """The installed ``bfcl_eval`` package folder, found without importing it."""
    try:
        spec = importlib.util.find_spec("bfcl_eval")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(
            f"the BFCL data package `{BFCL_DISTRIBUTION}` is not installed; {_INSTALL_HINT}"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def data_dir() -> Path:
    """``bfcl_eval/data`` (JSON Lines files despite the ``.json`` suffix)."""
    return package_dir() / "data"


@cache
def bfcl_version() -> str:
    """Version of the installed ``bfcl-eval`` distribution (without importing it)."""
    try:
        return metadata.version(BFCL_DISTRIBUTION)
    except metadata.PackageNotFoundError as exc:
        raise ConfigError(
            f"the BFCL data package `{BFCL_DISTRIBUTION}` is not installed; {_INSTALL_HINT}"
        ) from exc


def prepare() -> None:
    """Install the model-config stub and the scratch project root (idempotent)."""
    with _lock:
        package_dir()  # fail early, with an actionable message
        if not os.environ.get(PROJECT_ROOT_ENV):
            os.environ[PROJECT_ROOT_ENV] = str(scratch_root())
        module = sys.modules.get(MODEL_CONFIG_MODULE)
        if module is None:
            sys.modules[MODEL_CONFIG_MODULE] = _stub_module()
        else:  # the real module was imported by someone else: register our model name in it
            mapping = getattr(module, "MODEL_CONFIG_MAPPING", None)
            if isinstance(mapping, dict) and CHECKER_MODEL_NAME not in mapping:
                mapping[CHECKER_MODEL_NAME] = StubModelConfig()


def import_bfcl(module: str) -> Any:
    """Import ``bfcl_eval.<module>`` after :func:`prepare` (e.g. ``"model_handler.utils"``)."""
    prepare()
    name = module if module.startswith("bfcl_eval") else f"bfcl_eval.{module}"
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise ConfigError(f"cannot import {name} ({exc}); {_INSTALL_HINT}") from exc
