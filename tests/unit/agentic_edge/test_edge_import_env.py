"""The package imports without bfcl_eval; the shim keeps bfcl-eval out of site-packages."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

requires_bfcl = pytest.mark.skipif(
    importlib.util.find_spec("bfcl_eval") is None, reason="bfcl-eval is not installed"
)

_PROBE = """
import os, sys
os.environ.pop("BFCL_PROJECT_ROOT", None)
import agentic_bench.tasks.agentic_edge as edge
leaked = sorted(m for m in sys.modules if m == "bfcl_eval" or m.startswith("bfcl_eval."))
assert not leaked, leaked
assert "BFCL_PROJECT_ROOT" not in os.environ
assert callable(edge.score_single) and callable(edge.build_trajectories)
print("ok")
"""


def test_import_does_not_import_bfcl_eval() -> None:
    env = {k: v for k, v in os.environ.items() if k != "BFCL_PROJECT_ROOT"}
    out = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, env=env, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


@requires_bfcl
def test_shim_uses_stub_and_scratch_root(tmp_path: object) -> None:
    probe = """
import os, sys
from pathlib import Path
from agentic_bench.tasks.agentic_edge import bfcl_env
from agentic_bench.tasks.agentic_edge.data import load_subset
from agentic_bench.tasks.agentic_edge.oracle import oracle_decoded
from agentic_bench.tasks.agentic_edge.scoring import score_single
sample = load_subset("simple_python")[0]
assert score_single(sample, oracle_decoded(sample)).valid
from agentic_bench.tasks.agentic_edge.tool_modes import build_request
assert build_request(sample, "prompt")["messages"][0]["role"] == "system"
stub = sys.modules["bfcl_eval.constants.model_config"]
assert stub.MODEL_CONFIG_MAPPING["any/model"].underscore_to_dot is True
root = Path(os.environ["BFCL_PROJECT_ROOT"])
assert root == Path(sys.argv[1]) / "agentic-bench" / "bfcl", root
assert (root / "result").is_dir()
assert bfcl_env.bfcl_version() == "2026.3.23"
# the real provider-SDK module was never imported
assert not any(m.startswith("bfcl_eval.model_handler.api_inference") for m in sys.modules)
print("ok")
"""
    env = {k: v for k, v in os.environ.items() if k != "BFCL_PROJECT_ROOT"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    out = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
