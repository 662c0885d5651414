"""#43 item 2: accuracy belongs to the LoadGen accuracy run only (mlcommons/inference b66003e1
``e2e-rag/reference_mlperf.py`` 255-271: ``accuracy_eval.py`` runs only ``if args.accuracy``)."""

from __future__ import annotations

from agentic_bench.tasks.rag_e2e.accuracy import rescore, scored_in_run, unscored_block


def test_only_loadgen_accuracy_mode_or_no_loadgen_scores() -> None:
    assert scored_in_run(None, "performance")  # our own scheduler: no LoadGen modes
    assert scored_in_run("mlperf", "accuracy")
    assert not scored_in_run("mlperf", "performance")
    assert not scored_in_run("mlperf", "TEST09")


def test_report_keeps_an_unscored_run_unscored() -> None:
    records = [{"type": "sample", "task": "rag-e2e", "em": 0.0, "f1": 0.0, "retrieval": {},
                "context": {"precision": 0.0, "recall": 0.0, "f1": 0.0}}]
    gate = {"name": "mlperf_configuration", "value": 1, "limit": 0, "op": "==", "ok": False}
    block = unscored_block([gate])
    again = rescore(records, block)
    assert again == block and again is not block
    assert "judge" not in again and again["headline"] is None
