"""Report writers as plugins: ``reporter:NAME`` entry points in the ``agentic_bench.plugins``
group, run after every run (``run/summary.py``) and by ``agentic-bench report DIR``.

A reporter is a callable ``(out_dir, summary, records) -> Path | list[Path] | None`` that writes
its files into the run's folder (summary.json and summary.txt are written first and are not
plugins: every other output derives from them). The built-in HTML report registers the same way
(``reporter:html``, pyproject.toml) and is found even without the metadata of an installed
package; a plugin cannot replace a built-in name. A reporter that fails never changes the run's
result: its error is a warning naming it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

Reporter = Callable[[Path, dict[str, Any], list[dict[str, Any]]], Any]
BUILTIN = {"html": "agentic_bench.reporting.html:write_report"}


def _builtin(target: str) -> Reporter:
    module, _, name = target.partition(":")
    reporter: Reporter = getattr(importlib.import_module(module), name)
    return reporter


def reporter_names() -> list[str]:
    """The built-ins first, then the installed reporter plugins, by name."""
    from agentic_bench.plugins import discover_plugins

    plugins = sorted(n for (_, n) in discover_plugins("reporter") if n not in BUILTIN)
    return [*BUILTIN, *plugins]


def run_reporters(out: Path, summary: dict[str, Any], records: list[dict[str, Any]],
                  ) -> tuple[list[Path], list[str]]:
    """Run every reporter; returns (files written, warnings)."""
    from agentic_bench.plugins import discover_plugins

    refs = {name: ref for (_, name), ref in discover_plugins("reporter").items()}
    files: list[Path] = []
    warnings: list[str] = []
    for name in reporter_names():
        try:
            reporter = _builtin(BUILTIN[name]) if name in BUILTIN else refs[name].load()
            written = reporter(Path(out), summary, records)
        except Exception as exc:  # a reporter bug must not change the run's result
            warnings.append(f"reporter {name!r} failed: {type(exc).__name__}: {exc}")
            continue
        items: Sequence[Any] = written if isinstance(written, list | tuple) else \
            ([written] if written is not None else [])
        files += [Path(p) for p in items]
    return files, warnings


__all__ = ["BUILTIN", "Reporter", "reporter_names", "run_reporters"]
