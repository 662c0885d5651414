"""#42 (smaller items): a Weka row whose ``in`` or ``hash_ids`` are strings was read as numbers;
it is a problem at the field's line."""

from __future__ import annotations

import json
from pathlib import Path

from agentic_bench.trace.weka import scan

TREE = Path(__file__).resolve().parents[2] / "data" / "weka" / "tree_subagents.json"


def _with(tmp_path: Path, **row: object) -> Path:
    data = json.loads(TREE.read_text())
    data["requests"][0].update(row)
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data, indent=1))
    return path


def test_counts_and_hash_ids_given_as_strings_are_problems(tmp_path: Path) -> None:
    for row, where in (({"in": "300"}, "in"), ({"out": "11"}, "out"),
                       ({"hash_ids": ["1", 2, 3, 4]}, "hash_ids[0]")):
        report = scan(_with(tmp_path, **row))
        assert report.problems, row
        assert any(where in p.field for p in report.problems), report.problems
    assert not scan(_with(tmp_path, **{"in": 300})).problems
