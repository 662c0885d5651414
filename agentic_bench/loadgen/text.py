"""A few summary.txt lines for the ``loadgen`` block of summary.json."""

from __future__ import annotations

from typing import Any


def _num(value: Any, digits: int = 2) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def render_loadgen_lines(block: dict[str, Any] | None) -> list[str]:
    """LoadGen's verdict, constraints, early stopping and its-vs-our latency, as text lines."""
    if not block:
        return []
    lines = ["", f"MLPerf LoadGen ({block.get('scenario') or '-'}, {block.get('mode') or '-'}): "
             f"Result is : {block.get('result') or '-'}"]
    checks = block.get("constraints") or {}
    if checks:
        lines.append("  " + "  ".join(f"{k.replace('_', ' ')} {'yes' if ok else 'NO'}"
                                      for k, ok in checks.items()))
    for name, text in (block.get("early_stopping") or {}).items():
        lines.append(f"  early stopping ({name}): {text}")
    cmp = block.get("comparison") or {}
    for key, label in (("latency_ms", "mean latency"), ("first_token_ms", "mean first token")):
        row = cmp.get(key)
        if row and row.get("loadgen_mean") is not None:
            lines.append(f"  {label} {_num(row['loadgen_mean'])} ms (ours "
                         f"{_num(row.get('ours_mean'))} ms, diff {_num(row.get('diff_ms'))} ms)")
    if block.get("samples_per_s") is not None:
        lines.append(f"  samples/s {_num(block['samples_per_s'])}  tokens/s "
                     f"{_num(block.get('tokens_per_s'), 1)}")
    acc = block.get("accuracy")
    if acc:
        lines.append(f"  accuracy log: {acc.get('logged_samples')} samples "
                     f"({acc.get('unique_samples')} unique)")
    return lines
