"""Write the run outputs: summary.json (canonical) and summary.txt.

summary.json is strict JSON (RFC 8259): a value that is not a finite number (NaN, ±Inf, which
Python would write as bare ``NaN``/``Infinity`` that strict parsers reject) is written as
``null`` and listed under ``non_finite_values`` with its JSON path, what it was and why it
is missing; summary.txt shows such a figure as "n/a".
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from agentic_bench.reporting.summary_text import render_text

NON_FINITE_REASON = "not a finite number (NaN or ±Inf): written as null"


def finite_only(value: Any, path: str = "", found: list[dict[str, str]] | None = None) -> Any:
    """``value`` with every non-finite float replaced by None; each one replaced is appended
    to ``found`` as ``{"path", "value", "reason"}``."""
    if isinstance(value, float) and not math.isfinite(value):
        if found is not None:
            found.append({"path": path or "$", "value": repr(value),
                          "reason": NON_FINITE_REASON})
        return None
    if isinstance(value, dict):
        return {k: finite_only(v, f"{path}.{k}" if path else str(k), found)
                for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite_only(v, f"{path}[{i}]", found) for i, v in enumerate(value)]
    return value


def strict_summary(summary: dict[str, Any]) -> dict[str, Any]:
    """The summary as strict JSON can hold it (see the module's docstring)."""
    found: list[dict[str, str]] = []
    clean: dict[str, Any] = finite_only(summary, "", found)
    if found:
        clean["non_finite_values"] = found
    return clean


def write_summary(out_dir: Path, summary: dict[str, Any]) -> None:
    """Write atomically (tmp + rename) so a crash never leaves half a summary."""
    out_dir.mkdir(parents=True, exist_ok=True)
    clean = strict_summary(summary)
    for name, text in (("summary.json", json.dumps(clean, indent=2, default=str,
                                                   allow_nan=False) + "\n"),
                       ("summary.txt", render_text(clean))):
        tmp = out_dir / f".{name}.tmp"
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, out_dir / name)
