"""report.html from synthetic records: every section and plot, no-data notes, self-contained."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from agentic_bench.reporting.html import PLOT_IDS, SECTION_IDS, render_report, write_report


class Figures(HTMLParser):
    """ids of all elements; for each <figure id>: its svg data marks (or, for an interactive
    chart, the values in its spec) and its no-data text."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.figures: dict[str, dict[str, Any]] = {}
        self._fig: str | None = None
        self._depth = 0
        self._in_no_data = False
        self._in_spec = False
        self.tags: set[str] = set()
        self.urls: list[str] = []
        self.scripts: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.add(tag)
        self.urls += [v for k, v in attrs if k in ("src", "href") and v]
        if tag == "script":
            self.scripts.append(a)
            self._in_spec = a.get("class") == "chart-spec"
        if a.get("id"):
            self.ids.append(a["id"])
        if tag == "figure" and a.get("id"):
            self._fig, self._depth = a["id"], 0
            self.figures[self._fig] = {"marks": 0, "svg": 0, "no_data": "", "chart": 0}
        if self._fig is None:
            return
        if tag == "figure":
            self._depth += 1
        fig = self.figures[self._fig]
        if tag == "svg":
            fig["svg"] += 1
        if tag in ("polyline", "circle") or (tag == "rect" and a.get("class") == "bar"):
            fig["marks"] += 1
        if tag == "p" and a.get("class") == "no-data":
            self._in_no_data = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_spec = False
        if tag == "p":
            self._in_no_data = False
        if tag == "figure" and self._fig is not None:
            self._depth -= 1
            if self._depth == 0:
                self._fig = None

    def handle_data(self, data: str) -> None:
        if self._fig is not None and self._in_spec:
            spec = json.loads(data)
            fig = self.figures[self._fig]
            fig["chart"] += 1
            fig["marks"] += sum(v is not None for s in spec["series"] for v in s["values"])
        if self._fig is not None and self._in_no_data:
            self.figures[self._fig]["no_data"] += data


def parse(html: str) -> Figures:
    p = Figures()
    p.feed(html)
    return p


def test_every_section_and_plot_has_content(synth) -> None:
    records = synth.make_records(fail_every=5)
    summary = synth.make_summary(records, accuracy=synth.ACCURACY, slos={"ttft_p99_ms": 45.0})
    page = parse(render_report(summary, records))
    for sid in SECTION_IDS:
        assert sid in page.ids, sid
    for pid in (*PLOT_IDS, "plot-accuracy-categories", "plot-accuracy-subsets"):
        fig = page.figures[pid]
        assert fig["svg"] + fig["chart"] == 1 and fig["marks"] > 0 and not fig["no_data"], (
            pid, fig)
    assert len(page.ids) == len(set(page.ids)), "duplicate ids"
    assert {"verdict", "table-constraints", "table-latency"} <= set(page.ids)


def test_verdict_banner_lists_every_constraint(synth) -> None:
    records = synth.make_records(fail_every=5)
    summary = synth.make_summary(records, slos={"ttft_p99_ms": 45.0, "min_sessions": 1})
    html = render_report(summary, records)
    assert summary["result"] == "INVALID"
    assert 'class="verdict invalid"' in html and ">INVALID</div>" in html
    table = html[html.index('id="table-constraints"'):]
    table = table[:table.index("</table>")]
    for row in summary["constraints"]:
        assert f"<td>{row['name']}</td>" in table
    assert table.count("<tr") == len(summary["constraints"]) + 1
    assert table.count('class="fail"') == sum(not r["ok"] for r in summary["constraints"])


def test_empty_run_shows_no_data_everywhere(synth) -> None:
    summary = synth.make_summary([])
    page = parse(render_report(summary, []))
    for sid in SECTION_IDS:
        if sid not in ("section-accuracy", "section-waterfall"):  # no score, no session
            assert sid in page.ids
    # #30 item 10: no accuracy panel when nothing was scored (it was an empty box on every
    # replay)
    assert "section-accuracy" not in page.ids and "plot-accuracy" not in page.figures
    for pid in PLOT_IDS:
        fig = page.figures[pid]
        assert fig["svg"] == fig["chart"] == 0 and fig["no_data"].strip(), pid


def test_self_contained(synth) -> None:
    records = synth.make_records()
    html = render_report(synth.make_summary(records, accuracy=synth.ACCURACY), records)
    page = parse(html)
    assert not page.urls, page.urls
    assert not {"link", "img", "iframe", "object", "embed"} & page.tags
    # scripts: inline only — the chart specs (JSON), the vendored uPlot and our init code
    assert all(set(a) <= {"type", "class"} for a in page.scripts), page.scripts
    assert sum(a.get("class") != "chart-spec" for a in page.scripts) == 2
    assert "@import" not in html and "url(" not in html
    assert "fetch(" not in html and "XMLHttpRequest" not in html
    # the only http(s) text is the SVG namespace, uPlot's own banner and the run's endpoint
    others = {u for u in re.findall(r"https?://[^\s\"'<)]+", html)
              if u not in ("http://www.w3.org/2000/svg", "https://github.com/leeoniya/uPlot")
              and not u.startswith("http://127.0.0.1")}
    assert not others


def test_write_report_is_atomic_and_deterministic(synth, tmp_path: Path) -> None:
    records = synth.make_records()
    summary = synth.make_summary(records)
    path = write_report(tmp_path / "out", summary, records)
    assert path == tmp_path / "out" / "report.html"
    first = path.read_text(encoding="utf-8")
    write_report(tmp_path / "out", summary, records)
    assert path.read_text(encoding="utf-8") == first
    assert sorted(p.name for p in path.parent.iterdir()) == ["report.html"]


def test_untrusted_strings_are_escaped(synth) -> None:
    records = synth.make_records(sessions=2)
    for r in records:
        if r.get("type") == "session":
            r["category"] = "<img src=x onerror=alert(1)>"
    summary = synth.make_summary(records, workload={"trace": "<script>alert(1)</script>"})
    html = render_report(summary, records)
    assert "<script>alert" not in html and "<img" not in html


def test_large_run_stays_small(synth) -> None:
    records = [synth.llm(f"s{i}", 0, i * 0.5, n_out=50) for i in range(20_000)]
    html = render_report(synth.make_summary(records), records)
    assert len(html) < 2_000_000, len(html)


def _edge_cases(synth) -> dict[str, list[dict[str, Any]]]:
    one = synth.llm("s", 0, 0.0, n_out=1)
    flat = [synth.llm(f"s{i}", 0, 0.0, ttft=5.0, itl=0.0, n_out=3) for i in range(4)]
    failed = [synth.llm("s", 0, 0.0, status="error"), synth.tool("s", 0, 0.0, status="error")]
    partial = [{"type": "step", "kind": "llm", "status": "ok", "session_id": "x"},
               {"type": "step", "kind": "tool", "status": "ok", "session_id": "x"},
               {"type": "turn", "status": "ok"}, {"type": "segment", "duration_s": 1.0}]
    return {"one": [one], "flat": flat, "failed": failed, "partial": partial}


def test_edge_cases_render_well_formed_svg(synth) -> None:
    import xml.etree.ElementTree as ET

    for name, records in _edge_cases(synth).items():
        try:
            summary = synth.make_summary(records)
        except KeyError:  # records too incomplete for summarize(): render with an empty one
            summary = synth.make_summary([])
        html = render_report(summary, records)
        for svg in re.findall(r"<svg.*?</svg>", html, flags=re.S):
            ET.fromstring(svg)
        page = parse(html)
        for pid in PLOT_IDS:
            fig = page.figures[pid]
            assert fig["marks"] > 0 or fig["no_data"].strip(), (name, pid, fig)


def test_gate_rows_show_the_limit_as_compared_and_their_rule(synth) -> None:
    records = synth.make_records()
    summary = synth.make_summary(records)
    summary["constraints"].append({"name": "bfcl_overall_accuracy", "value": 83.64,
                                   "limit": 86.23 * 0.97, "op": ">=", "ok": False,
                                   "rule": "MLPerf v6.1 Edge Agentic"})
    html = render_report(summary, records)
    table = html[html.index('id="table-constraints"'):]
    table = table[:table.index("</table>")]
    assert ">83.6431<" in table and ">83.64<" in table  # never 83.64 against 83.64
    assert "MLPerf v6.1 Edge Agentic" in table


def test_a_valid_run_without_any_limit_says_so_instead_of_a_green_banner(synth) -> None:
    from agentic_bench.reporting.summary_text import render_text

    records = synth.make_records()
    summary = synth.make_summary(records)
    assert summary["result"] == "VALID"
    assert {r["name"] for r in summary["constraints"]} == {"complete", "missing_turns"}
    html = render_report(summary, records)
    assert 'class="verdict unconstrained"' in html and "no latency or accuracy constraint" in html
    assert "no latency or accuracy constraint was set" in render_text(summary)
    limited = synth.make_summary(records, slos={"ttft_p99_ms": 1e9})
    assert 'class="verdict valid"' in render_report(limited, records)
    assert "no latency or accuracy constraint" not in render_text(limited)


def test_summary_text_shows_the_load_settings(synth) -> None:
    from agentic_bench.reporting.summary_text import render_text

    records = synth.make_records()
    summary = synth.make_summary(records)
    summary["scenario"] = {"scenario": "server", "rate": 4.0, "concurrency": 16,
                           "sessions": None, "duration_s": 60.0, "max_errors": None}
    assert "Scenario  : server, rate 4 sessions/s, concurrency 16, duration 60 s" in \
        render_text(summary)


def test_the_waterfall_draws_a_session_with_its_subagents() -> None:
    """#30 item 11: each LLM call, wait, think time, subagent branch and join of one session
    on one time axis (the slowest and the median whole session by default)."""
    from agentic_bench.reporting.waterfall import _bars, pick, waterfall_section

    ms = 1_000_000
    records = [
        {"type": "session", "session_id": "t#0", "status": "ok", "latency_ms": 9.0,
         "t_scheduled_ns": 0, "t_end_ns": 9 * ms},
        {"type": "session", "session_id": "t#1", "status": "ok", "latency_ms": 2.0,
         "t_scheduled_ns": 0, "t_end_ns": 2 * ms},
        {"type": "step", "kind": "llm", "session_id": "t#0", "status": "ok", "turn": 0,
         "step": 0, "t_sent_ns": 0, "t_first_token_ns": ms, "t_end_ns": 2 * ms,
         "request_ms": 2.0, "ttft_ms": 1.0, "output_tokens": 5},
        {"type": "step", "kind": "wait", "session_id": "t#0", "status": "ok", "turn": 0,
         "step": 1, "t_sent_ns": 2 * ms, "t_end_ns": 3 * ms, "duration_ms": 1.0},
        {"type": "step", "kind": "llm", "session_id": "t#0", "status": "ok", "turn": 0,
         "step": 0, "branch": "agent_A", "t_sent_ns": 3 * ms, "t_end_ns": 8 * ms,
         "request_ms": 5.0, "output_tokens": 9},
        {"type": "join", "session_id": "t#0", "turn": 0, "conversation": "",
         "branches": ["agent_A"], "t_start_ns": 4 * ms, "t_end_ns": 8 * ms, "wait_ms": 4.0},
        {"type": "turn", "session_id": "t#0", "turn": 0, "t_start_ns": 0, "t_end_ns": 8 * ms},
        {"type": "turn", "session_id": "t#0", "turn": 1, "t_start_ns": 8500000,
         "t_end_ns": 9 * ms},
    ]
    assert pick(records) == [("slowest", "t#0"), ("median", "t#1")]
    rows, bars = _bars(records, "t#0")
    assert rows == ["session", "agent_A"]
    kinds = sorted((b[0], b[3]) for b in bars)
    assert kinds == [(0, "join"), (0, "llm"), (0, "think"), (0, "ttft"), (0, "wait"),
                     (1, "llm")]
    join = next(b for b in bars if b[3] == "join")
    assert (join[1], join[2]) == (4.0, 8.0) and "agent_A" in join[4]
    html = waterfall_section(records)
    assert 'id="plot-waterfall-slowest"' in html and 'id="plot-waterfall-median"' in html
    assert "waiting for subagents" in html and "<svg" in html
    assert 'id="plot-waterfall-chosen"' in waterfall_section(records, "t#1")


def test_the_banner_cards_and_subtitle_read_as_text(synth) -> None:
    """#30 items 10 and 13: headline cards; the load named once; yes/no, never True/False."""
    from agentic_bench.reporting.html import load_label

    records = synth.make_records()
    summary = synth.make_summary(records)
    html = render_report(summary, records)
    assert "complete: yes" in html and "complete: True" not in html
    assert 'id="section-cards"' in html and ">TTFT p99<" in html
    assert load_label({"scenario": {"scenario": "concurrency", "concurrency": 2}}) == \
        "concurrency 2"
    assert load_label({"scenario": {"scenario": "server", "rate": 4.0, "concurrency": None}}) \
        == "server, rate 4/s"


def test_warm_up_requests_are_not_plotted(synth) -> None:
    """A plot's n is the summary's count: a lane's warm-up (recorded, never counted) is out."""
    records = synth.make_records()
    summary = synth.make_summary(records)
    warm = [{**r, "warmup": True} for r in records if r.get("kind") == "llm"][:3]
    n = summary["latency_ms"]["ttft"]["count"]
    html = render_report(summary, records + warm)
    assert f"n={n:,} " in html and f"n={n + 3:,} " not in html
