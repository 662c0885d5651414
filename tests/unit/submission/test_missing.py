"""What `submission pack` says is still missing: placeholders, absent parts, refusals."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentic_bench.submission import pack, report

Runs = dict[str, Callable[..., Any]]


def test_a_lone_performance_run_lacks_accuracy_and_test09(runs: Runs, tmp_path: Path) -> None:
    """Closed division: compliance_check.py 162-169 (TEST09/verify_output_len.txt for
    e2e-rag-qna, models_TEST09 constants.py 322-325); accuracy/ (loader.py 461-466)."""
    packed = pack([runs["rag"]("p", "performance")], submitter="A", system="box",
                  division="closed", out=tmp_path / "sub")
    rep = report(packed.root)
    missing = "\n".join(rep.missing)
    assert "accuracy: the accuracy run" in missing and "TEST09: the compliance run" in missing
    assert any(item.startswith("systems/box.json: status") for item in rep.fill)
    assert any("measurements.json: weight_data_types" in item for item in rep.fill)
    assert any("3 samples (official: 824)" in item for item in rep.will_fail)
    opened = pack([runs["rag"]("q", "performance")], submitter="A", system="box",
                  division="open", out=tmp_path / "open")
    assert not any("TEST09" in item for item in report(opened.root).missing)


def test_failed_test09_low_accuracy_and_no_judge_are_reported(runs: Runs,
                                                             tmp_path: Path) -> None:
    """The gate: constants.py 156 (E2E_ACCURACY 33.95); TEST09 passes on "TEST PASS"
    (compliance_check.py 358-376)."""
    packed = pack([runs["rag"]("a", "accuracy", accuracy="Accuracy: 12.5000\n"),
                   runs["rag"]("t", "TEST09", verdict="TEST FAIL")], submitter="A",
                  system="box", division="closed", out=tmp_path / "sub")
    fails = "\n".join(report(packed.root).will_fail)
    assert "accuracy 12.5000 below the gate 33.95" in fails and "TEST FAIL" in fails
    nojudge = pack([runs["rag"]("b", "accuracy", accuracy=None)], submitter="A", system="x",
                   division="closed", out=tmp_path / "nj")
    assert any("accuracy.txt: the judge's accuracy" in m for m in report(nojudge.root).missing)
    assert any("no accuracy.txt" in n for n in nojudge.notes)


def test_edge_report(runs: Runs, tmp_path: Path) -> None:
    packed = pack([runs["edge"]("e", samples=3)], submitter="A", system="thor",
                  division="closed", out=tmp_path / "sub")
    rep = report(packed.root)
    assert not rep.missing
    assert any("3 accuracy samples (official: 995)" in item for item in rep.will_fail)
