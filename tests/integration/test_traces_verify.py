"""``traces verify SOURCE --against TRACE_OR_RUN_DIR`` end to end: sources imported and
replayed on the simulator verify against the run (exit 0) and the summary carries a fidelity
row; a run that sent less, tampered records and a trace with a session missing exit 3 and
name the figure; a broken source exits 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
IMPORTERS = ROOT / "tests" / "data" / "importers"
WEKA = ROOT / "tests" / "data" / "weka"
VERIFY = "import sys; from agentic_bench.cli.main import main; sys.exit(main(sys.argv[1:]))"


def verify(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", VERIFY, "traces", "verify", *args],
                          capture_output=True, text=True, timeout=300)


def replay(cli: Any, trace: Path, sim: Any, out: Path, *extra: str) -> dict[str, Any]:
    res = cli("replay", str(trace), "--endpoint", sim.url, "--out", str(out), "--quiet",
              *extra)
    assert res.returncode == 0, res.stdout + res.stderr
    summary: dict[str, Any] = json.loads((out / "summary.json").read_text())
    return summary


def rows(stdout: str) -> dict[str, str]:
    """figure → its line of the table."""
    out = {}
    for line in stdout.splitlines():
        for name in ("sessions", "requests", "subagents", "ISL p50", "OSL p50", "gap (s) p50",
                     "prefix hit"):
            if line.startswith(name + " "):
                out[name] = line
    return out


CASES = [
    ("mlcommons-agentic", IMPORTERS / "mlcommons_agentic.jsonl", ("--think-time", "scaled:0.01")),
    ("otel-genai", IMPORTERS / "otel_genai_subagents.json", ()),
    ("weka", WEKA / "tree_subagents.json", ("--tokenizer", "server")),
]


@pytest.mark.parametrize(("fmt", "source", "extra"), CASES, ids=[c[0] for c in CASES])
def test_a_replay_verifies_against_its_source(sim_factory: Any, cli: Any, tmp_path: Path,
                                              fmt: str, source: Path,
                                              extra: tuple[str, ...]) -> None:
    sim = sim_factory("--ttft-ms", "5", "--itl-ms", "0.5")
    out = tmp_path / "run"
    summary = replay(cli, source, sim, out, "--format", fmt, *extra)
    res = verify(str(source), "--against", str(out))
    assert res.returncode == 0, res.stdout + res.stderr
    table = rows(res.stdout)
    assert table["requests"].split()[1:3] == [str(summary["counts"]["requests"])] * 2
    assert res.stdout.splitlines()[-1].startswith("fidelity: ok")
    # the summary's fidelity row: planned (the import) vs sent
    row = summary["fidelity"]
    assert row["ok"] is True and row["source"] == fmt, row
    assert row["figures"]["requests"]["planned"] == row["figures"]["requests"]["sent"]
    assert any(line.startswith("Fidelity  : ok") for line in
               (out / "summary.txt").read_text().splitlines())
    if fmt == "weka":  # prompts of the recorded size, replies held to it: gated and equal
        assert row["figures"]["ISL p50"]["status"] == "ok"
        assert row["figures"]["OSL p50"]["status"] == "ok"
        assert row["figures"]["prefix hit"]["status"] == "ok"
        assert "FAIL" not in res.stdout and table["subagents"].split()[1:3] == ["3", "3"]


def test_a_run_that_sent_less_fails_and_names_the_figure(sim_factory: Any, cli: Any,
                                                         tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "5", "--itl-ms", "0.5")
    source = IMPORTERS / "mlcommons_agentic.jsonl"
    out = tmp_path / "one"
    summary = replay(cli, source, sim, out, "--format", "mlcommons-agentic", "--think-time",
                     "scaled:0.01", "--sessions", "1")
    assert summary["fidelity"]["ok"] is True  # it sent what it planned: one session
    res = verify(str(source), "--against", str(out))
    assert res.returncode == 3, res.stdout + res.stderr
    table = rows(res.stdout)
    assert table["sessions"].split()[1:4] == ["3", "1", "exact"] and "FAIL" in table["sessions"]
    assert "FAIL" in table["requests"]
    assert "sessions 1 vs 3" in res.stdout.splitlines()[-1]


def test_tampered_records_fail(sim_factory: Any, cli: Any, tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "5", "--itl-ms", "0.5")
    source = IMPORTERS / "otel_genai_subagents.json"
    out = tmp_path / "run"
    replay(cli, source, sim, out, "--format", "otel-genai")
    path = out / "records.jsonl"
    lines = path.read_text().splitlines()
    llm = [i for i, x in enumerate(lines) if '"kind":"llm"' in x and '"branch"' in x]
    path.write_text("\n".join(x for i, x in enumerate(lines) if i != llm[-1]) + "\n")
    res = verify(str(source), "--format", "otel-genai", "--against", str(out))
    assert res.returncode == 3, res.stdout + res.stderr
    assert "FAIL" in rows(res.stdout)["requests"]
    assert "requests 5 vs 6" in res.stdout.splitlines()[-1]


def test_an_import_verifies_and_a_trace_missing_a_session_does_not(cli: Any,
                                                                   tmp_path: Path) -> None:
    source = IMPORTERS / "mlcommons_agentic.jsonl"
    trace = tmp_path / "t.jsonl"
    assert cli("import", "mlcommons-agentic", str(source), "--out", str(trace)).returncode == 0
    ok = verify(str(source), "--against", str(trace))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "FAIL" not in ok.stdout and "profiled through its import" in ok.stdout
    short = tmp_path / "short.jsonl"
    short.write_text("\n".join(trace.read_text().splitlines()[:-1]) + "\n")
    res = verify(str(source), "--against", str(short), "--json")
    assert res.returncode == 3, res.stdout + res.stderr
    report = json.loads(res.stdout)
    failed = {r["figure"] for r in report["rows"] if r["status"] == "FAIL"}
    assert {"sessions", "requests"} <= failed and report["ok"] is False


def test_a_broken_source_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"conversation_id": "c", "turn": 1, "role": "user"}\n')
    res = verify(str(bad), "--format", "mlcommons-agentic", "--against", str(bad))
    assert res.returncode == 2, res.stdout + res.stderr
    assert str(bad) in res.stderr
    missing = verify(str(tmp_path / "nope.jsonl"), "--against", str(bad))
    assert missing.returncode == 2 and "no such file" in missing.stderr


CODEX = (IMPORTERS / "codex" / "sessions" / "2025" / "10" / "02" /
         "rollout-2025-10-02T10-00-00-0199a5c0-1f00-7a3b-8c1d-2e3f4a5b6c7d.jsonl")
# #41's importers, each from its fixture: (format, source, subagents the source holds)
IMPORTED = [
    ("claude-code", IMPORTERS / "claude_code" / "project", 3),
    ("codex", CODEX, 1),
    ("tracelab", IMPORTERS / "tracelab.jsonl", 0),
    ("atif", IMPORTERS / "atif_trajectory.json", None),
    ("dynamo", IMPORTERS / "dynamo_request_trace.jsonl", None),
    ("langsmith", IMPORTERS / "langsmith_runs.jsonl", None),
    ("abench", IMPORTERS / "abench" / "deepswe_v1.1.jsonl", 0),
]


@pytest.mark.parametrize(("fmt", "source", "subagents"), IMPORTED,
                         ids=[c[0] for c in IMPORTED])
def test_import_validate_replay_verify(sim_factory: Any, cli: Any, tmp_path: Path, fmt: str,
                                       source: Path, subagents: int | None) -> None:
    """The acceptance chain of every importer: import → validate ok → the import verifies
    against its source → replay on the simulator → the run verifies against the source, and
    its summary carries the fidelity row."""
    trace = tmp_path / "imported.jsonl"
    res = cli("import", fmt, str(source), "--out", str(trace))
    assert res.returncode == 0, res.stdout + res.stderr
    assert cli("validate", str(trace)).returncode == 0
    checked = verify(str(source), "--format", fmt, "--against", str(trace))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    sim = sim_factory("--ttft-ms", "2", "--itl-ms", "0.2")
    out = tmp_path / "run"
    summary = replay(cli, trace, sim, out, "--think-time", "none", "--tokenizer", "server")
    assert summary["result"] == "VALID"
    res = verify(str(source), "--format", fmt, "--against", str(out))
    assert res.returncode == 0, res.stdout + res.stderr
    table = rows(res.stdout)
    sent = summary["counts"]["requests"]
    assert table["requests"].split()[1:3] == [str(sent)] * 2 and sent > 0
    if subagents is not None:
        assert table["subagents"].split()[1:3] == [str(subagents)] * 2
    assert summary["fidelity"]["ok"] is True
