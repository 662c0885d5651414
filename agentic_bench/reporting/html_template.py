"""HTML building blocks shared by report.html and compare.html: page shell with inline CSS,
sections, figures, tables. Self-contained: no scripts, no external fonts, styles or images."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agentic_bench.reporting.interactive import page_assets
from agentic_bench.reporting.svg_axes import esc, fmt_num

CSS = """
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
       sans-serif; color: #222; background: #f4f5f7; margin: 0; }
main { max-width: 1320px; margin: 0 auto; padding: 16px 20px 40px; }
h1 { font-size: 22px; margin: 8px 0 4px; }
h2 { font-size: 17px; margin: 0 0 10px; }
h3 { font-size: 14px; margin: 6px 0 4px; color: #444; }
.sub { color: #555; margin: 0 0 14px; }
section { background: #fff; border: 1px solid #dde1e6; border-radius: 8px; padding: 14px 18px;
          margin: 14px 0; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(560px, 1fr)); gap: 14px; }
figure { margin: 0; border: 1px solid #eceef1; border-radius: 6px; padding: 8px 10px; }
figcaption { font-weight: 600; margin-bottom: 4px; }
figure svg { width: 100%; max-width: 720px; height: auto; display: block; }
section.wide figure svg { max-width: 1100px; }
svg text { fill: #333; font-family: inherit; }
svg .axis, svg .tick { stroke: #444; stroke-width: 1; }
svg .grid { stroke: #e6e8eb; stroke-width: 1; }
svg .ref { stroke: #9aa0a6; stroke-width: 1; stroke-dasharray: 4 3; }
svg .axis-label { font-weight: 600; }
svg .value { font-size: 11px; fill: #444; }
.note { color: #666; font-size: 12px; margin: 4px 0 0; }
.no-data { color: #7a5b00; background: #fff8e1; border: 1px dashed #e0c060; border-radius: 4px;
           padding: 18px; text-align: center; margin: 6px 0; }
table { border-collapse: collapse; margin: 4px 0 8px; font-size: 13px; }
th, td { border-bottom: 1px solid #eceef1; padding: 3px 10px; text-align: left;
         vertical-align: top; }
th { background: #f7f8fa; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.kv td:first-child { color: #555; white-space: nowrap; }
.cols { display: flex; flex-wrap: wrap; gap: 8px 40px; }
.verdict { border-radius: 8px; padding: 14px 18px; color: #fff; }
.verdict.valid { background: #2e7d32; }
.verdict.invalid { background: #c62828; }
.verdict.unconstrained { background: #5f6b7a; }
.verdict .big { font-size: 26px; font-weight: 700; letter-spacing: 1px; }
.verdict table { background: #fff; color: #222; border-radius: 4px; margin-top: 10px; }
tr.fail td { background: #fdecea; }
.ok { color: #2e7d32; font-weight: 600; }
.fail { color: #c62828; font-weight: 600; }
section.cards { display: flex; flex-wrap: wrap; gap: 10px; background: none; border: 0;
                padding: 0; }
.card { background: #fff; border: 1px solid #dde1e6; border-radius: 8px; padding: 8px 14px;
        min-width: 120px; }
.card .label { color: #555; font-size: 12px; }
.card .figure { font-size: 20px; font-weight: 650; font-variant-numeric: tabular-nums; }
.card .unit { color: #555; font-size: 12px; margin-left: 3px; }
.card.bad .figure { color: #c62828; }
code { font-size: 12px; background: #f1f3f5; padding: 1px 4px; border-radius: 3px; }
"""


def page(title: str, body: str) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{esc(title)}</title><style>{CSS}</style></head>"
            f"<body><main>{body}</main>{page_assets(body)}</body></html>\n")


def section(sec_id: str, title: str, body: str, css: str = "") -> str:
    cls = f' class="{css}"' if css else ""
    return f'<section id="{sec_id}"{cls}><h2>{esc(title)}</h2>{body}</section>'


def figure(fig_id: str, title: str, body: str, note: str = "") -> str:
    tail = f'<p class="note">{esc(note)}</p>' if note else ""
    return (f'<figure id="{fig_id}" class="plot"><figcaption>{esc(title)}</figcaption>'
            f"{body}{tail}</figure>")


class Raw(str):
    """Markup built here from escaped parts (a link, say): tables put it in as it is."""


def _td(value: Any) -> str:
    return value if isinstance(value, Raw) else esc(cell(value))


def cell(value: Any) -> str:
    """Table cell text: numbers compact, None as '-', booleans as yes/no, strings as they are,
    lists and objects as readable text (never a Python repr)."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return fmt_num(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, dict):
        return "; ".join(f"{k} {cell(v)}" for k, v in value.items()) or "-"
    if isinstance(value, list | tuple):
        return ", ".join(cell(v) for v in value) or "-"
    return str(value)


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], table_id: str = "",
          row_classes: Sequence[str] | None = None,
          right: Sequence[int] | None = None) -> str:
    """A table; numeric columns (every value a number or None), or the column indexes in
    ``right``, are right-aligned."""
    numeric = [(right is not None and i in right)
               or (all(_is_num(r[i]) or r[i] is None for r in rows)
                   and any(r[i] is not None for r in rows)) for i in range(len(headers))]
    tid = f' id="{table_id}"' if table_id else ""
    head = "".join(f'<th{" class=num" if numeric[i] else ""}>{esc(h)}</th>'
                   for i, h in enumerate(headers))
    body = []
    for k, r in enumerate(rows):
        cls = f' class="{row_classes[k]}"' if row_classes and row_classes[k] else ""
        tds = "".join(f'<td{" class=num" if numeric[i] else ""}>{_td(v)}</td>'
                      for i, v in enumerate(r))
        body.append(f"<tr{cls}>{tds}</tr>")
    return f"<table{tid}><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _is_num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def kv_table(items: Sequence[tuple[str, Any]], table_id: str = "") -> str:
    tid = f' id="{table_id}"' if table_id else ""
    rows = "".join(f"<tr><td>{esc(k)}</td><td>{_td(v)}</td></tr>" for k, v in items)
    return f'<table class="kv"{tid}><tbody>{rows}</tbody></table>'


def flatten(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """Nested dict → dotted (key, scalar) pairs; lists are shown as JSON-ish text."""
    if isinstance(value, dict):
        out: list[tuple[str, Any]] = []
        for k, v in value.items():
            out += flatten(v, f"{prefix}{k}.")
        return out or [(prefix.rstrip("."), "-")]
    if isinstance(value, list | tuple):
        return [(prefix.rstrip("."), cell(list(value)))]
    return [(prefix.rstrip("."), value)]
