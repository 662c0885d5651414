"""Scales, "nice" ticks, number formatting and axes for the inline SVG plots (pure Python).

Everything returns SVG markup as strings; coordinates are rounded to 0.1 px so the output is
small and deterministic (the same data gives byte-identical SVG).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from html import escape
from typing import Any

PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
           "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac")
FONT_PX = 12
CHAR_PX = 6.6  # rough width of one character at FONT_PX, for layout only


def color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def esc(text: object) -> str:
    return escape(str(text), quote=True)


def c(v: float) -> str:
    """One SVG coordinate: 0.1 px resolution, no trailing zeros."""
    s = f"{v:.1f}"
    return s[:-2] if s.endswith(".0") else s


def fmt_pct(v: Any) -> str:
    """A fraction as a percentage, one decimal ("57.1%"); "-" for anything not a number."""
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        return "-"
    return f"{v:.1%}"


def fmt_num(v: float | None, step: float | None = None) -> str:
    """Compact human number; ``step`` (a tick spacing) fixes the number of decimals."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "-"
    if step is not None and step > 0:
        decimals = max(0, -math.floor(math.log10(step) + 1e-9))
        if step * 10**decimals % 1 > 1e-6 and decimals < 6:  # e.g. 0.25
            decimals += 1
        return f"{v:,.{decimals}f}"
    a = abs(v)
    if a == 0:
        return "0"
    if a >= 1e5:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:,.1f}".rstrip("0").rstrip(".")
    if a >= 1:
        return f"{v:.2f}".rstrip("0").rstrip(".")
    return f"{v:.3g}"


def nice_step(span: float, target: int = 5) -> float:
    """A 1/2/2.5/5 × 10^k step giving about ``target`` intervals over ``span``."""
    if span <= 0 or not math.isfinite(span):
        return 1.0
    raw = span / max(target, 1)
    mag = 10 ** math.floor(math.log10(raw))
    mag = float(mag)
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * mag * (1 + 1e-9):
            return float(m * mag)
    return 10 * mag


def nice_ticks(lo: float, hi: float, target: int = 5) -> tuple[float, float, list[float]]:
    """Extend [lo, hi] to tick multiples; returns (lo, hi, ticks)."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        lo, hi = 0.0, 1.0
    if hi < lo:
        lo, hi = hi, lo
    if hi == lo:
        pad = abs(hi) * 0.1 or 1.0
        lo, hi = lo - pad, hi + pad
    step = nice_step(hi - lo, target)
    start = math.floor(lo / step + 1e-9) * step
    stop = math.ceil(hi / step - 1e-9) * step
    n = round((stop - start) / step)
    ticks = [start + i * step for i in range(n + 1)]
    return start, stop, ticks


@dataclass(frozen=True)
class Scale:
    """Linear map from data [d0, d1] to pixels [p0, p1]."""

    d0: float
    d1: float
    p0: float
    p1: float

    def __call__(self, v: float) -> float:
        span = self.d1 - self.d0
        t = (v - self.d0) / span if span else 0.5
        return self.p0 + t * (self.p1 - self.p0)


@dataclass(frozen=True)
class Frame:
    """Plot area inside an SVG of ``width`` × ``height``."""

    width: int = 640
    height: int = 300
    left: int = 64
    right: int = 16
    top: int = 30
    bottom: int = 46

    @property
    def x0(self) -> float:
        return self.left

    @property
    def x1(self) -> float:
        return self.width - self.right

    @property
    def y0(self) -> float:  # bottom edge (pixel y grows downwards)
        return self.height - self.bottom

    @property
    def y1(self) -> float:
        return self.top


def svg_open(frame: Frame, label: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {frame.width} {frame.height}" '
            f'width="{frame.width}" height="{frame.height}" role="img" aria-label="{esc(label)}" '
            f'font-size="{FONT_PX}"><title>{esc(label)}</title>')


def x_axis(frame: Frame, scale: Scale, ticks: list[float], label: str,
           tick_labels: list[str] | None = None) -> str:
    step = ticks[1] - ticks[0] if len(ticks) > 1 else None
    parts = [f'<line class="axis" x1="{c(frame.x0)}" y1="{c(frame.y0)}" x2="{c(frame.x1)}" '
             f'y2="{c(frame.y0)}"/>']
    for i, t in enumerate(ticks):
        x = c(scale(t))
        text = tick_labels[i] if tick_labels else fmt_num(t, step)
        # a label centred on the last tick may run past the drawing's edge: moved in, never cut
        half = len(text) * CHAR_PX / 2
        tx = c(min(max(scale(t), half + 2), frame.width - half - 2))
        parts.append(f'<line class="tick" x1="{x}" y1="{c(frame.y0)}" x2="{x}" '
                     f'y2="{c(frame.y0 + 4)}"/><text x="{tx}" y="{c(frame.y0 + 16)}" '
                     f'text-anchor="middle">{esc(text)}</text>')
    parts.append(f'<text class="axis-label" x="{c((frame.x0 + frame.x1) / 2)}" '
                 f'y="{c(frame.height - 8)}" text-anchor="middle">{esc(label)}</text>')
    return "".join(parts)


def _tick_texts(ticks: list[float], percent: bool) -> list[str]:
    step = ticks[1] - ticks[0] if len(ticks) > 1 else None
    return [f"{t * 100:.0f}%" if percent else fmt_num(t, step) for t in ticks]


TITLE_PX = 22  # the rotated y-axis title and its margins


def fit_y_labels(frame: Frame, ticks: list[float], percent: bool = False) -> Frame:
    """``frame`` with a left margin wide enough for the widest y tick label and the rotated
    axis title beside it (a "100,000" tick pushed the title out of the picture)."""
    widest = max((len(t) for t in _tick_texts(ticks, percent)), default=1)
    need = int(7 + widest * CHAR_PX + TITLE_PX + 0.5)
    return frame if need <= frame.left else replace(frame, left=need)


def y_axis(frame: Frame, scale: Scale, ticks: list[float], label: str,
           grid: bool = True, percent: bool = False) -> str:
    parts = [f'<line class="axis" x1="{c(frame.x0)}" y1="{c(frame.y0)}" x2="{c(frame.x0)}" '
             f'y2="{c(frame.y1)}"/>']
    for t, text in zip(ticks, _tick_texts(ticks, percent), strict=True):
        y = c(scale(t))
        if grid:
            parts.append(f'<line class="grid" x1="{c(frame.x0)}" y1="{y}" x2="{c(frame.x1)}" '
                         f'y2="{y}"/>')
        parts.append(f'<line class="tick" x1="{c(frame.x0 - 4)}" y1="{y}" x2="{c(frame.x0)}" '
                     f'y2="{y}"/><text x="{c(frame.x0 - 7)}" y="{c(float(y) + 4)}" '
                     f'text-anchor="end">{esc(text)}</text>')
    mid = c((frame.y0 + frame.y1) / 2)
    room = int((frame.y0 - frame.y1 + frame.bottom) / CHAR_PX)  # the title runs along the axis
    shown = label if len(label) <= room else label[:max(room - 1, 1)] + "…"
    parts.append(f'<text class="axis-label" x="14" y="{mid}" text-anchor="middle" '
                 f'transform="rotate(-90 14 {mid})">{esc(shown)}'
                 f"{'<title>' + esc(label) + '</title>' if shown != label else ''}</text>")
    return "".join(parts)


def legend(names: list[str], x: float, y: float, max_x: float,
           colors: list[str] | None = None) -> str:
    """Colored swatches + names laid out left to right, wrapping at ``max_x``."""
    parts = ['<g class="legend">']
    cx, cy = x, y
    for i, name in enumerate(names):
        w = 18 + len(name) * CHAR_PX + 14
        if cx + w > max_x and cx > x:
            cx, cy = x, cy + 16
        col = colors[i] if colors else color(i)
        parts.append(f'<rect x="{c(cx)}" y="{c(cy - 9)}" width="12" height="10" '
                     f'fill="{col}"/><text x="{c(cx + 16)}" y="{c(cy)}">{esc(name)}</text>')
        cx += w
    parts.append("</g>")
    return "".join(parts)


def legend_rows(names: list[str], width: float) -> int:
    """How many rows :func:`legend` needs for ``names`` within ``width`` px."""
    rows, used = 1, 0.0
    for name in names:
        w = 18 + len(name) * CHAR_PX + 14
        if used + w > width and used > 0:
            rows, used = rows + 1, 0.0
        used += w
    return rows
