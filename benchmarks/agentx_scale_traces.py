"""Weka-format agent trees for ``benchmarks/agentx_scale.py``: copies of one root
conversation whose prompt grows by appended blocks from ``first_tokens`` to ``last_tokens``
(17k → 101k tokens by default: the sizes of the Weka trace_0291 the AIPerf differential
replayed), with a fixed recorded gap between one reply's end and the next request.

Synthetic (no recorded trace of that size is committed); every copy has its own id, so each
lane's tree writes its own text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

BLOCK = 64


def tree(copy: int, requests: int, first_tokens: int, last_tokens: int, gap_s: float,
         api_s: float, out_tokens: int) -> dict[str, Any]:
    """One root conversation: ``requests`` rows, ``in`` growing linearly, hash ids chained."""
    rows: list[dict[str, Any]] = []
    t = 0.0
    for k in range(requests):
        size = first_tokens + (last_tokens - first_tokens) * k // max(1, requests - 1)
        rows.append({"t": round(t, 6), "type": "s", "model": "recorded", "in": size,
                     "out": out_tokens, "hash_ids": list(range(1, size // BLOCK + 1)),
                     "input_types": ["text" if k == 0 else "tool_result"],
                     "output_types": ["tool_use"], "stop": "tool_use", "api_time": api_s})
        t += api_s + gap_s
    return {"id": f"scale-{copy:05d}", "models": ["recorded"], "block_size": BLOCK,
            "hash_id_scope": "local", "tool_tokens": 6000, "system_tokens": 2000,
            "requests": rows}


def write_trees(path: Path, copies: int, requests: int = 8, first_tokens: int = 17_000,
                last_tokens: int = 101_000, gap_s: float = 1.0, api_s: float = 0.05,
                out_tokens: int = 32) -> Path:
    """``copies`` trees as one Weka JSON Lines file at ``path``."""
    with path.open("w", encoding="utf-8") as fh:
        for c in range(copies):
            fh.write(json.dumps(tree(c, requests, first_tokens, last_tokens, gap_s, api_s,
                                     out_tokens)) + "\n")
    return path
