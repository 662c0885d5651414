"""#42 (smaller items): a trace folder that is empty, or whose files open with a UTF-8 byte-order
mark, gets a clear answer — not "Is a directory"."""

from __future__ import annotations

import shutil
from pathlib import Path

from agentic_bench.trace.importers import detect_format, folder_problem, foreign_format_hint
from agentic_bench.trace.weka import WekaCorpus
from tests.conftest import run_cli

TREE = Path(__file__).resolve().parents[2] / "data" / "weka" / "tree_subagents.json"


def test_a_bom_led_weka_folder_is_read(tmp_path: Path) -> None:
    folder = tmp_path / "traces"
    folder.mkdir()
    (folder / "t.json").write_bytes(b"\xef\xbb\xbf" + TREE.read_bytes())
    assert detect_format(folder) == "weka" and folder_problem(folder) is None
    assert sum(1 for _ in WekaCorpus(folder)) == 1
    res = run_cli("validate", str(folder))
    assert res.returncode == 0 and "ok as Weka traces" in res.stdout, res.stderr


def test_an_empty_or_foreign_folder_says_what_it_is(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "an empty folder" in str(folder_problem(empty))
    for args in (("validate", str(empty)), ("traces", "stats", str(empty)),
                 ("replay", str(empty), "--endpoint", "http://127.0.0.1:9/v1")):
        res = run_cli(*args)
        assert res.returncode == 2 and "an empty folder" in res.stderr, (args, res.stderr)
        assert "Is a directory" not in res.stderr
    native = tmp_path / "native"
    native.mkdir()
    shutil.copy(Path(__file__).resolve().parents[3] / "traces" / "sample.jsonl", native)
    assert "its first file sample.jsonl is in the native format" in str(
        foreign_format_hint(native))
