"""--resume refuses a run whose benchmark options changed (tool mode, sample count, ...)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentic_bench.errors import ConfigError
from agentic_bench.metrics.resume import prepare_resume

CONFIG = {"load": {"scenario": "single-stream", "grace_s": 30.0}, "history": "recorded"}


def write_run(out: Path, workload: dict[str, object] | None) -> None:
    out.mkdir(parents=True, exist_ok=True)
    run = {"type": "run", "config": CONFIG, **({"workload": workload} if workload else {})}
    session = {"type": "session", "session_id": "a#0", "session_index": 0, "status": "ok"}
    (out / "records.jsonl").write_text(json.dumps(run) + "\n" + json.dumps(session) + "\n")


def test_other_task_options_are_refused(tmp_path: Path) -> None:
    write_run(tmp_path, {"benchmark": "agentic-edge", "tool_mode": "native", "samples": 995})
    with pytest.raises(ConfigError, match="tool_mode: 'native' then, 'prompt' now"):
        prepare_resume(tmp_path, CONFIG,
                       {"benchmark": "agentic-edge", "tool_mode": "prompt", "samples": 995})


def test_same_options_resume(tmp_path: Path) -> None:
    identity = {"benchmark": "agentic-edge", "tool_mode": "native", "samples": 995}
    write_run(tmp_path, identity)
    state = prepare_resume(tmp_path, CONFIG, identity)
    assert state.done == {0}


def test_runs_recorded_before_the_identity_existed_still_resume(tmp_path: Path) -> None:
    write_run(tmp_path, None)
    state = prepare_resume(tmp_path, CONFIG, {"benchmark": "agentic-edge"})
    assert state.done == {0}


def test_an_archived_run_says_how_to_resume_it(tmp_path: Path) -> None:
    write_run(tmp_path, None)
    (tmp_path / "records.jsonl").rename(tmp_path / "records.jsonl.gz")
    with pytest.raises(ConfigError, match="gunzip it"):
        prepare_resume(tmp_path, CONFIG, {"benchmark": "agentic-edge"})


def test_retry_errors_sets_error_sessions_aside(tmp_path: Path) -> None:
    identity = {"benchmark": "agentic-edge"}
    write_run(tmp_path, identity)
    failed = [{"type": "step", "session_id": "b#1", "status": "error"},
              {"type": "sample", "session_id": "b#1", "answered": False},
              {"type": "session", "session_id": "b#1", "session_index": 1, "status": "error"}]
    with open(tmp_path / "records.jsonl", "a") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in failed)
    assert prepare_resume(tmp_path, CONFIG, identity).done == {0, 1}  # errors are final...
    (tmp_path / "records.jsonl").write_text(
        (tmp_path / "records.before-resume-1.jsonl").read_text())
    state = prepare_resume(tmp_path, CONFIG, identity, retry_errors=True)  # ...unless retried
    assert state.done == {0}
    assert all(r.get("session_id") != "b#1" for r in state.records)
    kept = (tmp_path / "records.jsonl").read_text()
    assert '"b#1"' not in kept and '"a#0"' in kept
    assert '"b#1"' in (tmp_path / "records.before-resume-2.jsonl").read_text()


def test_records_of_a_newer_version_are_refused(tmp_path: Path) -> None:
    from agentic_bench.records.types import RECORD_VERSION

    write_run(tmp_path, None)
    path = tmp_path / "records.jsonl"
    run, session = path.read_text().splitlines()
    newer = {**json.loads(run), "record_version": RECORD_VERSION + 1}
    path.write_text(json.dumps(newer) + "\n" + session + "\n")
    with pytest.raises(ConfigError, match="written by a newer agentic-bench"):
        prepare_resume(tmp_path, CONFIG, {"benchmark": "agentic-edge"})


def test_resume_rewrites_the_kept_records_as_a_stream(tmp_path: Path) -> None:
    """#33: the kept records are rewritten line by line and handed back as a stream of the new
    file, not a list; a cancelled session's records and a torn line are set aside."""
    write_run(tmp_path, None)
    with (tmp_path / "records.jsonl").open("a") as fh:
        fh.write(json.dumps({"type": "step", "session_id": "a#0", "status": "ok"}) + "\n")
        fh.write(json.dumps({"type": "step", "session_id": "b#0", "status": "ok"}) + "\n")
        fh.write(json.dumps({"type": "segment", "duration_s": 2.5}) + "\n")
        fh.write('{"type": "step", "torn')
    state = prepare_resume(tmp_path, CONFIG, {"benchmark": "agentic-edge"})
    assert not isinstance(state.records, list)
    kept = list(state.records)
    assert [r["type"] for r in kept] == ["run", "session", "step", "segment"]
    assert all(r.get("session_id") in (None, "a#0") for r in kept)
    assert state.previous_duration_s == 2.5 and state.truncated_lines == 1
    assert (tmp_path / "records.before-resume-1.jsonl").exists()
