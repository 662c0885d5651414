"""#45 item 3: ``summary.json`` is read by attribute on the typed :class:`Summary`
(agentic_bench/metrics/summary_model.py), never by key — a ``summary["..."]`` (or
``summary['...']``) anywhere else in the package fails here."""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[3] / "agentic_bench"
MODEL = PACKAGE / "metrics" / "summary_model.py"
KEYED = re.compile(r"""summary\[["']""")


def keyed_reads() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == MODEL:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if KEYED.search(line):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{number}: {line.strip()}")
    return found


def test_the_package_is_searched() -> None:
    assert MODEL.is_file() and len(list(PACKAGE.rglob("*.py"))) > 100


def test_no_summary_is_read_by_key_outside_the_model() -> None:
    assert keyed_reads() == []


def test_the_search_finds_a_keyed_read() -> None:
    assert KEYED.search('value = summary["counts"]') and KEYED.search("summary['result']")
    assert not KEYED.search("summary.counts.requests") and not KEYED.search("summary[key]")
