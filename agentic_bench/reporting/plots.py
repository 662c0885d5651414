"""Chart types for report.html and compare.html, as inline SVG strings (no dependencies, no JS).

Each function returns one ``<svg>`` element; callers wrap it in a ``<figure id=...>``. An empty
data set is the caller's business: :func:`no_data` renders the visible placeholder.
Hovering a bar or point shows its exact value (an SVG ``<title>``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agentic_bench.reporting.svg_axes import (
    CHAR_PX,
    Frame,
    Scale,
    c,
    color,
    esc,
    fit_y_labels,
    fmt_num,
    legend,
    legend_rows,
    nice_ticks,
    svg_open,
    x_axis,
    y_axis,
)

Point = tuple[float, float]


@dataclass(frozen=True)
class Series:
    """A named curve; with markers, ``labels`` (one per point) are written beside them and
    the points whose indices are in ``hollow`` are drawn as open circles (an INVALID run)."""

    name: str
    points: list[Point]
    labels: list[str] | None = None
    hollow: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Bars:
    """One group of bar values, aligned with the chart's categories (None = no bar)."""

    name: str
    values: list[float | None]


def no_data(message: str = "no data") -> str:
    return f'<p class="no-data">{esc(message)}</p>'


def _legend_frame(names: list[str], base: Frame) -> Frame:
    if len(names) < 2:
        return base
    rows = legend_rows(names, base.width - base.left - base.right)
    extra = 16 * (rows - 1)
    return Frame(base.width, base.height + extra, base.left, base.right, base.top + extra,
                 base.bottom)


def line_chart(series: Sequence[Series], *, label: str, x_label: str, y_label: str,
               y_range: tuple[float, float] | None = None, x_from_zero: bool = False,
               percent_y: bool = False, hlines: Sequence[float] = (),
               markers: bool = False, width: int = 640) -> str:
    """Polylines over shared linear axes; ``hlines`` draws dashed reference lines; ``width``
    (drawing units) for a full-width plot, whose text then stays the size of the others'."""
    names = [s.name for s in series]
    frame = _legend_frame(names, Frame(width=width))
    xs = [p[0] for s in series for p in s.points]
    ys = [p[1] for s in series for p in s.points]
    x_lo, x_hi, x_ticks = nice_ticks(0.0 if x_from_zero else min(xs), max(xs))
    if y_range is not None:
        y_lo, y_hi = y_range
        _, _, y_ticks = nice_ticks(y_lo, y_hi, 4)
    else:
        y_lo, y_hi, y_ticks = nice_ticks(min(0.0, min(ys)), max(ys), 5)
    frame = fit_y_labels(frame, y_ticks, percent_y)
    sx = Scale(x_lo, x_hi, frame.x0, frame.x1)
    sy = Scale(y_lo, y_hi, frame.y0, frame.y1)
    parts = [svg_open(frame, label), y_axis(frame, sy, y_ticks, y_label, percent=percent_y)]
    for h in hlines:
        parts.append(f'<line class="ref" x1="{c(frame.x0)}" y1="{c(sy(h))}" x2="{c(frame.x1)}" '
                     f'y2="{c(sy(h))}"><title>{esc(fmt_num(h))}</title></line>')
    parts.append(x_axis(frame, sx, x_ticks, x_label))
    for i, s in enumerate(series):
        if not s.points:
            continue
        pts = " ".join(f"{c(sx(x))},{c(sy(y))}" for x, y in s.points)
        parts.append(f'<polyline class="series" fill="none" stroke="{color(i)}" '
                     f'stroke-width="1.8" points="{pts}"><title>{esc(s.name)}</title></polyline>')
        if markers:
            for k, (x, y) in enumerate(s.points):
                fill = ('fill="#fff" stroke="' + color(i) + '" stroke-width="1.6"'
                        if k in s.hollow else f'fill="{color(i)}"')
                tag = s.labels[k] if s.labels is not None else None
                parts.append(f'<circle cx="{c(sx(x))}" cy="{c(sy(y))}" r="3.5" {fill}>'
                             f"<title>{esc(s.name)}: {esc(x_label)} {fmt_num(x)}, "
                             f"{esc(y_label)} {fmt_num(y)}"
                             f"{esc(' (' + tag + ')') if tag else ''}</title></circle>")
                if tag:
                    parts.append(f'<text class="value" x="{c(sx(x) + 5)}" y="{c(sy(y) - 6)}">'
                                 f"{esc(tag)}</text>")
    if len(names) > 1:
        parts.append(legend(names, frame.x0, 16, frame.x1))
    parts.append("</svg>")
    return "".join(parts)


def scatter_chart(points: Sequence[Point], *, label: str, x_label: str, y_label: str) -> str:
    frame = Frame()
    x_lo, x_hi, x_ticks = nice_ticks(min(0.0, min(p[0] for p in points)),
                                     max(p[0] for p in points))
    y_lo, y_hi, y_ticks = nice_ticks(min(0.0, min(p[1] for p in points)),
                                     max(p[1] for p in points))
    frame = fit_y_labels(frame, y_ticks)
    sx = Scale(x_lo, x_hi, frame.x0, frame.x1)
    sy = Scale(y_lo, y_hi, frame.y0, frame.y1)
    parts = [svg_open(frame, label), y_axis(frame, sy, y_ticks, y_label),
             x_axis(frame, sx, x_ticks, x_label), f'<g class="points" fill="{color(0)}">']
    parts += [f'<circle cx="{c(sx(x))}" cy="{c(sy(y))}" r="2.6" fill-opacity="0.55">'
              f"<title>{esc(x_label)} {fmt_num(x)}, {esc(y_label)} {fmt_num(y)}</title></circle>"
              for x, y in points]
    parts.append("</g></svg>")
    return "".join(parts)


def _short(name: str, limit: int = 26) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"


def hbar_chart(categories: Sequence[str], groups: Sequence[Bars], *, label: str, x_label: str,
               percent: bool = False) -> str:
    """Horizontal bars, one row per category, one bar per group (grouped when several)."""
    names = [g.name for g in groups]
    label_w = min(26, max(len(s) for s in categories)) * CHAR_PX + 12
    bar_h, gap = 14, 8
    row_h = bar_h * len(groups) + gap
    legend_h = 18 * legend_rows(names, 560) if len(groups) > 1 else 0
    height = 20 + legend_h + row_h * len(categories) + 40
    frame = Frame(640, height, int(label_w), 56, 12 + legend_h, 40)
    values = [v for g in groups for v in g.values if v is not None]
    hi = max(values, default=0.0)
    x_lo, x_hi, x_ticks = nice_ticks(0.0, 1.0 if percent and hi <= 1 else max(hi, 1e-12), 5)
    sx = Scale(x_lo, x_hi, frame.x0, frame.x1)
    parts = [svg_open(frame, label)]
    for t in x_ticks:
        parts.append(f'<line class="grid" x1="{c(sx(t))}" y1="{c(frame.y1)}" x2="{c(sx(t))}" '
                     f'y2="{c(frame.y0)}"/>')
    tick_labels = [f"{t * 100:.0f}%" for t in x_ticks] if percent else None
    parts.append(x_axis(frame, sx, x_ticks, x_label, tick_labels))
    for r, cat in enumerate(categories):
        y = frame.y1 + gap / 2 + r * row_h
        parts.append(f'<text x="{c(frame.x0 - 6)}" y="{c(y + row_h / 2 - gap / 2 + 4)}" '
                     f'text-anchor="end">{esc(_short(cat))}<title>{esc(cat)}</title></text>')
        for g, grp in enumerate(groups):
            v = grp.values[r]
            if v is None:
                continue
            text = f"{v * 100:.1f}%" if percent else fmt_num(v)
            w = max(sx(v) - frame.x0, 0.5)
            by = y + g * bar_h
            parts.append(f'<rect class="bar" x="{c(frame.x0)}" y="{c(by)}" width="{c(w)}" '
                         f'height="{bar_h - 2}" fill="{color(g)}"><title>{esc(cat)} '
                         f'{esc(grp.name)}: {text}{"" if percent else " " + esc(x_label)}'
                         f'</title></rect><text class="value" '
                         f'x="{c(frame.x0 + w + 4)}" y="{c(by + bar_h - 4)}">{text}</text>')
    parts.append(f'<line class="axis" x1="{c(frame.x0)}" y1="{c(frame.y1)}" x2="{c(frame.x0)}" '
                 f'y2="{c(frame.y0)}"/>')
    if len(groups) > 1:
        parts.append(legend(names, frame.x0, 16, frame.x1))
    parts.append("</svg>")
    return "".join(parts)


def stacked_hbar_chart(rows: Sequence[str], segments: Sequence[str],
                       values: Sequence[Sequence[float]], *, label: str, x_label: str) -> str:
    """One horizontal bar per row, split into ``segments`` (``values[row][segment]``)."""
    label_w = min(26, max(len(s) for s in rows)) * CHAR_PX + 12
    bar_h = 22
    legend_h = 18 * legend_rows(list(segments), 560)
    height = 20 + legend_h + (bar_h + 10) * len(rows) + 40
    frame = Frame(640, height, int(label_w), 64, 14 + legend_h, 40)
    totals = [sum(v) for v in values]
    x_lo, x_hi, x_ticks = nice_ticks(0.0, max(max(totals, default=0.0), 1e-12), 5)
    sx = Scale(x_lo, x_hi, frame.x0, frame.x1)
    parts = [svg_open(frame, label)]
    for t in x_ticks:
        parts.append(f'<line class="grid" x1="{c(sx(t))}" y1="{c(frame.y1)}" x2="{c(sx(t))}" '
                     f'y2="{c(frame.y0)}"/>')
    parts.append(x_axis(frame, sx, x_ticks, x_label))
    for r, row in enumerate(rows):
        y = frame.y1 + 5 + r * (bar_h + 10)
        parts.append(f'<text x="{c(frame.x0 - 6)}" y="{c(y + bar_h / 2 + 4)}" '
                     f'text-anchor="end">{esc(_short(row))}<title>{esc(row)}</title></text>')
        x = frame.x0
        for s, seg in enumerate(segments):
            v = values[r][s]
            if v <= 0:
                continue
            w = sx(v) - sx(0.0)
            parts.append(f'<rect class="bar" x="{c(x)}" y="{c(y)}" width="{c(max(w, 0.5))}" '
                         f'height="{bar_h}" fill="{color(s)}"><title>{esc(row)} {esc(seg)}: '
                         f"{fmt_num(v)} {esc(x_label)}</title></rect>")
            x += w
        parts.append(f'<text class="value" x="{c(x + 4)}" y="{c(y + bar_h / 2 + 4)}">'
                     f"{fmt_num(totals[r])}</text>")
    parts.append(legend(list(segments), frame.x0, 16, frame.x1))
    parts.append("</svg>")
    return "".join(parts)


def vbar_chart(categories: Sequence[str], groups: Sequence[Bars], *, label: str, x_label: str,
               y_label: str) -> str:
    """Vertical grouped bars: one cluster per category, one bar per group."""
    names = [g.name for g in groups]
    frame = _legend_frame(names, Frame())
    values = [v for g in groups for v in g.values if v is not None]
    y_lo, y_hi, y_ticks = nice_ticks(0.0, max(max(values, default=0.0), 1e-12), 5)
    frame = fit_y_labels(frame, y_ticks)
    sy = Scale(y_lo, y_hi, frame.y0, frame.y1)
    slot = (frame.x1 - frame.x0) / max(len(categories), 1)
    bar_w = min(28.0, slot * 0.8 / max(len(groups), 1))
    parts = [svg_open(frame, label), y_axis(frame, sy, y_ticks, y_label),
             f'<line class="axis" x1="{c(frame.x0)}" y1="{c(frame.y0)}" x2="{c(frame.x1)}" '
             f'y2="{c(frame.y0)}"/>']
    every = max(1, round(len(categories) / 20))
    for k, cat in enumerate(categories):
        mid = frame.x0 + slot * (k + 0.5)
        x = mid - bar_w * len(groups) / 2
        for g, grp in enumerate(groups):
            v = grp.values[k]
            if v is None:
                continue
            top = sy(v)
            parts.append(f'<rect class="bar" x="{c(x + g * bar_w)}" y="{c(top)}" '
                         f'width="{c(bar_w - 1)}" height="{c(max(frame.y0 - top, 0.5))}" '
                         f'fill="{color(g)}"><title>{esc(x_label)} {esc(cat)} {esc(grp.name)}: '
                         f"{fmt_num(v)} {esc(y_label)}</title></rect>")
        if k % every == 0:
            parts.append(f'<text x="{c(mid)}" y="{c(frame.y0 + 16)}" text-anchor="middle">'
                         f"{esc(_short(cat, 10))}</text>")
    parts.append(f'<text class="axis-label" x="{c((frame.x0 + frame.x1) / 2)}" '
                 f'y="{c(frame.height - 8)}" text-anchor="middle">{esc(x_label)}</text>')
    if len(groups) > 1:
        parts.append(legend(names, frame.x0, 16, frame.x1))
    parts.append("</svg>")
    return "".join(parts)
