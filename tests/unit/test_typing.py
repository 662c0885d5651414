"""``mypy --strict`` stays clean on agentic_bench/ and rag_pipeline/ (#23 item 5); settings in
pyproject.toml [tool.mypy]. About 35 s cold on 2 cores."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None,
                    reason="mypy is not installed (pip install -e '.[dev]')")
def test_mypy_strict_is_clean(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "Success: no issues found" in done.stdout


def test_every_package_face_declares_all() -> None:
    """Each package's __init__ says what it offers (__all__), and each name it lists exists."""
    import importlib

    missing = []
    for init in sorted([*ROOT.glob("agentic_bench/**/__init__.py"),
                        *ROOT.glob("rag_pipeline/**/__init__.py")]):
        name = ".".join(init.parent.relative_to(ROOT).parts)
        module = importlib.import_module(name)
        exported = getattr(module, "__all__", None)
        if exported is None:
            missing.append(name)
            continue
        assert all(hasattr(module, item) for item in exported), name
    assert missing == []
