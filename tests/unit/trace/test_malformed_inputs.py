"""#42 "nothing silently wrong", items 13 and 14, below the CLI: JSON nested deeper than the
parser follows is a located trace problem (never a RecursionError), a run folder's summary.json
that is not an object or an --out that cannot hold a submission is a UsageError naming the path,
and a pretty-printed Weka trace with a problem on every row places them all in one pass."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentic_bench.errors import TraceError, UsageError
from agentic_bench.trace import validate_file
from agentic_bench.trace.importers import FORMATS, detect_format, import_file
from agentic_bench.trace.mlcommons_agentic import looks_like_mlcommons_agentic
from agentic_bench.trace.weka import scan

DEPTH = 100_000
DEEP_LIST = "[" * DEPTH + "]" * DEPTH
DEEP_OBJECT = '{"a":' * DEPTH + "1" + "}" * DEPTH
GOOD = {"schema_version": "1", "session_id": "ok", "turns": [
    {"user": "hi", "steps": [{"kind": "llm"}]}]}


def deep_file(tmp_path: Path, deep: str, *, after_a_good_line: bool = False) -> Path:
    path = tmp_path / "deep.jsonl"
    path.write_text((json.dumps(GOOD) + "\n" if after_a_good_line else "") + deep + "\n")
    return path


@pytest.mark.parametrize("deep", [DEEP_LIST, DEEP_OBJECT], ids=["list", "object"])
def test_validate_reports_too_deep_json_at_its_line(tmp_path: Path, deep: str) -> None:
    path = deep_file(tmp_path, deep, after_a_good_line=True)
    report = validate_file(path)
    assert report.sessions == 1 and len(report.problems) == 1
    text = str(report.problems[0])
    assert text.startswith(f"{path}:2: malformed JSON: nested {DEPTH} levels deep"), text
    assert "expected at most about" in text and "at column" in text


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("deep", [DEEP_LIST, DEEP_OBJECT], ids=["list", "object"])
def test_every_importer_reports_too_deep_json_at_its_line(tmp_path: Path, fmt: str,
                                                          deep: str) -> None:
    path = deep_file(tmp_path, deep)
    with pytest.raises(TraceError) as err:
        list(import_file(fmt, path))
    assert str(err.value).startswith(f"{path}:1: malformed JSON: "), str(err.value)
    assert "nested" in str(err.value) or "1024 levels" in str(err.value)


def test_detection_of_too_deep_json_is_no_format(tmp_path: Path) -> None:
    for deep in (DEEP_LIST, DEEP_OBJECT):
        path = deep_file(tmp_path, deep)
        assert detect_format(path) is None
        assert looks_like_mlcommons_agentic(path) is False


@pytest.mark.parametrize("fmt", ["sglang-agentic", "otel-genai", "atif", "langsmith"])
def test_one_json_document_too_deep_is_placed_at_its_line(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "doc.json"
    path.write_text('{\n  "a": 1,\n  "b": ' + DEEP_OBJECT + "\n}\n")
    with pytest.raises(TraceError) as err:
        list(import_file(fmt, path))
    assert str(err.value).startswith(f"{path}:3: malformed JSON: nested"), str(err.value)


def test_a_weka_document_too_deep_is_placed_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "trace.json"
    path.write_text('{\n  "id": "t",\n  "block_size": 64,\n  "hash_id_scope": "local",\n'
                    '  "requests": ' + DEEP_LIST + "\n}\n")
    assert detect_format(path) == "weka"
    (problem,) = scan(path).problems
    assert problem.line == 5
    assert "expected at most 1024 levels of arrays/objects" in problem.message


# -- item 14: a problem on every row of a pretty-printed Weka trace, placed in one pass ------


def weka_rows(rows: int) -> dict[str, Any]:
    row = {"t": 0.0, "type": "s", "model": "m", "in": 640, "out": 4,
           "hash_ids": list(range(1, 11)), "stop": "end_turn", "api_time": -1.0}
    return {"id": "w", "models": ["m"], "block_size": 64, "hash_id_scope": "local",
            "requests": [dict(row, t=float(i)) for i in range(rows)]}


def test_every_row_problem_is_at_the_line_of_its_field(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(weka_rows(300), indent=2))
    lines = path.read_text().splitlines()
    problems = scan(path).problems
    assert [p.field for p in problems] == [f"requests[{i}].api_time" for i in range(300)]
    for problem in problems:
        assert lines[problem.line - 1].strip() == '"api_time": -1.0', problem
    assert len({p.line for p in problems}) == 300


class CountingText(str):
    """A str that counts its characters looked at one by one (``text[i]``, slices)."""

    reads = 0

    def __getitem__(self, key: Any) -> str:
        CountingText.reads += 1
        return str.__getitem__(self, key)


def test_placing_every_problem_looks_at_the_text_once() -> None:
    """The old ``line_of`` walked from the first byte for each problem (300 problems: 300
    passes); ``lines_of`` places them all in one, not counting time but characters read."""
    from agentic_bench.trace.weka.json_lines import line_of, lines_of

    plain = json.dumps(weka_rows(300), indent=2)
    paths = [f"requests[{i}].api_time" for i in range(300)] + ["requests[7].nope", "id"]
    text = CountingText(plain)
    CountingText.reads = 0
    got = lines_of(text, paths)
    assert CountingText.reads < len(plain)  # one pass (the old way: 300 of them)
    assert got == {p: line_of(plain, p) for p in paths}
    row_7 = plain.splitlines()[got["requests[7].nope"] - 1]  # a missing field: its row's line
    assert row_7.strip() == "{" and got["requests[7].nope"] < got["requests[7].api_time"]
    assert got["id"] == 2


def test_scan_places_a_documents_problems_with_one_call(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from agentic_bench.trace.weka import json_lines, reader

    calls: list[int] = []

    def counted(text: str, paths: Any) -> dict[str, int]:
        paths = list(paths)
        calls.append(len(paths))
        return json_lines.lines_of(text, paths)

    monkeypatch.setattr(reader, "lines_of", counted)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(weka_rows(50), indent=2))
    assert len(scan(path).problems) == 50
    assert calls == [50]


# -- item 13 (b): submission pack's run folders and --out ------------------------------------


def edge_run(root: Path, summary: str) -> Path:
    """A `run agentic-edge` folder, its summary.json as given."""
    (root / "performance").mkdir(parents=True)
    (root / "accuracy").mkdir()
    (root / "summary.json").write_text(summary)
    (root / "config.yaml").write_text('type: "online"\n')
    (root / "performance" / "result_summary.json").write_text("{}")
    (root / "accuracy" / "accuracy_results.json").write_text("{}")
    return root


GOOD_SUMMARY = json.dumps({"benchmark": "agentic-edge"})


@pytest.mark.parametrize(("summary", "said"), [
    ("[]", "got a list"), ("3", "got 3"), ('"x"', "got a string"), ("null", "got null"),
    ('{"benchmark": []}', "benchmark [] has no MLPerf submission layout"),
    ('{"benchmark": "rag-e2e", "loadgen": 3}', "loadgen: expected an object, got 3"),
    ('{"benchmark": "agentic-edge", "counts": {"sessions": "x"}}',
     "counts.sessions: expected an integer, got a string"),
    ("[" * DEPTH, "nested too deeply"),
])
def test_a_summary_that_is_not_a_run_summary_is_named(tmp_path: Path, summary: str,
                                                      said: str) -> None:
    from agentic_bench.submission import read_run

    run = edge_run(tmp_path / "run", summary)
    with pytest.raises(UsageError) as err:
        read_run(run)
    assert str(run) in str(err.value) and said in str(err.value), str(err.value)
    assert "\n" not in str(err.value)


def test_a_summary_not_in_utf8_is_named(tmp_path: Path) -> None:
    from agentic_bench.submission import read_run

    run = edge_run(tmp_path / "run", GOOD_SUMMARY)
    (run / "summary.json").write_bytes(b'{"benchmark": "\xff"}')
    with pytest.raises(UsageError, match=r"summary\.json: not JSON \(not UTF-8 text\)"):
        read_run(run)


@pytest.mark.parametrize("where", ["file", "under-a-file", "division-is-a-file", "proc"])
def test_an_out_that_cannot_hold_a_submission_is_named(tmp_path: Path, where: str) -> None:
    from agentic_bench.submission import pack

    run = edge_run(tmp_path / "run", GOOD_SUMMARY)
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "open").write_text("x")
    out = {"file": tmp_path / "a-file", "under-a-file": tmp_path / "a-file" / "sub",
           "division-is-a-file": tmp_path / "sub", "proc": Path("/proc/agentic-bench-sub")}[where]
    before = sorted(tmp_path.rglob("*"))
    with pytest.raises(UsageError) as err:
        pack([run], submitter="acme", system="box", division="open", out=out)
    message = str(err.value)
    assert message.startswith(f"--out {out}: ") and "expected a submission folder" in message
    assert "\n" not in message
    assert sorted(tmp_path.rglob("*")) == before  # nothing written
