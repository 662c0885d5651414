"""#42 (smaller items): y-axis titles were clipped — wide tick labels ("1,200,000") ran over the
rotated title, and a title longer than the axis ran off the picture."""

from __future__ import annotations

import re

from agentic_bench.reporting.plots import Series, line_chart, scatter_chart
from agentic_bench.reporting.svg_axes import CHAR_PX, TITLE_PX


def _tick_texts(svg: str) -> list[tuple[float, str]]:
    return [(float(x), text) for x, text in
            re.findall(r'<text x="([\d.]+)" y="[\d.]+" text-anchor="end">([^<]*)</text>', svg)]


def test_wide_tick_labels_leave_room_for_the_title() -> None:
    for svg in (line_chart([Series("s", [(0.0, 0.0), (1.0, 1_234_567.0)])], label="l",
                           x_label="x", y_label="tokens"),
                scatter_chart([(0.0, 0.0), (1.0, 1_234_567.0)], label="l", x_label="x",
                              y_label="tokens")):
        ticks = _tick_texts(svg)
        assert ticks and max(len(t) for _, t in ticks) >= 9
        for x, text in ticks:  # right-aligned at x: its left edge clears the title's column
            assert x - len(text) * CHAR_PX >= TITLE_PX - 0.5, (x, text)


def test_a_title_longer_than_its_axis_is_shortened_and_kept_whole_in_a_tooltip() -> None:
    title = "output tokens per second per GPU of the whole serving system, averaged"
    svg = line_chart([Series("s", [(0.0, 0.0), (1.0, 5.0)])], label="l", x_label="x",
                     y_label=title * 2)
    shown = re.search(r'class="axis-label"[^>]*transform="rotate[^>]*>([^<]*)<title>', svg)
    assert shown is not None and shown.group(1).endswith("…")
    assert f"<title>{title * 2}</title>" in svg
