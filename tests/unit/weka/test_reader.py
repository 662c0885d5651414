"""Reading Weka traces: one per .json file, a directory of them, or a JSONL corpus read as a
stream; every field checked with file:line:field problems.

The rules are the format's (callanjfox/agentic-coding-analysis docs/TRACE_FORMAT.md) as AIPerf
0.13 reads it (src/aiperf/dataset/loader/weka_trace_models.py: unknown fields refused,
hash_id_scope "local" only)."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from agentic_bench.errors import TraceError
from agentic_bench.trace.importers import detect_format
from agentic_bench.trace.weka import WekaCorpus, scan
from agentic_bench.trace.weka.timeline import subagent_times

DATA = Path(__file__).resolve().parents[2] / "data" / "weka"


def trace(**over: object) -> dict:
    base = {"id": "t1", "models": ["m"], "block_size": 64, "hash_id_scope": "local",
            "tool_tokens": 10, "system_tokens": 20,
            "requests": [{"t": 0.0, "type": "s", "model": "m", "in": 130, "out": 5,
                          "hash_ids": [1, 2], "input_types": ["text"], "output_types": ["text"],
                          "stop": "end_turn", "api_time": 0.5, "ttft": 0.1}]}
    base.update(over)
    return base


def test_every_form_is_read(tmp_path: Path) -> None:
    corpus = WekaCorpus(DATA / "corpus.jsonl")
    assert [t.id for t in corpus] == ["tree-a", "tree-b"]
    assert corpus.report.rows == 15 and corpus.report.subagents == 3
    folder = tmp_path / "traces"
    folder.mkdir()
    for i in range(3):
        (folder / f"trace_{i}.json").write_text(json.dumps(trace(id=f"t{i}")))
    (folder / "notes.txt").write_text("not a trace")
    assert [t.id for t in WekaCorpus(folder)] == ["t0", "t1", "t2"]
    assert detect_format(folder) == "weka" and detect_format(DATA / "corpus.jsonl") == "weka"
    assert detect_format(DATA / "tree_subagents.json") == "weka"
    one = WekaCorpus(DATA / "tree_subagents.json").trace(0)
    assert one.rows()[2][0] == "requests[2].requests[0]" and one.totals is not None


def test_problems_name_file_line_and_field(tmp_path: Path) -> None:
    bad = trace()
    bad["requests"][0]["in"] = -1
    bad["requests"][0]["colour"] = "red"  # AIPerf refuses unknown fields too
    pretty = tmp_path / "bad.json"
    pretty.write_text(json.dumps(bad, indent=2))
    problems = scan(pretty).problems
    text = pretty.read_text().splitlines()
    by_field = {p.field: p for p in problems}
    assert set(by_field) == {"requests[0].in", "requests[0].colour"}
    assert '"in": -1' in text[by_field["requests[0].in"].line - 1]
    assert '"colour"' in text[by_field["requests[0].colour"].line - 1]
    lines = [json.dumps(trace(id="a")), json.dumps(trace(id="b", hash_id_scope="global")),
             "{not json", json.dumps(trace(id="a")), json.dumps([1])]
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("\n".join(lines) + "\n")
    found = [(p.line, p.field, p.message) for p in scan(corpus).problems]
    assert found[0][:2] == (2, "hash_id_scope") and "'global'" in found[0][2]
    assert found[1][0] == 3 and "malformed JSON" in found[1][2]
    assert found[2][:2] == (4, "id") and "duplicate trace id 'a'" in found[2][2]
    assert found[3][0] == 5 and "expected a JSON object" in found[3][2]
    with pytest.raises(TraceError):
        WekaCorpus(corpus)


def test_blocks_and_numbers_are_checked(tmp_path: Path) -> None:
    too_many = trace()
    too_many["requests"][0]["hash_ids"] = [1, 2, 3, 4]  # 130 tokens hold 3 blocks at most
    negative = trace()
    negative["requests"][0]["api_time"] = -1.5
    nan = trace()
    nan["requests"][0]["ttft"] = float("nan")  # not JSON at all
    for i, obj in enumerate((too_many, negative, nan)):
        path = tmp_path / f"x{i}.json"
        path.write_text(json.dumps(obj))
        problems = scan(path).problems
        assert len(problems) == 1, problems
    assert "more than the 130-token input holds" in scan(tmp_path / "x0.json").problems[0].message
    assert scan(tmp_path / "x1.json").problems[0].field == "requests[0].api_time"
    assert "malformed JSON" in scan(tmp_path / "x2.json").problems[0].message


def _corpus(path: Path, traces: int) -> Path:
    ids = list(range(100_000, 112_000))  # 12,000 blocks: 768k tokens of history
    with open(path, "w") as fh:
        for i in range(traces):
            rows = [{"t": float(k * 10), "type": "n", "model": "m", "in": 768_000 + k,
                     "out": 50, "hash_ids": ids[:11_000 + k], "api_time": 1.0}
                    for k in range(2)]
            sub = {"t": 5.0, "type": "subagent", "agent_id": "a1", "subagent_type": "Explore",
                   "duration_ms": 3000, "status": "completed", "models": ["m"],
                   "requests": [{"t": 5.5, "type": "n", "model": "m", "in": 64, "out": 1,
                                 "hash_ids": [9000]}]}
            fh.write(json.dumps(trace(id=f"big{i}", requests=[rows[0], sub, rows[1]])) + "\n")
    return path


def _peak_scan(path: Path) -> tuple[int, object]:
    tracemalloc.start()
    report = scan(path)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak, report


def test_a_large_corpus_is_read_as_a_stream(tmp_path: Path) -> None:
    """A corpus is never held in memory (the Hugging Face corpora's traces.jsonl is 1.8 GB):
    scanning three times as many traces takes no more memory at its peak — one trace at a
    time. Subagent rows carry absolute times, as the SemiAnalysis corpora's do."""
    small = _corpus(tmp_path / "small.jsonl", 15)
    large = _corpus(tmp_path / "large.jsonl", 45)
    peak_small, _ = _peak_scan(small)
    peak_large, report = _peak_scan(large)
    assert not report.problems and len(report.spots) == 45  # type: ignore[attr-defined]
    assert large.stat().st_size > 7_000_000
    assert peak_large < 1.3 * peak_small, (peak_small, peak_large)
    assert peak_large < large.stat().st_size / 2
    entry = WekaCorpus(large).trace(44).requests[1]
    times = subagent_times(entry)  # type: ignore[arg-type]
    assert not times.relative and times.spawn_s == 5.0 and times.end_s == 8.0
    assert times.starts_s == (5.5,)
