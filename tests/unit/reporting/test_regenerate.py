"""Summary regeneration from records: same numbers with a summary.json, derived without one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentic_bench.errors import UsageError
from agentic_bench.reporting.regenerate import load_run, regenerate_summary


def write_run(tmp_path: Path, records: list[dict], summary: dict | None) -> Path:
    out = tmp_path / "run"
    out.mkdir()
    (out / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    if summary is not None:
        (out / "summary.json").write_text(json.dumps(summary, indent=2))
    return out


def test_with_summary_json_reproduces_it_exactly(synth) -> None:
    records = synth.make_records(fail_every=4)
    original = synth.make_summary(records, accuracy=synth.ACCURACY, slos={"ttft_p99_ms": 60.0},
                                  duration_s=2.5, out_dir="/somewhere", client_cpu_s=0.3)
    previous = json.loads(json.dumps(original))
    again, notes = regenerate_summary(records, previous)
    assert notes == []
    assert again == previous
    assert list(again) == list(previous)  # key order too: summary.json is byte-identical


def test_without_summary_json_derives_and_says_so(synth) -> None:
    records = synth.make_records()
    original = synth.make_summary(records)
    again, notes = regenerate_summary(records, None)
    for key in ("counts", "latency_ms", "stages_ms"):
        assert again[key] == original[key], key
    steps = [r for r in records if r["type"] == "step"]
    span = (max(r["t_end_ns"] for r in steps) - min(r["t_sent_ns"] for r in steps)) / 1e9
    assert again["duration_s"] == pytest.approx(span)
    assert again["complete"] is True and again["result"] == "VALID"
    assert again["accuracy"] is None and again["benchmark"] == "synthetic"
    assert "duration derived from the records" in again["regenerated"]
    assert any("duration" in n for n in notes)


def test_segment_lines_give_the_exact_duration(synth) -> None:
    records = synth.make_records()
    records.append({"type": "segment", "duration_s": 1.5, "stop_reason": "done", "issued": 6})
    records.append({"type": "segment", "duration_s": 2.0, "stop_reason": "done", "issued": 0})
    again, _ = regenerate_summary(records, None)
    assert again["duration_s"] == 3.5 and again["stop_reason"] == "done"
    assert "host_cpu" not in again  # segments without /proc/stat ticks
    ticks = {"user": 3, "nice": 0, "system": 1, "idle": 0, "iowait": 0, "irq": 0, "softirq": 0,
             "steal": 4}
    records[-1] = {**records[-1], "host_cpu_ticks": ticks, "host_cores": 2}
    again, _ = regenerate_summary(records, None)
    assert again["host_cpu"]["steal"] == 0.5 and again["host_cpu"]["segments"] == 1


def test_unfinished_session_means_incomplete(synth) -> None:
    records = [r for r in synth.make_records() if not (r["type"] == "session"
                                                       and r["session_id"] == "s1")]
    again, notes = regenerate_summary(records, None)
    assert again["complete"] is False and again["result"] == "INVALID"
    assert any("completeness inferred" in n for n in notes)


def test_load_run(synth, tmp_path: Path) -> None:
    records = synth.make_records()
    out = write_run(tmp_path, records, synth.make_summary(records))
    with open(out / "records.jsonl", "a") as fh:
        fh.write('{"type": "step", "torn')
    run = load_run(out, regenerate=True)
    assert run.summary["harness"]["truncated_record_lines"] == 1
    assert any("unreadable" in n for n in run.notes)
    assert not isinstance(run.records, list)  # a stream of the file, read line by line (#33)
    assert len(list(run.records)) == len(records)


def test_load_run_reads_an_archived_gzip_copy(synth, tmp_path: Path) -> None:
    import gzip

    records = synth.make_records()
    out = write_run(tmp_path, records, synth.make_summary(records))
    plain = load_run(out, regenerate=True)
    plain_records = list(plain.records)  # a stream of records.jsonl, removed below
    data = (out / "records.jsonl").read_bytes()
    (out / "records.jsonl.gz").write_bytes(gzip.compress(data))
    (out / "records.jsonl").unlink()
    archived = load_run(out, regenerate=True)
    assert list(archived.records) == plain_records and archived.summary == plain.summary


def test_load_run_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not a directory"):
        load_run(tmp_path / "missing", regenerate=True)
    (tmp_path / "empty").mkdir()
    with pytest.raises(UsageError, match=r"no records\.jsonl"):
        load_run(tmp_path / "empty", regenerate=True)
    (tmp_path / "empty" / "records.jsonl").write_text("")
    with pytest.raises(UsageError, match="no records"):
        load_run(tmp_path / "empty", regenerate=True)


def test_compare_uses_summary_json_when_records_are_missing(synth, tmp_path: Path) -> None:
    records = synth.make_records()
    out = write_run(tmp_path, records, synth.make_summary(records))
    (out / "records.jsonl").unlink()
    run = load_run(out, regenerate=False)
    assert run.records == [] and run.summary["counts"]["sessions"] == 6
    assert any("no records.jsonl" in n for n in run.notes)
