"""#43 item 9: a question whose pipeline raised is judged with the answer "Error", as the
reference stores it (mlcommons/inference b66003e1 e2e-rag/reference_SUT.py 294-307: the
exception handler sets the answer to "Error" and the judge reads the stored results); ours sent
an empty answer."""

from __future__ import annotations

from agentic_bench.tasks.rag_e2e.judge import judged_items


def test_a_failed_question_is_judged_as_error_an_unanswered_one_as_empty() -> None:
    samples = [
        {"question_id": "q1", "gold": "A", "answered": True, "prediction": "A", "error": None},
        {"question_id": "q2", "gold": "B", "answered": False, "prediction": "",
         "error": "LlmCallFailed: grade call failed"},
        {"question_id": "q3", "gold": "C", "answered": False, "prediction": ""},
    ]
    items = judged_items(samples, {"q1": "one?", "q2": "two?", "q3": "three?"})
    assert [i["prediction"] for i in items] == ["A", "Error", ""]
    assert items[1] == {"question": "two?", "gold": "B", "prediction": "Error"}
