"""rag-agent scoring: the sample record and the accuracy block from gold answers."""

from __future__ import annotations

from rag_e2e_support import QUESTIONS

from agentic_bench.tasks.rag_agent.scoring import agent_accuracy, episode_sample, rescore
from agentic_bench.tasks.rag_agent.tools import StageSpan, ToolOutcome

SPAN = (StageSpan("embed", 0, 1),)


def test_a_right_answer_scores_em_and_f1_and_the_pages_are_scored() -> None:
    found = ToolOutcome("search", "...", SPAN, ("Paris", "Woodson, Arkansas"))
    opened = ToolOutcome("open", "...", SPAN, ("Paris",))
    bad = ToolOutcome("open", "Error: x", SPAN, error="x")
    s = episode_sample("q2#0", QUESTIONS[1], "Answer: Paris.\nmore", [found, opened, bad],
                       ["capital"], 3, "answer", None)
    assert s["task"] == "rag-agent" and s["answered"] and s["prediction"] == "Paris"
    assert s["em"] == 1.0 and s["f1"] == 1.0
    assert (s["searches"], s["opens"], s["tool_errors"]) == (1, 1, 1)
    assert s["found_pages"] == ["Paris", "Woodson, Arkansas"] and s["opened_pages"] == ["Paris"]
    assert s["retrieval"]["2"]["recall"] == 1.0 and s["context"]["precision"] == 1.0


def test_a_partial_answer_scores_f1_only_and_no_reply_scores_zero() -> None:
    partial = episode_sample("q2#0", QUESTIONS[1], "Paris France", [], [], 1, "answer", None)
    assert partial["em"] == 0.0 and 0.0 < partial["f1"] < 1.0
    for reply, stop, error in ((None, "max_steps", None), ("Paris", "error", "LLM call failed")):
        s = episode_sample("q2#0", QUESTIONS[1], reply, [], [], 6, stop, error)
        assert not s["answered"] and s["prediction"] == "" and s["em"] == s["f1"] == 0.0


def test_the_accuracy_block_means_the_samples() -> None:
    right = episode_sample("q2#0", QUESTIONS[1], "Paris", [], [], 2, "answer", None)
    wrong = episode_sample("q1#1", QUESTIONS[0], None, [], [], 6, "max_steps", None)
    other = {"type": "sample", "task": "rag-e2e", "em": 1.0, "f1": 1.0}
    acc = agent_accuracy([right, wrong, other, {"type": "step"}], "em", target=0.4)
    assert acc is not None and acc["questions"] == 2 and acc["answered"] == 1
    assert acc["exact_match"] == acc["headline"] == 0.5 and acc["target"] == 0.4
    assert acc["stops"] == {"answer": 1, "max_steps": 1} and acc["unanswered"] == 1
    assert acc["llm_calls_per_question"]["mean"] == 4.0
    assert agent_accuracy([other]) is None
    again = rescore([right, wrong], acc)
    assert again is not None and again["metric"] == acc["metric"] and again["headline"] == 0.5


def test_a_judge_headline_is_the_judges_accuracy() -> None:
    right = episode_sample("q2#0", QUESTIONS[1], "Paris", [], [], 2, "answer", None)
    acc = agent_accuracy([right], "judge", {"accuracy": 0.25})
    assert acc is not None and acc["headline"] == 0.25 and acc["judge"] == {"accuracy": 0.25}
