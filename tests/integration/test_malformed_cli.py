"""#42 item 13 at the command line: JSON nested deeper than the parser follows, and a
`submission pack` whose --out or run folder cannot be used, exit 2 with one message naming the
file (and line) and what was expected — never a traceback (exit 1), and nothing sent."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration

Cli = Callable[..., subprocess.CompletedProcess[str]]
DEPTH = 100_000
DEEP = {"list": "[" * DEPTH + "]" * DEPTH,
        "object": '{"a":' * DEPTH + "1" + "}" * DEPTH,
        "in-a-session": json.dumps({"schema_version": "1", "session_id": "deep", "turns": []})
        [:-1] + ', "metadata": ' + '{"a":' * DEPTH + "1" + "}" * DEPTH + "}"}
GOOD = {"schema_version": "1", "session_id": "ok", "turns": [
    {"user": "hi", "steps": [{"kind": "llm"}]}]}


def no_traceback(res: subprocess.CompletedProcess[str]) -> None:
    assert res.returncode == 2, res.stdout + res.stderr
    assert "Traceback" not in res.stderr and "internal error" not in res.stderr, res.stderr


@pytest.fixture
def deep_trace(tmp_path: Path) -> Callable[[str], Path]:
    """A trace whose second line is nested ``DEPTH`` levels deep (the first is a good one)."""
    def make(shape: str) -> Path:
        path = tmp_path / f"deep-{shape}.jsonl"
        path.write_text(json.dumps(GOOD) + "\n" + DEEP[shape] + "\n")
        return path
    return make


@pytest.mark.parametrize("shape", sorted(DEEP))
def test_validate_stats_and_import_say_where_json_is_too_deep(
        cli: Cli, deep_trace: Callable[[str], Path], tmp_path: Path, shape: str) -> None:
    path = deep_trace(shape)
    out = tmp_path / "imported.jsonl"
    for args in (["validate", str(path)], ["traces", "stats", str(path)],
                 ["import", "native", str(path), "--out", str(out)],
                 ["import", "auto", str(path), "--out", str(out)]):
        res = cli(*args)
        no_traceback(res)
        assert f"{path}:2: malformed JSON: nested " in res.stderr, (args, res.stderr)
        assert "expected at most about" in res.stderr
    assert not out.exists()


@pytest.mark.parametrize("fmt", ["sharegpt", "mooncake", "otel-genai", "tracelab", "codex",
                                 "claude-code", "weka"])
def test_every_format_says_where_json_is_too_deep(cli: Cli, tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text(DEEP["object"] + "\n")
    res = cli("import", fmt, str(path), "--out", str(tmp_path / "out.jsonl"))
    no_traceback(res)
    assert f"{path}:1: malformed JSON: " in res.stderr and "levels" in res.stderr, res.stderr


def test_a_first_line_too_deep_is_no_format(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text(DEEP["list"] + "\n")
    for args in (["validate", str(path)], ["replay", str(path), "--endpoint",
                                           "http://127.0.0.1:9/v1"]):
        res = cli(*args)
        no_traceback(res)
        assert f"{path}:1: malformed JSON: nested {DEPTH} levels deep" in res.stderr, res.stderr
    res = cli("traces", "stats", str(path))  # no format can be told: it says so
    no_traceback(res)
    assert f"{path}: cannot tell its format" in res.stderr


@pytest.mark.parametrize("shape", sorted(DEEP))
def test_replay_sends_nothing_for_a_trace_too_deep(
        cli: Cli, deep_trace: Callable[[str], Path], sim_factory: Callable[..., Any],
        tmp_path: Path, shape: str) -> None:
    path = deep_trace(shape)
    log = tmp_path / "requests.jsonl"
    sim = sim_factory("--ttft-ms", "1", "--itl-ms", "0", "--request-log", str(log))
    res = cli("replay", str(path), "--endpoint", sim.url, "--out", str(tmp_path / "run"))
    no_traceback(res)
    assert f"{path}:2: malformed JSON: nested " in res.stderr, res.stderr
    sim.stop()
    assert sim.requests == 0 and (not log.exists() or log.read_text() == "")


def test_a_weka_trace_too_deep_is_placed_at_its_line(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "trace.json"
    path.write_text('{\n  "id": "t",\n  "block_size": 64,\n  "hash_id_scope": "local",\n'
                    '  "requests": ' + DEEP["list"] + "\n}\n")
    for args in (["validate", str(path)], ["traces", "stats", str(path)],
                 ["replay", str(path), "--endpoint", "http://127.0.0.1:9/v1"]):
        res = cli(*args)
        no_traceback(res)
        assert f"{path}:5: malformed JSON: depth limit exceeded (expected at most 1024 " \
               "levels of arrays/objects)" in res.stderr, (args, res.stderr)


# -- submission pack -------------------------------------------------------------------------


def edge_run(root: Path, summary: str = '{"benchmark": "agentic-edge"}') -> Path:
    (root / "performance").mkdir(parents=True)
    (root / "accuracy").mkdir()
    (root / "summary.json").write_text(summary)
    (root / "config.yaml").write_text('type: "online"\n')
    (root / "performance" / "result_summary.json").write_text("{}")
    (root / "accuracy" / "accuracy_results.json").write_text(json.dumps({"accuracy_scores": [
        {"dataset_type": "accuracy", "total_samples": 995, "score": 0.5}]}))
    return root


def pack(cli: Cli, run: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return cli("submission", "pack", str(run), "--submitter", "acme", "--system", "box",
               "--division", "open", "--out", str(out))


@pytest.mark.parametrize("where", ["a-file", "under-a-file", "dev-null", "proc"])
def test_pack_names_an_out_that_cannot_be_a_folder(cli: Cli, tmp_path: Path,
                                                   where: str) -> None:
    run = edge_run(tmp_path / "run")
    (tmp_path / "a-file").write_text("x")
    out = {"a-file": tmp_path / "a-file", "under-a-file": tmp_path / "a-file" / "pkg",
           "dev-null": Path("/dev/null"), "proc": Path("/proc/agentic-bench-pkg")}[where]
    res = pack(cli, run, out)
    no_traceback(res)
    (line,) = res.stderr.strip().splitlines()
    assert line.startswith(f"error: --out {out}: ") and "expected a submission folder" in line
    assert (tmp_path / "a-file").read_text() == "x"


@pytest.mark.parametrize(("summary", "got"), [("[]", "a list"), ("3", "3")])
def test_pack_names_a_summary_that_is_not_an_object(cli: Cli, tmp_path: Path, summary: str,
                                                    got: str) -> None:
    run = edge_run(tmp_path / "run", summary)
    res = pack(cli, run, tmp_path / "pkg")
    no_traceback(res)
    (line,) = res.stderr.strip().splitlines()
    assert line == (f"error: {run / 'summary.json'}: expected a JSON object (the summary "
                    f"`agentic-bench run` writes), got {got}")
    assert not (tmp_path / "pkg").exists()


def test_pack_still_packs(cli: Cli, tmp_path: Path) -> None:
    res = pack(cli, edge_run(tmp_path / "run"), tmp_path / "pkg")
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "pkg" / "open" / "acme" / "results" / "box").is_dir()
