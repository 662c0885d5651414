"""Fixtures for the rag-agent unit tests (the doubles live in rag_agent_support.py; the tiny
corpus and hash embedder are rag-e2e's, from tests/unit/rag_e2e/rag_e2e_support.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "rag_e2e"))

from rag_agent_support import frames_file as write_frames_file
from rag_e2e_support import HashEmbedder

from agentic_bench.tasks.rag_agent import workload


@pytest.fixture
def fake_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workload, "make_embedder", lambda name, *_, **__: HashEmbedder())


@pytest.fixture
def frames_file(tmp_path: Path) -> Path:
    return write_frames_file(tmp_path / "questions.jsonl")
