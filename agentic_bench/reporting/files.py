"""Write the run outputs: summary.json (canonical) and summary.txt."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from agentic_bench.reporting.summary_text import render_text


def write_summary(out_dir: Path, summary: dict[str, Any]) -> None:
    """Write atomically (tmp + rename) so a crash never leaves half a summary."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, text in (("summary.json", json.dumps(summary, indent=2, default=str) + "\n"),
                       ("summary.txt", render_text(summary))):
        tmp = out_dir / f".{name}.tmp"
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, out_dir / name)
