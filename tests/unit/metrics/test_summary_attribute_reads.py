"""#45 item 3: ``summary.json`` is read by attribute on the typed :class:`Summary`
(agentic_bench/metrics/summary_model.py), never by key — a ``summary["..."]`` (or
``summary['...']``) or a ``summary.get("...")`` (``run.summary.get(...)``,
``self.summary.get(...)`` too) anywhere else in the package fails here. A summary.json read
back from disk is validated where it is read (``Summary.model_validate`` / ``Summary.read``)
and read by attribute from then on."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[3] / "agentic_bench"
MODEL = PACKAGE / "metrics" / "summary_model.py"
KEYED = re.compile(r"""summary\[["']""")
# what holds a summary: a name or an attribute spelled so (summary, run.summary, self.summary)
SUMMARY_NAMES = frozenset({"summary", "summ"})


def keyed_reads() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == MODEL:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if KEYED.search(line):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{number}: {line.strip()}")
    return found


def _holds_summary(node: ast.expr) -> bool:
    return ((isinstance(node, ast.Name) and node.id in SUMMARY_NAMES)
            or (isinstance(node, ast.Attribute) and node.attr in SUMMARY_NAMES))


def dict_reads_in(source: str) -> list[tuple[int, str]]:
    """(line, text) of each ``<summary>.get(...)`` call and ``<summary>["key"]`` subscript."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("get", "setdefault", "pop")
                and _holds_summary(node.func.value)):
            found.append((node.lineno, ast.unparse(node)))
        elif (isinstance(node, ast.Subscript) and _holds_summary(node.value)
              and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
            found.append((node.lineno, ast.unparse(node)))
    return sorted(found)


def dict_reads() -> list[str]:
    return [f"{path.relative_to(PACKAGE.parent)}:{line}: {text}"
            for path in sorted(PACKAGE.rglob("*.py")) if path != MODEL
            for line, text in dict_reads_in(path.read_text(encoding="utf-8"))]


def test_the_package_is_searched() -> None:
    assert MODEL.is_file() and len(list(PACKAGE.rglob("*.py"))) > 100


def test_no_summary_is_read_by_key_outside_the_model() -> None:
    assert keyed_reads() == []


def test_no_summary_is_read_as_a_dict_outside_the_model() -> None:
    assert dict_reads() == []


def test_the_search_finds_a_keyed_read() -> None:
    assert KEYED.search('value = summary["counts"]') and KEYED.search("summary['result']")
    assert not KEYED.search("summary.counts.requests") and not KEYED.search("summary[key]")


def test_the_search_finds_a_dict_read() -> None:
    """Each spelling the package once had is found; an attribute read, or a ``.get`` on
    something that is not a summary, is not."""
    reads = dict_reads_in(
        'a = summary.get("counts")\n'
        "b = (run.summary.get('loadgen') or {}).get('log_dir')\n"
        'c = self.summary.get("config") or {}\n'
        'd = summ.get("intervals")\n'
        'e = run.summary["benchmark"]\n')
    assert [line for line, _ in reads] == [1, 2, 3, 4, 5]
    assert dict_reads_in("a = summary.counts.requests\nb = summary.latency_ms.get('ttft')\n"
                         "c = result.get('n_samples_completed')\nd = summary[key]\n") == []
