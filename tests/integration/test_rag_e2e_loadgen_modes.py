"""#43 item 2: E2E-RAG judges and gates accuracy in the LoadGen accuracy run only.

mlcommons/inference b66003e1 ``e2e-rag/reference_mlperf.py`` 255-271: ``accuracy_eval.py``
(the judge, ``accuracy.txt``) runs only ``if args.accuracy``; a performance run (824 samples
drawn with replacement) is never judged. Here a judge is on offer and counts its calls.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_rag_e2e import run_task

pytestmark = pytest.mark.integration

if importlib.util.find_spec("mlperf_loadgen") is None:
    pytest.skip("mlperf_loadgen is not installed", allow_module_level=True)


def _run(sim: Any, judge: Any, out: Path, mode: str, *extra: str) -> dict[str, Any]:
    return run_task("--quick", "--questions", "2", "--endpoint", sim.url, "--loadgen", "mlperf",
                    "--scenario", "offline", "--loadgen-mode", mode, *extra, "--judge-endpoint",
                    judge.url, "--accuracy-metric", "judge", "--accuracy-target", "0.5",
                    "--out", str(out))


@pytest.mark.parametrize("mode", ["performance", "TEST09"])
def test_performance_run_is_not_judged(sim_factory: Callable[..., Any], tmp_path: Path,
                                       mode: str) -> None:
    """No judge call (the judge block is where its calls' outcome goes), no figures, no
    accuracy gate or --accuracy-target row, no accuracy.txt."""
    from agentic_bench.tasks.rag_e2e.loadgen_files import TEST09_AUDIT

    sim = sim_factory("--ttft-ms", "1", "--itl-ms", "1", "--output-tokens", "4")
    judge = sim_factory("--ttft-ms", "1", "--itl-ms", "1", "--output-tokens", "4")
    out = tmp_path / "run"
    extra = ("--loadgen-audit", str(TEST09_AUDIT)) if mode == "TEST09" else ()
    summary = _run(sim, judge, out, mode, *extra)
    acc = summary["accuracy"]
    assert acc["scored"] is False and acc["headline"] is None
    assert "judge" not in acc and "f1" not in acc
    names = {c["name"] for c in summary["constraints"]}
    assert "rag_judge_accuracy" not in names and "accuracy" not in names
    assert not list(out.rglob("accuracy.txt"))


def test_accuracy_run_is_judged(sim_factory: Callable[..., Any], tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "1", "--itl-ms", "1", "--output-tokens", "4")
    judge = sim_factory("--ttft-ms", "1", "--itl-ms", "1", "--output-tokens", "4")
    out = tmp_path / "run"
    summary = _run(sim, judge, out, "accuracy")
    assert summary["accuracy"]["judge"]["questions"] == 2
    assert any(c["name"] == "accuracy" for c in summary["constraints"])  # --accuracy-target
    assert (out / "accuracy.txt").is_file()
