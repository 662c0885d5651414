"""After an agent-tree replay: the finite-capacity theoretical prefix hit of what was sent
(``replay --cache-capacity TOKENS``), beside the unbounded per-tree one.

Read from the run folder's ``records.jsonl`` and the trace (the workload's sessions by index):
every successful request given as blocks (``prefix_blocks``), warm-up included — a server's
cache holds what the warm-up left — in the order the requests were sent (``t_sent_ns``), all
lanes through one cache (trace/prefix_lru.py). A request's blocks are its hash ids, scoped by
the tree pass that sent it (the record's ``session_id``: each pass has its own cache-bust
marker). The ratio counts the measured requests only (warm-up left out), as
``trees.prefix_hit.theoretical`` does. Nothing of this runs during the run.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentic_bench.trace.conversations import conversation_steps
from agentic_bench.trace.model import Session
from agentic_bench.trace.prefix_lru import LruPrefixCache, capacity_entry

SESSIONS_KEPT = 64  # trees held at once while the requests are walked in time order


@dataclass(frozen=True, slots=True)
class Sent:
    t_sent_ns: int
    session_index: int
    session_id: str
    conversation: str
    request_index: int
    measured: bool


def sent_requests(records: Iterable[Mapping[str, Any]]) -> list[Sent]:
    """The successful LLM requests given as blocks, in the order they were sent."""
    out = []
    for r in records:
        if (r.get("type") != "step" or r.get("kind") != "llm" or r.get("status") != "ok"
                or r.get("prefix_blocks") is None or not isinstance(r.get("session_index"), int)
                or r.get("request_index") is None):
            continue
        out.append(Sent(int(r.get("t_sent_ns") or 0), r["session_index"], str(r.get("session_id")),
                        str(r.get("conversation") or ""), int(r["request_index"]),
                        not r.get("warmup")))
    out.sort(key=lambda s: (s.t_sent_ns, s.session_id, s.conversation, s.request_index))
    return out


class _Trees:
    """Each tree's blocks per request, ``(conversation, index) → hash ids``, for the last
    :data:`SESSIONS_KEPT` trees asked for."""

    def __init__(self, source: Callable[[int], Session]) -> None:
        self.source = source
        self.kept: OrderedDict[int, tuple[int, dict[tuple[str, int], list[int]]]] = OrderedDict()

    def get(self, index: int) -> tuple[int, dict[tuple[str, int], list[int]]]:
        if index in self.kept:
            self.kept.move_to_end(index)
            return self.kept[index]
        session = self.source(index)
        size = session.token_blocks.block_size if session.token_blocks is not None else 64
        blocks = {(cs.key, cs.index): list(cs.step.prompt.hash_ids)
                  for cs in conversation_steps(session) if cs.step.prompt is not None}
        self.kept[index] = (size, blocks)
        while len(self.kept) > SESSIONS_KEPT:
            self.kept.popitem(last=False)
        return size, blocks


def finite_hits(sent: list[Sent], source: Callable[[int], Session],
                capacities: tuple[int, ...]) -> dict[str, Any]:
    """Per capacity (tokens): the measured requests' hit blocks through one shared LRU cache."""
    trees = _Trees(source)
    block_size: int | None = None
    caches: list[LruPrefixCache] = []
    hit = [0] * len(capacities)
    total = 0
    for s in sent:
        size, blocks = trees.get(s.session_index)
        if block_size is None:
            block_size = size
            caches = [LruPrefixCache(c // size) for c in capacities]
        ids = blocks.get((s.conversation, s.request_index))
        if ids is None:
            continue
        keys = [(s.session_id, hid) for hid in ids]
        for i, cache in enumerate(caches):
            got = cache.request(keys)
            if s.measured:
                hit[i] += got
        total += len(keys) if s.measured else 0
    size = block_size or 64
    return {"basis": "hash-id blocks of the requests sent (warm-up included, counted: measured "
            "ones), one LRU cache shared by every lane, in send order",
            "capacities": [capacity_entry(c, size, hit[i], total)
                           for i, c in enumerate(capacities)]}


def run_finite_prefix_hit(records_path: Path, source: Callable[[int], Session],
                          capacities: tuple[int, ...]) -> dict[str, Any] | None:
    """``trees.prefix_hit.finite_capacity`` of a run, or None without capacities or
    requests given as blocks; never raises (a failure is an ``error`` entry)."""
    if not capacities:
        return None
    from agentic_bench.records.stream import RecordStream

    try:
        sent = sent_requests(RecordStream(records_path))
        if not sent:
            return None
        return finite_hits(sent, source, capacities)
    except Exception as exc:  # the run's result must not depend on this figure
        return {"error": f"not computed: {type(exc).__name__}: {exc}"[:300]}


__all__ = ["Sent", "finite_hits", "run_finite_prefix_hit", "sent_requests"]
