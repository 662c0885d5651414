"""No output a person reads holds a Python repr (#30 item 13 acceptance): terminal lines,
summary.txt, report.html (its text: scripts and chart data left out), sweep.html, compare's
table and compare.html — after a run with failures of several kinds, a sweep and a compare.

A repr is what Python prints for its own objects: ``{'disconnect': 2}``, ``['a']``, ``[]``,
``None``, ``True``/``False``, ``<... object at 0x…>``, or a float with 12+ decimals."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
REPR = re.compile(r"\{'|\['|\[\]|\bNone\b|\bTrue\b|\bFalse\b|object at 0x|\d\.\d{12,}")


class Text(HTMLParser):
    """The text a reader sees: no script (chart data, library) and no style."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._skip += tag in ("script", "style")

    def handle_endtag(self, tag: str) -> None:
        self._skip -= tag in ("script", "style")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def html_text(path: Path) -> str:
    parser = Text()
    parser.feed(path.read_text(encoding="utf-8"))
    return "\n".join(parser.parts)


def reprs(name: str, text: str) -> list[str]:
    return [f"{name}: {line.strip()[:160]}" for line in text.splitlines() if REPR.search(line)]


def test_no_output_holds_a_python_repr(sim_factory, cli, tmp_path: Path) -> None:
    sim = sim_factory("--ttft-ms", "5", "--itl-ms", "1", "--jitter", "1", "--fail-rate", "0.15",
                      "--disconnect-rate", "0.1", "--seed", "11")
    trace = str(ROOT / "traces" / "sample.jsonl")
    common = ("--endpoint", sim.url, "--model", "sim", "--think-time", "none",
              "--stop-after-failures", "0")
    run = cli("replay", trace, *common, "--sessions", "12", "--scenario", "concurrency",
              "--concurrency", "3", "--slo", "ttft_p99_ms=1000", "--out", str(tmp_path / "r"))
    assert run.returncode in (0, 3), run.stderr
    sweep = cli("replay", trace, *common, "--sessions", "6", "--sweep", "concurrency=1,2",
                "--out", str(tmp_path / "sw"))
    assert sweep.returncode in (0, 3), sweep.stderr
    cmp = cli("compare", str(tmp_path / "r"), str(tmp_path / "sw" / "concurrency-2"),
              "--out", str(tmp_path / "cmp"))
    assert cmp.returncode == 0, cmp.stderr
    summary = (tmp_path / "r" / "summary.txt").read_text()
    assert "Errors" in summary and "disconnect" in summary  # the failures are there to show
    found = [
        *reprs("replay stdout", run.stdout), *reprs("replay stderr", run.stderr),
        *reprs("sweep stdout", sweep.stdout), *reprs("compare stdout", cmp.stdout),
        *reprs("summary.txt", summary),
        *reprs("report.html", html_text(tmp_path / "r" / "report.html")),
        *reprs("sweep.html", html_text(tmp_path / "sw" / "sweep.html")),
        *reprs("compare.html", html_text(tmp_path / "cmp" / "compare.html")),
    ]
    assert not found, "\n".join(found)


def test_the_pattern_catches_what_it_should() -> None:
    bad = ["Errors : {'disconnect': 2}", "tools: []", "limit None now", "complete: True",
           "<Foo object at 0x7f00>", "0.1234567890123456 ms"]
    assert all(REPR.search(b) for b in bad)
    good = ["Errors : disconnect 2", "tools: -", "no limit", "complete: yes", "0.123 ms"]
    assert not any(REPR.search(g) for g in good)
