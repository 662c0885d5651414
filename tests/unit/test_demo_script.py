"""``make demo`` (scripts/demo.sh) fails when one of its steps fails, and only then.

A stand-in for the ``agentic-bench`` command (``AGENTIC_BENCH``) plays each step's outcome, so
the script's own logic is what is tested here; the real demo runs in ``make demo``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FAKE = """#!/usr/bin/env bash
# a stand-in agentic-bench: `list` shows both benchmarks unless NO_RAG; `run NAME ...` writes
# a summary and exits with RC_<NAME> (default 0)
if [ "$1" = list ]; then
    echo "  agentic-edge  BFCL"; [ -z "${NO_RAG:-}" ] && echo "  rag-e2e  RAG"; exit 0
fi
name=$2; out=""
while [ $# -gt 0 ]; do [ "$1" = --out ] && out=$2; shift; done
var="RC_${name//-/_}"; rc=${!var:-0}
if [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ]; then
    mkdir -p "$out"; echo '{}' > "$out/summary.json"
    echo "Result is : INVALID" > "$out/summary.txt"
fi
exit "$rc"
"""


def _demo(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    fake = tmp_path / "agentic-bench"
    fake.write_text(FAKE)
    fake.chmod(0o755)
    return subprocess.run(["bash", str(ROOT / "scripts" / "demo.sh")], capture_output=True,
                          text=True, timeout=60, env={**os.environ, "AGENTIC_BENCH": str(fake),
                                                      "DEMO_OUT": str(tmp_path / "out"), **env})


def test_invalid_results_are_results_not_failures(tmp_path: Path) -> None:
    res = _demo(tmp_path, RC_agentic_edge="3")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "Result is : INVALID" in res.stdout
    # each step's line says its verdict in words (it read "exit 0 (0 VALID, 3 INVALID)")
    assert "   INVALID (exit 3) in " in res.stdout and "   VALID (exit 0) in " in res.stdout


@pytest.mark.parametrize(("env", "reason"), [
    ({"RC_agentic_edge": "1"}, "agentic-edge (exit 1)"),
    ({"RC_rag_e2e": "2"}, "rag-e2e (exit 2)"),
    ({"NO_RAG": "1"}, "rag-e2e (not installed)"),
])
def test_a_failed_step_fails_the_demo(tmp_path: Path, env: dict[str, str], reason: str) -> None:
    res = _demo(tmp_path, **env)
    assert res.returncode == 1 and reason in res.stderr, res.stdout + res.stderr
