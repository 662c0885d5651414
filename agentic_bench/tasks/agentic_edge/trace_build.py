"""``agentic-bench traces build agentic-edge``: recorded trajectories + manifest in traces/.

Deterministic: the same bfcl-eval version and limit give byte-identical output; the manifest
records the source package version, the command's parameters and the sha256 of the output.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from agentic_bench.trace.jsonl import session_to_json

ROOT = Path(__file__).resolve().parents[3]
DEFAULT_TRACE = ROOT / "traces" / "agentic-edge" / "bfcl-multi-turn.jsonl"
DEFAULT_LIMIT = 10


def manifest_path(trace: Path) -> Path:
    return trace.with_suffix(".manifest.json")


def build_trace(out: Path = DEFAULT_TRACE, limit_per_subset: int | None = DEFAULT_LIMIT,
                subsets: tuple[str, ...] | None = None) -> dict[str, object]:
    from agentic_bench.tasks.agentic_edge.bfcl_env import bfcl_version
    from agentic_bench.tasks.agentic_edge.multi_turn import MULTI_TURN_SUBSETS
    from agentic_bench.tasks.agentic_edge.trajectories import build_trajectories

    chosen = tuple(subsets or MULTI_TURN_SUBSETS)
    sessions = build_trajectories(list(chosen), limit_per_subset)
    out.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(session_to_json(s) + "\n" for s in sessions).encode()
    out.write_bytes(data)
    manifest: dict[str, object] = {
        "trace": out.name,
        "sessions": len(sessions),
        "turns": sum(len(s.turns) for s in sessions),
        "llm_steps": sum(s.llm_step_count() for s in sessions),
        "sha256": hashlib.sha256(data).hexdigest(),
        "source": {"package": "bfcl-eval", "version": bfcl_version(),
                   "subsets": list(chosen), "limit_per_subset": limit_per_subset},
        "builder": "agentic-bench traces build agentic-edge",
        "licence": "BFCL data: Apache-2.0 (gorilla-llm/bfcl-eval)",
    }
    manifest_path(out).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def verify_trace(trace: Path = DEFAULT_TRACE) -> bool:
    """True when the trace's bytes match the sha256 in its manifest."""
    manifest = json.loads(manifest_path(trace).read_text(encoding="utf-8"))
    return bool(hashlib.sha256(trace.read_bytes()).hexdigest() == manifest["sha256"])
