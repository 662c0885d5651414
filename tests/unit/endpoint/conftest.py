"""Fixtures for the endpoint unit tests: a fake ``llama-server`` binary and a fake GGUF file."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

FAKE_SERVER = Path(__file__).with_name("fake_llama_server.py")


@pytest.fixture
def fake_binary(tmp_path: Path) -> str:
    """An executable that behaves like ``llama-server`` for LlamaServer."""
    script = tmp_path / "fake-llama-server"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_SERVER}" "$@"\n')
    script.chmod(0o755)
    return str(script)


@pytest.fixture
def fake_model(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF" + b"\0" * 1000)
    return path
