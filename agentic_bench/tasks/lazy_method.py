"""A task method whose module loads on first call (``rescore``, ``write_artifacts``), so
``--help`` and ``list`` never pay for a benchmark's scoring code."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy(target: str) -> Any:
    """A task method that imports ``"package.module:function"`` when first called (so
    ``--help`` and ``list`` never load it): ``rescore = lazy("my_task.scoring:rescore")``."""
    module, _, name = target.partition(":")

    def call(*args: Any, **kwargs: Any) -> Any:
        function: Callable[..., Any] = getattr(importlib.import_module(module), name)
        return function(*args, **kwargs)

    call.__doc__ = f"Calls {target} (imported on first use)."
    return staticmethod(call)
