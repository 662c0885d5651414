"""#45 item 3: a ``summary.json`` read back from disk is validated where it is read, and a
field of the wrong kind is named in one line (``why_invalid``) — an error for an export and
``submission pack``, a note (then the summary rebuilt from the records) for ``report`` and
``compare``, a point run again for a sweep's ``--resume``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from agentic_bench.errors import UsageError
from agentic_bench.metrics.summary_model import Summary, why_invalid


def _why(raw: dict) -> str:
    with pytest.raises(ValidationError) as err:
        Summary.model_validate(raw)
    return why_invalid(err.value)


def test_why_invalid_names_the_field_and_what_it_got() -> None:
    assert _why({"loadgen": 3}) == "loadgen: expected an object, got 3"
    assert _why({"counts": {"sessions": "x"}}) == \
        "counts.sessions: expected an integer, got a string"
    assert _why({"latency_ms": {"ttft": [1]}}) == "latency_ms.ttft: expected an object, got a list"
    assert _why({"complete": None}) == "complete: expected true or false, got null"


def _run_folder(tmp_path: Path, synth, summary: dict) -> Path:
    out = tmp_path / "run"
    out.mkdir()
    records = synth.make_records()
    (out / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    return out


def test_an_export_names_the_field_a_summary_got_wrong(tmp_path: Path, synth) -> None:
    from agentic_bench.export.run_folder import open_run

    good = synth.make_summary(synth.make_records())
    run = _run_folder(tmp_path, synth, {**good, "counts": {**good["counts"], "requests": "n"}})
    with pytest.raises(UsageError, match=r"summary\.json: not a run's summary "
                                         r"\(counts\.requests: expected an integer"):
        open_run(run)


def test_an_export_reads_a_good_summary_as_the_model(tmp_path: Path, synth) -> None:
    from agentic_bench.export.run_folder import open_run

    good = synth.make_summary(synth.make_records())
    folder = open_run(_run_folder(tmp_path, synth, good))
    assert isinstance(folder.summary, Summary)
    assert folder.summary.to_dict() == good


def test_report_notes_a_summary_it_cannot_read_and_rebuilds_it(tmp_path: Path, synth) -> None:
    from agentic_bench.reporting.regenerate import load_run

    good = synth.make_summary(synth.make_records())
    run = _run_folder(tmp_path, synth, {**good, "throughput": "fast"})
    loaded = load_run(run, regenerate=False)
    assert any("not a summary (throughput: expected an object, got a string); ignored" in n
               for n in loaded.notes), loaded.notes
    assert loaded.summary["counts"] == good["counts"]  # rebuilt from the records


def test_a_sweep_resume_runs_again_a_point_whose_summary_is_not_one(tmp_path: Path,
                                                                    synth) -> None:
    from agentic_bench.run.sweep import _finished

    good = synth.make_summary(synth.make_records())
    assert _finished(_run_folder(tmp_path, synth, good)) == good
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "summary.json").write_text(json.dumps({**good, "counts": []}))
    assert _finished(bad) is None
    interrupted = tmp_path / "cut"
    interrupted.mkdir()
    (interrupted / "summary.json").write_text(json.dumps({**good, "stop_reason": "interrupted"}))
    assert _finished(interrupted) is None
