"""#42 item 12: summary.json is strict JSON; a non-finite figure is null with its path and
reason, and summary.txt prints "n/a" for it (never "nan J")."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from agentic_bench.reporting.files import strict_summary, write_summary


def test_non_finite_values_become_null_with_their_path() -> None:
    clean = strict_summary({"a": {"b": math.nan, "c": [1.0, math.inf]}, "d": -math.inf,
                            "e": 2.5})
    assert clean["a"] == {"b": None, "c": [1.0, None]} and clean["d"] is None
    assert clean["e"] == 2.5
    assert [f["path"] for f in clean["non_finite_values"]] == ["a.b", "a.c[1]", "d"]
    assert [f["value"] for f in clean["non_finite_values"]] == ["nan", "inf", "-inf"]


def test_a_finite_summary_is_unchanged() -> None:
    summary = {"a": [1, 2.0, "x", None, True], "b": {"c": 0.0}}
    assert strict_summary(summary) == summary


def test_written_summary_is_strict_and_text_says_na(tmp_path: Path, synth: Any) -> None:
    summary: dict[str, Any] = synth.make_summary(synth.make_records(sessions=2))
    summary["energy"] = {"available": True, "sources": [
        {"joules": math.nan, "source": "nvml", "covers": "the run",
         "joules_per_request": math.nan}]}
    write_summary(tmp_path, summary)

    def refuse(constant: str) -> Any:
        raise AssertionError(constant)
    data = json.loads((tmp_path / "summary.json").read_text(), parse_constant=refuse)
    assert data["energy"]["sources"][0]["joules"] is None
    text = (tmp_path / "summary.txt").read_text()
    assert "n/a J" in text and "nan" not in text
