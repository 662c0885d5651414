"""Results in other tools' formats: ``agentic-bench export RUN_DIR --to FORMAT --out PATH``.

:func:`exporter` gives the :data:`Exporter` of a format name (:data:`FORMATS` lists them); each
is ``export(run_dir: Path, out: Path) -> list[Path]`` (the files it wrote) and raises
:class:`~agentic_bench.errors.UsageError` for a run folder it cannot export (say why). Modules
are imported only when their format is asked for. See ``docs/interop.md``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

from agentic_bench.errors import UsageError

Exporter = Callable[[Path, Path], list[Path]]

_TARGETS = {
    "inferencex": "inferencex:export_inferencex",
    "llmd-report": "llmd_report:export_llmd_report",
    "mlperf-viz": "mlperf_viz:export_mlperf_viz",
    "otel": "otel_export:export_otel",
}
FORMATS = tuple(sorted(_TARGETS))


def exporter(name: str) -> Exporter:
    """The exporter of format ``name``; UsageError naming the known formats if unknown."""
    if name not in _TARGETS:
        raise UsageError(f"unknown export format {name!r} (known: {', '.join(FORMATS)})")
    module, func = _TARGETS[name].split(":")
    found: Exporter = getattr(importlib.import_module(f"agentic_bench.export.{module}"), func)
    return found


__all__ = ["FORMATS", "Exporter", "exporter"]
