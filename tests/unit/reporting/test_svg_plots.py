"""Pure SVG generation: ticks, number formats, chart markup."""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET

import pytest

from agentic_bench.reporting.plots import (
    Bars,
    Series,
    hbar_chart,
    line_chart,
    no_data,
    scatter_chart,
    stacked_hbar_chart,
    vbar_chart,
)
from agentic_bench.reporting.svg_axes import fmt_num, legend_rows, nice_step, nice_ticks

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # well-formed XML, or this raises


@pytest.mark.parametrize(("span", "step"), [(10, 2), (1, 0.2), (7.4, 2), (0.03, 0.01),
                                            (1000, 200), (12.5, 2.5)])
def test_nice_step(span: float, step: float) -> None:
    assert nice_step(span, 5) == pytest.approx(step)


def test_nice_ticks_cover_data_and_are_even() -> None:
    lo, hi, ticks = nice_ticks(50.04, 61.37)
    assert lo <= 50.04 and hi >= 61.37
    assert ticks[0] == lo and ticks[-1] == pytest.approx(hi)
    gaps = {round(b - a, 9) for a, b in itertools.pairwise(ticks)}
    assert len(gaps) == 1 and 3 <= len(ticks) <= 8
    assert nice_ticks(5, 5)[0] < 5 < nice_ticks(5, 5)[1]  # a flat series still gets a range


def test_fmt_num() -> None:
    assert fmt_num(None) == "-"
    assert fmt_num(float("nan")) == "-"
    assert fmt_num(0) == "0"
    assert fmt_num(1234567.0) == "1,234,567"
    assert fmt_num(5.0) == "5"
    assert fmt_num(0.00123) == "0.00123"
    assert fmt_num(0.25, step=0.25) == "0.25"
    assert fmt_num(20.0, step=20) == "20"
    assert fmt_num(52.5, step=2.5) == "52.5"


def test_line_chart_axes_labels_legend_and_determinism() -> None:
    series = [Series("a", [(0, 0), (1, 0.5), (2, 1)]), Series("b", [(0, 0.2), (3, 0.9)])]
    svg = line_chart(series, label="demo", x_label="x (ms)", y_label="y", hlines=(0.5,))
    root = parse(svg)
    assert len(root.findall(f"{SVG}polyline")) == 2
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "x (ms)" in texts and "y" in texts and "a" in texts and "b" in texts
    assert root.findall(f"{SVG}line[@class='ref']")
    assert svg == line_chart(series, label="demo", x_label="x (ms)", y_label="y", hlines=(0.5,))


def test_points_stay_inside_the_plot_area() -> None:
    svg = scatter_chart([(10, 100), (2000, 5), (500, 50)], label="s", x_label="x", y_label="y")
    root = parse(svg)
    w, h = (float(v) for v in root.get("viewBox").split()[2:])
    circles = root.findall(f".//{SVG}circle")
    assert len(circles) == 3
    for c in circles:
        assert 0 <= float(c.get("cx")) <= w and 0 <= float(c.get("cy")) <= h


def test_bar_charts() -> None:
    svg = hbar_chart(["x", "a-very-long-category-name-that-gets-shortened"],
                     [Bars("mean", [1.0, 2.0]), Bars("p90", [2.0, None])],
                     label="bars", x_label="ms")
    root = parse(svg)
    assert len(root.findall(f".//{SVG}rect[@class='bar']")) == 3
    assert "…" in svg and "a-very-long-category-name-that-gets-shortened" in svg  # full in title
    pct = hbar_chart(["a"], [Bars("acc", [0.5])], label="p", x_label="accuracy", percent=True)
    assert "50.0%" in pct and "100%" in pct
    stacked = parse(stacked_hbar_chart(["all", "rag"], ["embed", "llm"], [[1.0, 9.0], [0.0, 5.0]],
                                       label="st", x_label="ms"))
    assert len(stacked.findall(f".//{SVG}rect[@class='bar']")) == 3  # zero segment skipped
    v = parse(vbar_chart(["0", "1"], [Bars("p50", [1.0, 2.0]), Bars("p90", [3.0, 4.0])],
                         label="v", x_label="turn", y_label="ms"))
    assert len(v.findall(f".//{SVG}rect[@class='bar']")) == 4


def test_labels_are_escaped() -> None:
    svg = hbar_chart(["<script>&"], [Bars("n", [1.0])], label='"x"', x_label="<b>")
    parse(svg)
    assert "<script>" not in svg and "&lt;script&gt;&amp;" in svg


def test_no_data_is_visible_text() -> None:
    assert re.fullmatch(r'<p class="no-data">no data: nothing</p>', no_data("no data: nothing"))


def test_legend_wraps() -> None:
    assert legend_rows(["a"], 500) == 1
    assert legend_rows(["x" * 40] * 4, 500) >= 2


def test_the_last_tick_label_is_never_cut_at_the_edge() -> None:
    """#30 item 12: "40,000" centred on the last tick ran past the drawing ("40,00")."""
    import re

    from agentic_bench.reporting.plots import Series, line_chart
    from agentic_bench.reporting.svg_axes import CHAR_PX

    svg = line_chart([Series("s", [(0.0, 1.0), (40_000.0, 2.0)])], label="l", x_label="ms",
                     y_label="y")
    width = float(re.search(r'viewBox="0 0 ([\d.]+) ', svg).group(1))
    for x, text in re.findall(r'<text x="([\d.]+)" y="[\d.]+" text-anchor="middle">([^<]+)<',
                              svg):
        assert float(x) + len(text) * CHAR_PX / 2 <= width, (x, text)


def test_every_tooltip_names_its_series_and_units() -> None:
    """#30 item 10: hovering a point or bar says which series and in which unit."""
    import re

    from agentic_bench.reporting.plots import Bars, Series, hbar_chart, line_chart, vbar_chart

    svg = line_chart([Series("ttft p99", [(1.0, 10.0), (2.0, 30.0)])], label="l",
                     x_label="requests/s", y_label="ms", markers=True)
    tips = re.findall(r"<circle[^>]*><title>([^<]+)</title>", svg)
    assert tips == ["ttft p99: requests/s 1, ms 10", "ttft p99: requests/s 2, ms 30"]
    bars = vbar_chart(["0", "1"], [Bars("p50", [5.0, 6.0])], label="b", x_label="turn",
                      y_label="ms")
    assert "<title>turn 0 p50: 5 ms</title>" in bars
    h = hbar_chart(["llm"], [Bars("mean", [12.5])], label="h", x_label="step duration (ms)")
    assert "<title>llm mean: 12.5 step duration (ms)</title>" in h
