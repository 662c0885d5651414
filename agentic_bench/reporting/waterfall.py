"""A session's waterfall (``section-waterfall``): everything one session did on one time axis —
each LLM call (its time to first token darker), tool and other recorded waits, think time
between turns, subagent branches in their own rows, and the time a parent waited at a join.
The report draws the slowest and the median whole session; ``agentic-bench report DIR
--session ID`` draws any one.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from agentic_bench.metrics.declarations import field_of
from agentic_bench.reporting.html_template import figure, section
from agentic_bench.reporting.plots import no_data
from agentic_bench.reporting.svg_axes import (
    Frame,
    Scale,
    c,
    esc,
    fmt_num,
    legend,
    nice_ticks,
    svg_open,
    x_axis,
)

KINDS = {"llm": ("LLM call", "#4e79a7"), "ttft": ("time to first token", "#2b4a6b"),
         "wait": ("recorded wait (tools, user)", "#bab0ac"), "tool": ("tool step", "#76b7b2"),
         "think": ("think time", "#edc948"), "join": ("waiting for subagents", "#e15759"),
         "stage": ("retrieve / rerank / embed", "#59a14f"), "error": ("failed call", "#ff0000")}
MAX_ROWS = 24


def pick(records: Sequence[dict[str, Any]]) -> list[tuple[str, str]]:
    """(label, session id) of the slowest and the median whole, successful session."""
    done = sorted((r for r in records if r.get("type") == "session" and not r.get("partial")
                   and r.get("status") == "ok" and not r.get("warmup")),
                  key=lambda r: r.get("latency_ms") or 0.0)
    if not done:
        done = sorted((r for r in records if r.get("type") == "session"),
                      key=lambda r: r.get("latency_ms") or 0.0)
    if not done:
        return []
    out = [("slowest", str(done[-1]["session_id"]))]
    median = done[(len(done) - 1) // 2]
    if median is not done[-1]:
        out.append(("median", str(median["session_id"])))
    return out


Bar = tuple[int, float, float, str, str]  # row, start ms, end ms, kind, tooltip


def _bars(records: Sequence[dict[str, Any]], sid: str) -> tuple[list[str], list[Bar]]:
    """Rows (conversations) and bars (row, start ms, end ms, kind, tooltip) of one session."""
    mine = [r for r in records if r.get("session_id") == sid and not r.get("warmup")]
    starts = [r[k] for r in mine for k in ("t_scheduled_ns", "t_sent_ns", "t_start_ns")
              if isinstance(r.get(k), int)]
    if not starts:
        return [], []
    t0 = min(starts)
    rows: list[str] = ["session"]
    bars: list[Bar] = []

    def row(branch: str | None) -> int:
        name = branch or "session"
        if name not in rows:
            rows.append(name)
        return rows.index(name)

    def ms(ns: int) -> float:
        return float(ns - t0) / 1e6

    turns = sorted((r for r in mine if r.get("type") == "turn"
                    and isinstance(r.get("t_start_ns"), int)
                    and isinstance(r.get("t_end_ns"), int)), key=lambda r: r["t_start_ns"])
    for before, after in itertools.pairwise(turns):
        if after["t_start_ns"] > before["t_end_ns"]:
            bars.append((0, ms(before["t_end_ns"]), ms(after["t_start_ns"]), "think",
                         f"think time before turn {after['turn']}"))
    request, ttft = field_of("request"), field_of("ttft")
    for r in mine:
        if r.get("type") == "step" and r.get("status") != "retried":
            i = row(r.get("branch"))
            start, end = r.get("t_sent_ns"), r.get("t_end_ns")
            if not isinstance(start, int) or not isinstance(end, int):
                continue
            if r.get("kind") == "llm":
                ok = r.get("status") == "ok"
                tip = (f"LLM call, turn {r.get('turn')} step {r.get('step')}: "
                       f"{fmt_num(r.get(request))} ms"
                       + (f", TTFT {fmt_num(r.get(ttft))} ms" if r.get(ttft) else "")
                       + (f", {r.get('output_tokens')} tokens out" if ok else
                          f", failed: {r.get('error_type')}"))
                bars.append((i, ms(start), ms(end), "llm" if ok else "error", tip))
                if ok and isinstance(r.get("t_first_token_ns"), int):
                    bars.append((i, ms(start), ms(r["t_first_token_ns"]), "ttft", tip))
            else:
                kind = r.get("kind") or "stage"
                shown = kind if kind in KINDS else "stage"
                bars.append((i, ms(start), ms(end), shown,
                             f"{kind} {fmt_num(r.get('duration_ms'))} ms"))
        elif (r.get("type") == "join" and isinstance(r.get("t_start_ns"), int)
              and isinstance(r.get("t_end_ns"), int)):
            i = row(r.get("conversation") or None)
            bars.append((i, ms(r["t_start_ns"]), ms(r["t_end_ns"]), "join",
                         f"waited {fmt_num(r.get('wait_ms'))} ms for "
                         f"{', '.join(r.get('branches') or [])}"))
    return rows[:MAX_ROWS], [b for b in bars if b[0] < MAX_ROWS]


def waterfall_svg(records: Sequence[dict[str, Any]], sid: str) -> str:
    rows, bars = _bars(records, sid)
    if not bars:
        return no_data(f"no timed steps for session {sid}")
    label_w = min(26, max(len(r) for r in rows)) * 6.6 + 14
    lane = 18
    kinds = [k for k in KINDS if any(b[3] == k for b in bars)]
    frame = Frame(760, 46 + 22 + lane * len(rows) + 30, int(label_w), 16, 40, 46)
    end = max(b[2] for b in bars)
    lo, hi, ticks = nice_ticks(0.0, max(end, 1.0), 6)
    sx = Scale(lo, hi, frame.x0, frame.x1)
    parts = [svg_open(frame, f"waterfall of session {sid}")]
    for t in ticks:
        parts.append(f'<line class="grid" x1="{c(sx(t))}" y1="{c(frame.y1)}" x2="{c(sx(t))}" '
                     f'y2="{c(frame.y0)}"/>')
    parts.append(x_axis(frame, sx, ticks, "ms from the session's start"))
    for i, name in enumerate(rows):
        y = frame.y1 + 4 + i * lane
        parts.append(f'<text x="{c(frame.x0 - 6)}" y="{c(y + 12)}" text-anchor="end">'
                     f"{esc(name[:26])}<title>{esc(name)}</title></text>")
    for i, start, stop, kind, tip in bars:
        y = frame.y1 + 4 + i * lane + (4 if kind == "ttft" else 2)
        h = lane - (8 if kind == "ttft" else 4)
        w = max(sx(stop) - sx(start), 0.6)
        parts.append(f'<rect x="{c(sx(start))}" y="{c(y)}" width="{c(w)}" height="{h}" '
                     f'fill="{KINDS[kind][1]}"><title>{esc(tip)}</title></rect>')
    parts.append(legend([KINDS[k][0] for k in kinds], frame.x0, 16, frame.x1,
                        [KINDS[k][1] for k in kinds]))
    parts.append("</svg>")
    return "".join(parts)


def waterfall_section(records: Sequence[dict[str, Any]], session: str | None = None) -> str:
    chosen = [("chosen", session)] if session else pick(records)
    if not chosen:
        return ""
    figures = "".join(
        figure(f"plot-waterfall-{label}", f"Session {sid} ({label})", waterfall_svg(records, sid),
               "every LLM call (its first token darker), recorded waits, think time, subagent "
               "rows and join waits on one axis; hover for each bar's figures")
        for label, sid in chosen)
    return section("section-waterfall", "Session waterfall", figures)


__all__ = ["pick", "waterfall_section", "waterfall_svg"]
