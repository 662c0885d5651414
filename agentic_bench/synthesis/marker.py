"""The cache-bust marker: ``[rid:<12 hex>]`` and a blank line at the start of a tree's first
user messages, so a prefix cache warmed by an earlier run, or by an earlier pass over the same
tree, cannot serve this one (AIPerf 0.13 ``timing/strategies/cache_bust.py``: the digest of
``benchmark:pass:trajectory:trace``, one marker per tree and recycle pass, shared by the root
and its subagents). Its tokens are not prompt content: records count them apart.
"""

from __future__ import annotations

import hashlib

DIGEST_CHARS = 12
# written in the marker's place when the lane, and so the marker, is not known yet (a tree drawn
# ahead: load/next_trees.py); as long as a marker, and needing no escape in JSON
MARKER_PLACEHOLDER = "[rid:" + "~" * DIGEST_CHARS + "]\n\n"


def cache_bust_marker(run_id: str, recycle_pass: int, lane: int, tree_id: str) -> str:
    """The marker that makes a run's prompts unique to it (run, recycle pass, lane, tree), so
    no request finds a prefix another run left in the server's cache."""
    digest = hashlib.sha256(f"{run_id}:{recycle_pass}:{lane}:{tree_id}".encode()).hexdigest()
    return f"[rid:{digest[:DIGEST_CHARS]}]\n\n"


__all__ = ["DIGEST_CHARS", "MARKER_PLACEHOLDER", "cache_bust_marker"]
