"""Fixtures for the rag-e2e unit tests (the doubles live in rag_e2e_support.py)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rag_e2e_support import DOCS, HashEmbedder


@pytest.fixture
def tiny_index(tmp_path: Path) -> Any:
    from rag_pipeline import build_index

    index, _ = build_index(DOCS, HashEmbedder(), kind="flat", cache_dir=tmp_path / "cache")
    return index
