"""The fidelity gate's comparison: two :class:`TraceProfile` s, figure by figure, each against
its stated tolerance (``traces verify``, and the ``fidelity`` row of a replay's summary).

Tolerances (docs: the "Fidelity" section of docs/importers.md):

* **counts** — sessions, trees, requests, subagents, tool calls: **exact**. A side that
  cannot count a figure names it in ``unknown``; the row is then skipped, never read as 0.
* **ISL / OSL** — p50, p90 and p99 of the per-request token counts within **±10 %** of the
  reference (at least ±1 token), and the number of requests with a count **exact** — when
  both sides count in the same unit: the recorded counts (``recorded``), what a replay wrote
  for a prompt given as blocks (``synthesized``) and a reply held to its recorded length
  (``held``) are one unit; an ``estimate`` (characters / 4) matches only an estimate. The
  server's own count (``server``: its tokenizer and chat template) matches neither: shown,
  not gated.
* **gaps** — p50, p90, p99 of end → start gaps within **±10 %** of the reference times the
  run's ``--think-time`` factor (``gap_scale``), at least **±0.1 s** (event-loop and network
  time); not gated when the run waited none of it (``--think-time none``). The waits alone
  (``wait_gaps_s``: gaps across a fan-out or a join left out, since the subagents' time is
  the server's) when both sides give them, else every gap (``gaps_s``).
* **prefix hit** — the theoretical hit within **±0.02** (absolute), when both sides measure
  it the same way (``prefix_basis``: blocks or characters).

Percentiles are exact (:func:`agentic_bench.metrics.percentiles.percentile`, numpy's linear
method). The left side is the reference (the source, or the planned trace); a row fails only
when both sides know the figure and it is outside its tolerance.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from agentic_bench.metrics.percentiles import percentile
from agentic_bench.trace.profile import TraceProfile

COUNTS = ("sessions", "trees", "requests", "subagents", "tool_calls")
PERCENTILES = (50, 90, 99)
TOKEN_REL = 0.10  # ISL/OSL percentiles: ±10 % ...
TOKEN_ABS = 1.0  # ... and at least ±1 token
GAP_REL = 0.10  # gap percentiles: ±10 % ...
GAP_ABS_S = 0.1  # ... and at least ±0.1 s
PREFIX_ABS = 0.02  # theoretical prefix hit: ±0.02
SAME_UNIT = frozenset({"recorded", "synthesized", "held"})
LABELS = {"sessions": "sessions", "trees": "trees", "requests": "requests",
          "subagents": "subagents", "tool_calls": "tool calls"}


@dataclass(frozen=True)
class Row:
    """One figure: both sides' values, its tolerance, and ``status`` — ``ok``, ``FAIL``,
    ``not gated`` (shown, in different units) or ``skipped`` (a side cannot know it)."""

    figure: str
    left: float | int | None
    right: float | int | None
    tolerance: str
    status: str
    why: str = ""


def _counts(left: TraceProfile, right: TraceProfile) -> list[Row]:
    rows = []
    for name in COUNTS:
        a, b = getattr(left, name), getattr(right, name)
        blind = [side for side, p in (("left", left), ("right", right)) if name in p.unknown]
        if blind:
            rows.append(Row(LABELS[name], None if "left" in blind else a,
                            None if "right" in blind else b, "exact", "skipped",
                            "neither side can count it" if len(blind) == 2
                            else f"the {blind[0]} side cannot count it"))
        else:
            rows.append(Row(LABELS[name], a, b, "exact", "ok" if a == b else "FAIL"))
    return rows


def _known(values: Sequence[float | int | None]) -> list[float]:
    return sorted(float(v) for v in values if v is not None)


def _percentile_rows(label: str, ref: list[float], got: list[float], scale: float, rel: float,
                     floor: float, unit: str) -> list[Row]:
    tol = f"±{rel:.0%} (min {floor:g}{unit})" + (f", ref × {scale:g}" if scale != 1 else "")
    rows = []
    for p in PERCENTILES:
        a = percentile(ref, p) * scale
        b = percentile(got, p)
        ok = abs(b - a) <= max(rel * abs(a), floor)
        rows.append(Row(f"{label} p{p}", a, b, tol, "ok" if ok else "FAIL"))
    return rows


def _tokens(label: str, which: str, left: TraceProfile, right: TraceProfile) -> list[Row]:
    ref, got = _known(getattr(left, f"{which}_tokens")), _known(getattr(right, f"{which}_tokens"))
    lb, rb = getattr(left, f"{which}_basis"), getattr(right, f"{which}_basis")
    if f"{which}_tokens" in left.unknown + right.unknown or not ref or not got:
        side = "left" if not ref or f"{which}_tokens" in left.unknown else "right"
        return [Row(label, len(ref), len(got), f"±{TOKEN_REL:.0%}", "skipped",
                    f"no counts on the {side} side")]
    if not (lb == rb or (lb in SAME_UNIT and rb in SAME_UNIT)):
        why = f"units differ: {lb} vs {rb}"
        return [Row(f"{label} p{p}", percentile(ref, p), percentile(got, p), "-",
                    "not gated", why) for p in PERCENTILES]
    n = Row(f"{label} n", len(ref), len(got), "exact", "ok" if len(ref) == len(got) else "FAIL",
            "requests with a count")
    return [n, *_percentile_rows(label, ref, got, 1.0, TOKEN_REL, TOKEN_ABS, " tok")]


def _gaps(left: TraceProfile, right: TraceProfile) -> list[Row]:
    waits = left.wait_gaps_s is not None and right.wait_gaps_s is not None
    ref = _known((left.wait_gaps_s or []) if waits else left.gaps_s)
    got = _known((right.wait_gaps_s or []) if waits else right.gaps_s)
    scale = right.gap_scale / left.gap_scale if left.gap_scale else 1.0
    if "gaps_s" in left.unknown + right.unknown or not ref or not got:
        if not ref and not got and "gaps_s" not in left.unknown + right.unknown:
            return [Row("gaps", 0, 0, "exact", "ok", "no gaps on either side")]
        side = "left" if not ref or "gaps_s" in left.unknown else "right"
        return [Row("gaps (s)", len(ref), len(got), f"±{GAP_REL:.0%}", "skipped",
                    f"no gap times on the {side} side")]
    if scale == 0:
        return [Row(f"gap p{p} (s)", percentile(ref, p), percentile(got, p), "-", "not gated",
                    "the run waited no recorded time (--think-time none)")
                for p in PERCENTILES]
    return _percentile_rows("gap (s)", ref, got, scale, GAP_REL, GAP_ABS_S, " s")


def _prefix(left: TraceProfile, right: TraceProfile) -> Row:
    a, b = left.prefix_hit, right.prefix_hit
    tol = f"±{PREFIX_ABS:g}"
    if a is None or b is None or "prefix_hit" in left.unknown + right.unknown:
        side = "left" if a is None or "prefix_hit" in left.unknown else "right"
        return Row("prefix hit", a, b, tol, "skipped", f"not known on the {side} side")
    if left.prefix_basis and right.prefix_basis and left.prefix_basis != right.prefix_basis:
        return Row("prefix hit", a, b, "-", "not gated",
                   f"measured differently: {left.prefix_basis} vs {right.prefix_basis}")
    return Row("prefix hit", a, b, tol, "ok" if abs(a - b) <= PREFIX_ABS else "FAIL")


def compare(left: TraceProfile, right: TraceProfile) -> list[Row]:
    """Every figure of ``right`` against the reference ``left`` (see the module's docstring)."""
    return [*_counts(left, right), *_tokens("ISL", "input", left, right),
            *_tokens("OSL", "output", left, right), *_gaps(left, right), _prefix(left, right)]


def passed(rows: Sequence[Row]) -> bool:
    """No row outside its tolerance."""
    return all(r.status != "FAIL" for r in rows)


def _fmt(value: float | int | None) -> str:
    if value is None:
        return "-"
    if isinstance(value, int):
        return str(value)
    return f"{value:.4g}" if abs(value) < 1e5 else f"{value:.0f}"


def render_table(rows: Sequence[Row], left_name: str, right_name: str,
                 left_notes: Sequence[str] = (), right_notes: Sequence[str] = ()) -> str:
    """The side-by-side table ``traces verify`` prints, its notes and a last verdict line."""
    head = ("figure", left_name[:22], right_name[:22], "tolerance", "result")
    lines = [f"{head[0]:<16} {head[1]:>22} {head[2]:>22}  {head[3]:<26} {head[4]}"]
    for r in rows:
        why = r.why.replace("left side", f"{left_name} side").replace(
            "right side", f"{right_name} side")
        result = r.status + (f": {why}" if why and r.status != "ok" else "")
        lines.append(f"{r.figure:<16} {_fmt(r.left):>22} {_fmt(r.right):>22}  "
                     f"{r.tolerance:<26} {result}")
    for name, notes in ((left_name, left_notes), (right_name, right_notes)):
        lines += [f"note ({name}): {n}" for n in notes]
    failed = [r for r in rows if r.status == "FAIL"]
    if failed:
        lines.append("fidelity: FAIL — " + "; ".join(
            f"{r.figure} {_fmt(r.right)} vs {_fmt(r.left)} ({r.tolerance})" for r in failed))
    else:
        gated = sum(r.status == "ok" for r in rows)
        lines.append(f"fidelity: ok — {gated} figure(s) within tolerance, "
                     f"{sum(r.status == 'not gated' for r in rows)} not gated, "
                     f"{sum(r.status == 'skipped' for r in rows)} skipped")
    return "\n".join(lines) + "\n"


KEY_FIGURES = ("requests", "subagents", "ISL p50", "OSL p50", "gap (s) p50", "prefix hit")


def fidelity_block(rows: Sequence[Row], *, source: str, planned: str,
                   notes: Sequence[str] = ()) -> dict[str, Any]:
    """The ``fidelity`` entry of a replay's summary.json: planned (left) vs sent (right)."""
    by_name = {r.figure: r for r in rows}
    return {"ok": passed(rows), "source": source, "planned": planned,
            "failed": [r.figure for r in rows if r.status == "FAIL"],
            "figures": {k: {"planned": by_name[k].left, "sent": by_name[k].right,
                            "status": by_name[k].status}
                        for k in KEY_FIGURES if k in by_name},
            "rows": [asdict(r) for r in rows], "notes": list(notes)}


def fidelity_line(block: dict[str, Any]) -> str:
    """summary.txt's one line for the ``fidelity`` entry: the verdict, then sent/planned of
    each key figure that was compared, then those that were not."""
    if block.get("ok") is None:
        return f"Fidelity  : not computed ({block.get('error', 'unknown reason')})"
    shown, aside = [], []
    for name, fig in (block.get("figures") or {}).items():
        if fig["status"] in ("ok", "FAIL"):
            mark = " FAIL" if fig["status"] == "FAIL" else ""
            shown.append(f"{name} {_fmt(fig['sent'])}/{_fmt(fig['planned'])}{mark}")
        else:
            aside.append(f"{name.split(' ')[0]} {fig['status']}")
    verdict = "ok" if block["ok"] else "NOT OK (" + ", ".join(block.get("failed") or []) + ")"
    return (f"Fidelity  : {verdict} — sent/planned, {block.get('source')} import, "
            f"{block.get('planned')}: " + ", ".join(shown)
            + (f" ({', '.join(aside)})" if aside else ""))


__all__ = ["COUNTS", "GAP_ABS_S", "GAP_REL", "PREFIX_ABS", "TOKEN_ABS", "TOKEN_REL", "Row",
           "compare", "fidelity_block", "fidelity_line", "passed", "render_table"]
