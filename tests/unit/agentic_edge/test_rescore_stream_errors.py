"""#43: a finished run's requests that the old rule failed on an error event in a 200 stream,
re-scored from the records under MLPerf's rule (:mod:`...rescore_stream_errors`)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from agentic_bench.tasks.agentic_edge.coding_phase import inline_accuracy, perf_gate_rows
from agentic_bench.tasks.agentic_edge.rescore_stream_errors import rescore, rewrite

MESSAGE = ("{'message': \"This model's maximum context length is 4096 tokens.\", "
           "'code': 'context_length_exceeded'}")


def _step(turn: int, status: str = "ok", **extra: Any) -> dict[str, Any]:
    base = {"type": "step", "session_id": "c#0", "turn": 0, "step": turn, "kind": "llm",
            "mlperf_turn": turn, "status": status, "output_tokens": 5, "token_source": "usage",
            "chunks": 9, "http_status": 200, "phase": "performance"}
    if status == "error":  # as the committed run recorded each overflow
        base.update(output_tokens=0, token_source="chunks", chunks=2,
                    error_type="context_overflow", error=f"error event in stream: {MESSAGE}")
    return {**base, **extra}


def _score(turn: int, answered: bool, score: float | None) -> dict[str, Any]:
    return {"type": "inline_score", "phase": "performance", "session_id": "c#0",
            "conversation_id": "c", "mlperf_turn": turn, "row_role": "tool", "issued": True,
            "answered": answered, "scorable": True, "paired": True, "score": score,
            **({} if answered else {"reason": "context_overflow"})}


def _run() -> list[dict[str, Any]]:
    return [
        {"type": "run", "benchmark": "agentic-edge"},
        _step(1), _score(1, True, 1.0),
        _step(3, "error"), _score(3, False, None),
        # something arrived before the event: the records keep no text, so it stays as it was
        _step(5, "error", output_tokens=2, t_first_token_ns=7), _score(5, False, None),
        {"type": "turn", "session_id": "c#0", "turn": 0, "status": "error",
         "phase": "performance"},
        {"type": "session", "session_id": "c#0", "status": "error", "turns": 1, "turns_ok": 0,
         "requests": 3, "errors": 2, "phase": "performance"},
    ]


def test_a_request_that_received_nothing_becomes_an_observed_turn_scored_0() -> None:
    before = _run()
    after, counts = rescore(before)
    assert counts == {"steps": 1, "not_rescorable": 1, "inline_scores": 1, "sessions": 1}
    step = after[3]
    assert step["status"] == "ok" and "error" not in step and "error_type" not in step
    assert step["stream_error"].endswith(MESSAGE) and step["tool_calls"] == []
    assert step["rescored"] == {"issue": "#43", "was": {"status": "error",
                                                        "error_type": "context_overflow"}}
    assert after[4]["answered"] and after[4]["score"] == 0.0 and "reason" not in after[4]
    assert after[5] is before[5] and after[6] is before[6]  # left: not re-scorable
    assert after[7]["status"] == "error"  # its turn still holds the failed request
    assert after[8]["errors"] == 1 and after[8]["status"] == "error"
    inline = inline_accuracy(after)
    assert inline is not None and inline["stream_errors"] == 1
    assert (inline["turns"]["observed"], inline["turns"]["missing"]) == (2, 1)


def test_a_run_whose_every_event_is_rescorable_passes_the_turn_gates() -> None:
    records = [r for r in _run() if r.get("mlperf_turn") != 5]
    records[-1] = {**records[-1], "requests": 2, "errors": 1}
    before = inline_accuracy(records)
    assert before is not None and not any(r["ok"] for r in perf_gate_rows(before))
    after, _ = rescore(records)
    inline = inline_accuracy(after)
    assert inline is not None and all(r["ok"] for r in perf_gate_rows(inline))
    assert inline["score"] == 0.5  # IoU 1 and IoU 0 (nothing arrived)
    turn, session = after[-2], after[-1]
    assert turn["status"] == "ok" and turn["rescored"]["was"] == {"status": "error"}
    assert (session["status"], session["errors"], session["turns_ok"]) == ("ok", 0, 1)


def test_the_records_file_is_rewritten_in_place_and_only_where_it_changes(
        tmp_path: Path) -> None:
    lines = [json.dumps(r) for r in _run()]  # spaced JSON: an unchanged line keeps its bytes
    with gzip.open(tmp_path / "records.jsonl.gz", "wt") as fh:
        fh.write("\n".join(lines) + "\n")
    counts = rewrite(tmp_path)
    assert counts["steps"] == 1
    with gzip.open(tmp_path / "records.jsonl.gz", "rt") as fh:
        now = fh.read().splitlines()
    changed = [i for i, (a, b) in enumerate(zip(lines, now, strict=True)) if a != b]
    assert changed == [3, 4, 8]
    assert rewrite(tmp_path)["steps"] == 0  # a second pass finds nothing
