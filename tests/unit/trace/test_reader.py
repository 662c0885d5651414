from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentic_bench.errors import AgenticBenchError, TraceError
from agentic_bench.trace import TraceFile, validate_file, write_sessions
from agentic_bench.trace.jsonl import RawLine, parse_line

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "traces" / "sample.jsonl"


def good(session_id: str = "a", **extra: object) -> dict:
    return {"schema_version": "1", "session_id": session_id,
            "turns": [{"user": "hi", "steps": [{"kind": "llm"}]}], **extra}


def lines(tmp_path: Path, *rows: object, raw: bytes = b"") -> Path:
    path = tmp_path / "t.jsonl"
    data = b"".join((json.dumps(r) if not isinstance(r, str) else r).encode() + b"\n"
                    for r in rows) + raw
    path.write_bytes(data)
    return path


def test_sample_trace_is_valid_and_round_trips(tmp_path: Path) -> None:
    trace = TraceFile(SAMPLE)
    assert len(trace) == 3
    sessions = list(trace)
    assert sessions[0].turns[0].steps[0].kind == "llm"
    assert {s.kind for t in sessions[1].turns for s in t.steps} >= {"retrieve", "rerank", "llm"}
    out = tmp_path / "copy.jsonl"
    write_sessions(out, sessions)
    assert [s.model_dump() for s in TraceFile(out)] == [s.model_dump() for s in sessions]
    assert all('"schema_version":"1"' in line for line in out.read_text().splitlines())


def test_malformed_json_reports_file_and_line(tmp_path: Path) -> None:
    path = lines(tmp_path, good("a"), "{not json", good("c"))
    report = validate_file(path)
    assert len(report.problems) == 1
    assert str(report.problems[0]).startswith(f"{path}:2: ")
    assert "malformed JSON" in str(report.problems[0])
    with pytest.raises(TraceError, match=":2:"):
        TraceFile(path)


@pytest.mark.parametrize(("row", "field", "text"), [
    ({**good(), "schema_version": "9"}, "schema_version", "unknown version"),
    ({"session_id": "x", "turns": []}, "schema_version", "missing"),
    ({"schema_version": "1", "turns": [{"user": "u"}]}, "session_id", "Field required"),
    (good(turns=[{"user": "u", "think_time_s": -1}]), "turns[0].think_time_s", "greater than"),
    (good(turns=[{"user": "u", "steps": [{"kind": "llm", "output": {"tool_calls": [
        {"name": "nope"}]}}]}]), "turns[0].steps[0].output.tool_calls[0].name", "not declared"),
    (good(turns=[{"user": "u", "steps": [{"kind": "teleport"}]}]), "turns[0].steps[0]", "tag"),
])
def test_field_problems_have_paths(tmp_path: Path, row: dict, field: str, text: str) -> None:
    report = validate_file(lines(tmp_path, row))
    assert report.problems, row
    p = report.problems[0]
    assert p.line == 1
    assert p.field == field
    assert text.lower() in p.message.lower()


def test_duplicate_session_ids(tmp_path: Path) -> None:
    report = validate_file(lines(tmp_path, good("a"), good("b"), good("a")))
    assert [(p.line, p.field) for p in report.problems] == [(3, "session_id")]
    assert "first on line 1" in report.problems[0].message


def test_non_utf8_bytes(tmp_path: Path) -> None:
    report = validate_file(lines(tmp_path, good("a"), raw=b'{"x": "\xff\xfe"}\n'))
    assert report.problems[0].line == 2
    assert "UTF-8" in report.problems[0].message


def test_oversized_line_is_rejected_with_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    with open(path, "wb") as fh:
        fh.write(json.dumps(good("a")).encode() + b"\n")
        fh.write(b'{"pad": "' + b"x" * (100 * 1024 * 1024) + b'"}\n')
        fh.write(json.dumps(good("b")).encode() + b"\n")
    import tracemalloc

    tracemalloc.start()
    report = validate_file(path, max_line_bytes=1024 * 1024)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 16 * 1024 * 1024, peak
    assert [(p.line, "cap" in p.message) for p in report.problems] == [(2, True)]
    assert report.sessions == 2


def test_empty_and_missing_files(tmp_path: Path) -> None:
    empty = tmp_path / "e.jsonl"
    empty.write_text("")
    assert "no sessions" in str(validate_file(empty).problems[0])
    assert "cannot open" in str(validate_file(tmp_path / "absent.jsonl").problems[0])


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_fuzz_reader_never_raises_foreign_errors(data: bytes) -> None:
    try:
        session, problems = parse_line(RawLine(1, 0, data, len(data)), "fuzz.jsonl")
    except AgenticBenchError:
        return
    assert session is not None or problems or not data.decode("utf-8", "replace").strip()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=8), kids,
                                                             max_size=3), max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(st.fixed_dictionaries({"schema_version": st.sampled_from(["1", "2", 1])},
                             optional={"session_id": json_values, "turns": json_values,
                                       "tools": json_values, "system": json_values}))
def test_fuzz_structured_sessions(obj: dict) -> None:
    data = json.dumps(obj).encode()
    session, problems = parse_line(RawLine(1, 0, data, len(data)), "fuzz.jsonl")
    assert (session is None) == bool(problems) or problems


@pytest.mark.parametrize(("line", "column"), [
    ('{"schema_version": "1", "session_id": ', "end of the line (column 39)"),
    ('{"schema_version": "1",, "session_id": "a"}', "column 24"),
])
def test_malformed_json_names_the_column_of_that_line(
        tmp_path: Path, line: str, column: str) -> None:
    """JSON skips the newline as whitespace; the column must still be on this line (#22 item 13)."""
    path = lines(tmp_path, good("a"), line, good("c"))
    (problem,) = validate_file(path).problems
    assert str(problem).startswith(f"{path}:2: malformed JSON")
    assert str(problem).endswith(column)
    assert "column 1)" not in str(problem) and not str(problem).endswith("column 1")


def test_prefix_ceiling_of_a_growing_conversation() -> None:
    from agentic_bench.trace.model import Session
    from agentic_bench.trace.stats import prefix_ceiling

    def session(sid: str, user: str) -> Session:
        return Session.model_validate({"schema_version": "1", "session_id": sid, "turns": [
            {"user": user * 400, "steps": [{"kind": "llm", "output": {"content": "a" * 200}}]},
            {"user": "next", "steps": [{"kind": "llm", "output": {"content": "b"}}]}]})

    one = prefix_ceiling([session("s", "x")])
    assert one["ratio"] == one["within_session"] and 0.3 < one["ratio"] < 0.7
    two = prefix_ceiling([session("s", "x"), session("t", "x")])  # a repeat: all cached
    assert two["ratio"] > one["ratio"] and two["within_session"] == one["within_session"]
    assert prefix_ceiling([])["ratio"] is None


def test_prefix_ceiling_by_request_position() -> None:
    """The within-session ceiling of the k-th request: the first request of a session can reuse
    nothing from its own session, the second reuses the first's whole prompt."""
    from agentic_bench.trace.model import Session
    from agentic_bench.trace.stats import prefix_ceiling

    session = Session.model_validate({"schema_version": "1", "session_id": "s", "turns": [
        {"user": "x" * 640, "steps": [{"kind": "llm", "output": {"content": "a" * 64}}]},
        {"user": "next", "steps": [{"kind": "llm", "output": {"content": "b"}}]}]})
    rows = prefix_ceiling([session, session.model_copy(update={"session_id": "t"})])[
        "by_request_position"]
    assert [(r["position"], r["requests"]) for r in rows] == [(0, 2), (1, 2)]
    assert rows[0]["within_session"] == 0.0
    assert 0.8 < rows[1]["within_session"] < 1.0  # all but its new tail
