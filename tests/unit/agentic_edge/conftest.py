"""The agentic-edge unit tests share ``mlperf_selection.py`` (the reference's sample rule)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
