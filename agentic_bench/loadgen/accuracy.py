"""Accuracy mode: our scorer over the sessions LoadGen logged in mlperf_log_accuracy.json.

Each completed query's response data is a small JSON object naming its session
(``session_id``, ``qsl_index``, ``status``, ``output_tokens``); LoadGen writes it, hex-encoded,
into the accuracy log. The workload's ``score(records)`` then runs over exactly the records of
those sessions (plus records that belong to no session).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentic_bench.contracts import Scorer
from agentic_bench.loadgen.logs import parse_accuracy_log


def logged_sessions(path: Path) -> list[dict[str, Any]]:
    """The session descriptors in the accuracy log (entries that are not ours are skipped)."""
    out: list[dict[str, Any]] = []
    for entry in parse_accuracy_log(path):
        try:
            info = json.loads(entry["data"].decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            continue
        if isinstance(info, dict) and "session_id" in info:
            out.append({**info, "seq_id": entry.get("seq_id"),
                        "token_count": entry.get("token_count")})
    return out


def score_accuracy_log(path: Path, records: list[dict[str, Any]],
                       score: Scorer | None) -> dict[str, Any]:
    sessions = logged_sessions(path)
    ids = {s["session_id"] for s in sessions}
    chosen = [r for r in records if r.get("session_id") is None or r.get("session_id") in ids]
    return {
        "log": path.name,
        "logged_samples": len(sessions),
        "unique_samples": len({s.get("qsl_index") for s in sessions}),
        "sessions_ok": sum(1 for s in sessions if s.get("status") == "ok"),
        "score": score(chosen) if score is not None else None,
    }
