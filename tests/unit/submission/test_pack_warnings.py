"""#42 (smaller items): an interrupted run is never packed without a word, and a submitter or
system name with a newline (or a path separator) is refused before anything is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentic_bench.cli.config_cmd import parse_for
from agentic_bench.errors import ConfigError
from tests.conftest import run_cli
from tests.unit.submission.conftest import rag_run


def test_an_interrupted_run_is_packed_with_a_warning(tmp_path: Path) -> None:
    run = rag_run(tmp_path / "perf", "performance")
    summary = json.loads((run / "summary.json").read_text())
    (run / "summary.json").write_text(json.dumps({**summary, "complete": False,
                                                  "stop_reason": "interrupted"}))
    res = run_cli("submission", "pack", str(run), "--submitter", "Acme", "--system", "box",
                  "--division", "open", "--out", str(tmp_path / "sub"))
    assert res.returncode == 0, res.stderr
    assert "warning:" in res.stderr and "an interrupted run" in res.stderr
    assert "an interrupted run (complete: no, stop reason interrupted)" in res.stdout


@pytest.mark.parametrize("name", ["Acme\nInc", "a/b", " ", ".."])
def test_a_name_that_is_not_one_line_is_refused(name: str) -> None:
    with pytest.raises(ConfigError, match="one line of printable text"):
        parse_for("submission pack", ["run", "--submitter", name, "--system", "s",
                                      "--division", "open", "--out", "/tmp/x"])
