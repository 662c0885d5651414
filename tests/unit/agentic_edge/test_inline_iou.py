"""Tests of the MLPerf Edge Agentic inline IoU scorer rebuild (``inline_iou``).

Commands quoted below come from ``tests/data/mlcommons_edge/agentic_coding_excerpt.jsonl``
(MLCommons, Apache-2.0; see the NOTICE.md beside it) unless marked "synthetic".
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from agentic_bench.tasks.agentic_edge import inline_iou as iou

FIXTURE = Path(__file__).parents[2] / "data" / "mlcommons_edge" / "agentic_coding_excerpt.jsonl"


def _rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in FIXTURE.read_text().splitlines() if line.strip()]


def _fixture_commands() -> set[str]:
    return {
        json.loads(call["function"]["arguments"])["command"]
        for row in _rows()
        for call in row.get("tool_calls") or []
    }


def _bash(command: str, key: str = "command") -> dict[str, Any]:
    arguments = json.dumps({key: command})
    return {"type": "function", "function": {"name": "bash", "arguments": arguments}}


FROM_FIXTURE = [
    # pipe: every stage counts
    ("find . -type f -name '*.py' | head -50", ["find", "head"]),
    # only a stage's first word counts (grep after xargs does not)
    ("find src -name '*.py' | xargs grep -l 'class Blueprint'", ["find", "xargs"]),
    # && stages; cd is not in the alias table
    (
        "pip install pytest -q && cd /testbed && python -m pytest tests/test_blueprints.py -q",
        ["pip", "python"],
    ),
    # leading NAME=value assignment skipped
    ("cd /testbed && PYTHONPATH=src python /tmp/repro.py", ["python"]),
    # quoted spans are blanked: the \| inside single quotes does not split
    (
        "grep -rn 'empty.*name\\|name.*empty' tests/test_blueprints.py src/flask/blueprints.py",
        ["grep"],
    ),
    # echo is not in the table; redirections are just words
    ("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat patch.txt", ["cat"]),
    ("git diff -- requests/sessions.py > patch.txt", ["git"]),
    ("sed -n '270,310p' requests/sessions.py", ["sed"]),
    ("rm -f repro.py test_merge.py fix.py", ["rm"]),
]


@pytest.mark.parametrize(("command", "expected"), FROM_FIXTURE)
def test_rules_on_fixture_commands(command: str, expected: list[str]) -> None:
    assert command in _fixture_commands()
    assert iou.executables(command) == expected


def test_heredoc_lines_are_stages_and_python3_is_python() -> None:
    heredocs = sorted(c for c in _fixture_commands() if "<< 'EOF'" in c)
    assert heredocs
    for command in heredocs:
        assert "\n" in command
        run = iou.executables(command)
        assert run[0] in ("cat", "python")
        assert set(run) <= {"cat", "python"}
    # "python3 << 'EOF' ..." (pallets__flask-5014 turn 28): version digit dropped, alias python
    python3 = [c for c in heredocs if c.startswith("python3 << ")]
    assert len(python3) == 1 and iou.executables(python3[0]) == ["python"]
    # "cat > repro.py << 'EOF' ... EOF\npython repro.py": the line after EOF is its own stage
    assert any(iou.executables(c) == ["cat", "python"] for c in heredocs)


@pytest.mark.parametrize(
    ("command", "expected"),
    [  # synthetic
        ("python3.11 -m pytest; /usr/bin/python3 x.py || PY x", ["python", "python", "python"]),
        ("PIP3.11 install x", ["pip"]),
        ("python3.1.2.3 x", []),  # only one or two trailing .N groups are removed
        ("sudo env FOO=1 BAR_2=x time nice exec command python x", ["python"]),
        ("nice -n 10 python x", []),  # a wrapper's options are not skipped
        ("sudo -u me ls", []),
        ("/usr/bin/env python x", []),  # wrappers are matched before taking the basename
        ("1FOO=1 python", []),  # not an assignment: becomes the (unknown) executable
        ("timeout 10 pytest", ["timeout"]),  # timeout is an alias entry, not a wrapper
        ('bash -c "python x && ls"', []),  # bash unknown, quoted body blanked
        ("sh -c 'grep x y'", []),
        ("ls `which python`", ["ls"]),
        (
            "rg x | less; wget u && apt-get install y; . venv/bin/activate",
            ["grep", "cat", "curl", "apt", "source"],
        ),
        (
            "egrep a | fgrep b | ag c | gawk d | locate e | more",
            ["grep", "grep", "grep", "awk", "find", "cat"],
        ),
        (
            "sphinx-build a && sphinx-quickstart && py x && python2 y",
            ["sphinx", "sphinx", "python", "python"],
        ),
        ("make & make test", ["make"]),  # single & does not split
        ("ls |& tee log", ["ls"]),  # "|" splits, then "&" is the next stage's first word
        ("./run.sh; cd x; echo y; pwd", []),
        ("", []),
        ('echo "unterminated && ls', ["ls"]),  # an unclosed quote is not a quoted span
    ],
)
def test_rules_synthetic(command: str, expected: list[str]) -> None:
    assert iou.executables(command) == expected


def test_turn_executables_tool_call_forms() -> None:
    assert iou.turn_executables([_bash("ls -la"), _bash("cat x | head", "cmd")]) == [
        "ls",
        "cat",
        "head",
    ]
    flat = {"name": "bash", "arguments": {"command": "git diff"}}
    assert iou.turn_executables([flat, {"name": "bash", "arguments": '{"cmd": "ls"}'}]) == [
        "git",
        "ls",
    ]
    # "command" empty -> falls back to "cmd"
    empty = {"function": {"name": "bash", "arguments": {"command": "", "cmd": "ls"}}}
    assert iou.turn_executables((empty,)) == ["ls"]


@pytest.mark.parametrize(
    "tool_calls",
    [
        None,
        "ls",
        {"function": {"name": "bash", "arguments": {"command": "ls"}}},  # not a list
        [None, "x", 3],
        [{"function": {"name": "python", "arguments": {"command": "ls"}}}],  # non-bash tool
        [{"function": {"name": "bash", "arguments": '{"command": "ls"'}}],  # malformed JSON
        [{"function": {"name": "bash", "arguments": '["ls"]'}}],  # JSON, not an object
        [{"function": {"name": "bash", "arguments": None}}],
        [{"function": {"name": "bash", "arguments": {"command": ["ls"]}}}],
        [{"function": None, "name": "bash", "arguments": {"command": "ls"}}],
    ],
)
def test_turn_executables_skips(tool_calls: Any) -> None:
    assert iou.turn_executables(tool_calls) == []


def test_multiset_iou() -> None:
    assert iou.multiset_iou(["sed", "grep"], ["grep", "sed"]) == 1.0
    assert iou.multiset_iou(["grep"], ["grep", "grep"]) == 0.5
    assert iou.multiset_iou(["grep", "ls"], ["grep", "cat", "cat"]) == 0.25
    assert iou.multiset_iou([], ["ls"]) == 0.0
    assert iou.multiset_iou(["ls"], []) == 0.0
    with pytest.raises(ValueError):
        iou.multiset_iou([], [])


def test_recorded_turns_score_one_against_themselves() -> None:
    expected = iou.expected_assistant_turns(_rows())
    assert len(expected) == 71  # 44 + 27 client rows, each followed by an assistant row
    for (conversation_id, _), recorded in expected.items():
        assert iou.domain_of(conversation_id) == "coding"
        score = iou.score_turn(recorded, recorded["tool_calls"], conversation_id=conversation_id)
        assert score == 1.0


def test_text_only_and_missing_answers_score_zero() -> None:
    recorded = iou.expected_assistant_turns(_rows())[("psf__requests-1921", 1)]
    text = "THOUGHT: I will list the files.\n```bash\nls -la\n```"
    assert iou.score_turn(recorded, None, text) == 0.0
    assert iou.score_turn(recorded, [], text, "ls -la") == 0.0
    assert iou.score_turn(recorded, None) == 0.0  # no output at all


def test_turns_without_ground_truth_are_excluded() -> None:
    assert iou.score_turn({"role": "assistant", "content": "done"}, [_bash("ls")]) is None
    only_unknown = {"tool_calls": [_bash("cd /testbed && echo hi")]}
    assert not iou.has_ground_truth(only_unknown)
    assert iou.score_turn(only_unknown, [_bash("ls")]) is None
    # a workflow turn needs intent codes, tool calls do not count
    assert iou.score_turn({"tool_calls": [_bash("ls")]}, None, conversation_id="sim_3") is None


def test_workflow_intent_rules() -> None:
    assert iou.domain_of("sim_12") == "workflow"
    assert iou.domain_of("sim_12__repeat_2") == "coding"  # ids are matched without the suffix
    assert iou.domain_of("xsim_1") == iou.domain_of("sim_") == "coding"
    assert iou.ground_truth_intents({"intent_codes": ["i001", "I002", None, "", 3]}) == {
        "I001",
        "I002",
    }
    assert iou.ground_truth_intents({"intent_codes": "I001"}) == set()
    assert iou.model_intent("final intent: I042") == "I042"
    assert iou.model_intent("INTENT:i042") == "I042"  # tag is case-insensitive
    assert iou.model_intent("I001 then I002 then I003") == "I003"  # last bare code
    assert iou.model_intent("i004") is None  # bare codes need an upper-case I
    assert iou.model_intent("I1234 and xI123") is None
    assert iou.model_intent("intent: I001", "I002") == "I001"  # a tag beats bare codes
    assert iou.model_intent("I001", "I002 I003") == "I003"  # reasoning before content
    assert iou.model_intent("intent: I001", "intent: I002") == "I002"
    assert iou.model_intent(None, 5) is None
    recorded = {"intent_codes": ["I042"]}
    assert iou.score_turn(recorded, None, "intent: I042", conversation_id="sim_1") == 1.0
    assert iou.score_turn(recorded, None, "intent: I041", conversation_id="sim_1") == 0.0
    assert iou.score_turn(recorded, None, None, conversation_id="sim_1") == 0.0


def test_split_repeat() -> None:
    assert iou.split_repeat("conv1__repeat_3") == ("conv1", 3)
    assert iou.split_repeat("conv1") == ("conv1", 1)
    assert iou.split_repeat("conv1__repeat_3x") == ("conv1__repeat_3x", 1)


def test_expected_assistant_turns_pairing() -> None:
    rows = [
        {"conversation_id": "c", "turn": 4, "role": "assistant", "content": "b"},
        {"conversation_id": "c", "turn": 1, "role": "user", "content": "q", "x": math.nan},
        {"conversation_id": "c", "turn": 2, "role": "assistant", "content": "a", "y": math.nan},
        {"conversation_id": "c", "turn": 3, "role": "tool", "content": "r"},
        {"conversation_id": "c", "turn": 5, "role": "assistant", "content": "orphan"},
        {"conversation_id": "d", "turn": 1, "role": "user", "content": "no reply"},
        {"conversation_id": None, "turn": 1, "role": "user"},
        {"conversation_id": 7, "turn": 1, "role": "user"},
        {"conversation_id": 7, "turn": 2, "role": "assistant"},
    ]
    got = iou.expected_assistant_turns(rows)
    assert sorted(got) == [("7", 1), ("c", 1), ("c", 3)]
    assert got[("c", 1)]["_assistant_turn"] == 2 and got[("c", 1)]["y"] is None
    assert got[("c", 3)]["content"] == "b"


def test_summarize_counts_missing_turns_as_zero() -> None:
    scores: dict[iou.TurnKey, float | None] = {
        ("code1", 1, 1): 1.0,
        ("code1", 2, 1): 1.0,
        ("sim_1", 1, 1): None,  # issued, no output
    }
    out = iou.summarize(scores, issued=3)
    assert out["score"] == 0.6667
    assert out["turns"] == {"issued": 3, "expected": 3, "observed": 2, "missing": 1, "scored": 3}
    assert out["domains"] == {
        "coding": {"score": 1.0, "scored": 2},
        "workflow": {"score": 0.0, "scored": 1},
    }
    assert [row.get("missing", False) for row in out["per_turn"]] == [False, False, True]
    assert out["distribution"]["count"] == 3
    assert out["distribution"]["mean"] == pytest.approx(2 / 3)
    assert out["distribution"]["histogram"]["counts"] == [1, 0, 0, 0, 0, 0, 0, 0, 0, 2]


def test_summarize_edges() -> None:
    empty = iou.summarize({}, issued=2)  # issued turns, none scorable
    assert empty["score"] is None and empty["domains"] == {}
    assert empty["turns"] == {"issued": 2, "expected": 0, "observed": 0, "missing": 0, "scored": 0}
    out = iou.summarize({("a", 1, 1): 0.25, ("a", 1, 3): 0.33333, ("b", 1, 1): 0.0}, issued=4)
    assert out["score"] == round((0.25 + 0.33333) / 3, 4)
    assert out["turns"]["missing"] == 0 and out["turns"]["observed"] == 3
    assert out["distribution"]["histogram"]["counts"][:4] == [1, 0, 1, 1]
    with pytest.raises(ValueError):
        iou.summarize({("a", 1, 1): 1.0}, issued=0)


def _reference_turn_score(gt_actions: list[str], model_actions: list[str]) -> float:
    """Literal transcription of mlcommons/endpoints src/inference_endpoint/evaluation/
    scoring.py L710-713 (snapshot ea332753): Counter union/intersection sizes."""
    gt_counts = Counter(gt_actions)
    model_counts = Counter(model_actions)
    union = sum((gt_counts | model_counts).values())
    return sum((gt_counts & model_counts).values()) / union


def test_transcription_against_perturbed_predictions() -> None:
    expected = iou.expected_assistant_turns(_rows())
    keys = sorted(expected)
    checked = 0
    values: set[float] = set()
    for shift in (1, 2, 5):
        for i, key in enumerate(keys):
            recorded = expected[key]
            predicted = expected[keys[i - shift]]["tool_calls"]  # another turn's calls
            got = iou.score_turn(recorded, predicted, conversation_id=key[0])
            want = _reference_turn_score(
                iou.turn_executables(recorded["tool_calls"]), iou.turn_executables(predicted)
            )
            assert got == want
            values.add(want)
            checked += 1
    assert checked == 3 * 71
    assert {0.0, 1.0} < values and any(0 < v < 1 for v in values)  # partial overlaps too
