"""Figures of a Weka corpus gathered while it is read (one pass, nothing kept per request):
trees, requests, subagents, token sizes, spans, and the theoretical prefix-cache hit of one
pass (one unbounded cache per trace, requests in recorded start order: AIPerf 0.13
``weka_metric_prepass.py``; InferenceX ``compute_cache_stats``)."""

from __future__ import annotations

from typing import Any

from agentic_bench.metrics.percentiles import describe
from agentic_bench.trace.prefix_lru import LruPrefixCache, capacity_entry
from agentic_bench.trace.weka.filter import fits
from agentic_bench.trace.weka.model import WekaRow, WekaSubagent, WekaTrace
from agentic_bench.trace.weka.timeline import bounds_s, subagent_times


def timed_rows(trace: WekaTrace, limit: int | None = None) -> list[WekaRow]:
    """One trace's requests (those that fit ``limit``) in recorded start order."""
    timed: list[tuple[float, int, int, WekaRow]] = []
    for i, entry in enumerate(trace.requests):
        if isinstance(entry, WekaRow):
            timed.append((entry.t, i, 0, entry))
        else:
            starts = subagent_times(entry).starts_s
            timed.extend((s, i, k + 1, r) for k, (s, r) in
                         enumerate(zip(starts, entry.requests, strict=True)))
    return [row for _, _, _, row in sorted(timed, key=lambda x: x[:3])
            if limit is None or fits(row, limit)]


def trace_prefix_hit(trace: WekaTrace, limit: int | None = None) -> tuple[int, int]:
    """(hit blocks, blocks) of one trace's requests (those that fit ``limit``)."""
    seen: set[int] = set()
    hit = total = 0
    for row in timed_rows(trace, limit):
        for hid in row.hash_ids:
            if hid not in seen:
                break
            hit += 1
        total += len(row.hash_ids)
        seen.update(row.hash_ids)
    return hit, total


class CorpusStats:
    """``capacities``: token sizes of finite LRU caches (``--cache-capacity``), each one cache
    shared by the whole corpus, its trees one after another in corpus order (one lane), each
    tree's requests in recorded start order (trace/prefix_lru.py)."""

    def __init__(self, max_context: int | None = None,
                 capacities: tuple[int, ...] = ()) -> None:
        self.max_context = max_context
        self.capacities = capacities
        self.caches: list[LruPrefixCache] = []
        self.block_size: int | None = None
        self.block_sizes: set[int] = set()
        self.trees = 0
        self.kept: list[int] = []  # traces with something left under --max-context
        self.rows = self.subagent_rows = self.subagents = self.dropped_rows = 0
        self.hit = self.blocks = 0
        self.input_tokens: list[int] = []
        self.output_tokens: list[int] = []
        self.spans: list[float] = []
        self.requests_per_tree: list[int] = []
        self.subagents_per_tree: list[int] = []

    def add(self, trace: WekaTrace) -> None:
        limit = self.max_context
        index = self.trees
        self.trees += 1
        kept_top = 0
        n = 0
        for entry in trace.requests:
            rows = [entry] if isinstance(entry, WekaRow) else entry.requests
            for row in rows:
                if limit is not None and not fits(row, limit):
                    self.dropped_rows += 1
                    continue
                n += 1
                kept_top += isinstance(entry, WekaRow)
                self.input_tokens.append(row.input_tokens)
                self.output_tokens.append(row.output_tokens)
                if isinstance(entry, WekaRow):
                    self.rows += 1
                else:
                    self.subagent_rows += 1
        if not kept_top:
            return
        self.kept.append(index)
        subagents = sum(1 for e in trace.requests if isinstance(e, WekaSubagent))
        self.subagents += subagents
        self.subagents_per_tree.append(subagents)
        self.requests_per_tree.append(n)
        first, last = bounds_s(trace)
        self.spans.append(last - first)
        hit, total = trace_prefix_hit(trace, limit)
        self.hit += hit
        self.blocks += total
        if self.capacities:
            self._finite(trace, index)

    def _finite(self, trace: WekaTrace, index: int) -> None:
        if self.block_size is None:
            self.block_size = trace.block_size
            self.caches = [LruPrefixCache(c // trace.block_size) for c in self.capacities]
        self.block_sizes.add(trace.block_size)
        for row in timed_rows(trace, self.max_context):
            blocks = [(index, hid) for hid in row.hash_ids]
            for cache in self.caches:
                cache.request(blocks)

    def finite(self) -> dict[str, Any]:
        """The finite-capacity figures, one per capacity."""
        size = self.block_size or 64
        return {"basis": "hash-id blocks, one LRU cache of each capacity shared by the corpus "
                f"(trees in corpus order, one lane), capacity // block_size ({size}) blocks",
                **({"note": f"block sizes {sorted(self.block_sizes)}: capacities counted in "
                    f"blocks of {size}"} if len(self.block_sizes) > 1 else {}),
                "capacities": [capacity_entry(c, size, cache.hit, cache.total)
                               for c, cache in zip(self.capacities, self.caches, strict=False)]
                or [capacity_entry(c, size, 0, 0) for c in self.capacities]}

    def summary(self) -> dict[str, Any]:
        return {
            "trees": self.trees, "trees_kept": len(self.kept),
            "requests": self.rows + self.subagent_rows, "top_level_requests": self.rows,
            "subagent_requests": self.subagent_rows, "subagents": self.subagents,
            **({"max_context": self.max_context, "dropped_requests": self.dropped_rows}
               if self.max_context is not None else {}),
            "input_tokens": describe(self.input_tokens),
            "output_tokens": describe(self.output_tokens),
            "requests_per_tree": describe(self.requests_per_tree),
            "subagents_per_tree": describe(self.subagents_per_tree),
            "span_s": describe(self.spans),
            "theoretical_prefix_hit": {
                "ratio": self.hit / self.blocks if self.blocks else None,
                "hit_blocks": self.hit, "blocks": self.blocks,
                "basis": "hash-id blocks, one unbounded cache per trace, recorded order"},
            **({"finite_capacity_prefix_hit": self.finite()} if self.capacities else {}),
        }


def _row(name: str, d: dict[str, Any]) -> str:
    def f(v: Any) -> str:
        if v is None:
            return "-"
        return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"

    cols = "  ".join(f"{k} {f(d.get(k))}" for k in ("mean", "p50", "p90", "p99", "max"))
    return f"  {name:<20} n {d['count']:<8,} {cols}"


def render_corpus_stats(stats: dict[str, Any], title: str) -> str:
    hit = stats["theoretical_prefix_hit"]
    ratio = "-" if hit["ratio"] is None else f"{hit['ratio']:.1%}"
    lines = [
        title,
        f"trees {stats['trees']:,}, requests {stats['requests']:,} "
        f"({stats['top_level_requests']:,} top-level, {stats['subagent_requests']:,} in "
        f"{stats['subagents']:,} subagents)",
        _row("input tokens", stats["input_tokens"]),
        _row("output tokens", stats["output_tokens"]),
        _row("requests/tree", stats["requests_per_tree"]),
        _row("subagents/tree", stats["subagents_per_tree"]),
        _row("span s", stats["span_s"]),
        f"  theoretical prefix-cache hit {ratio} of {hit['blocks']:,} blocks "
        "(one unbounded cache per trace, recorded order)",
    ]
    for entry in (stats.get("finite_capacity_prefix_hit") or {}).get("capacities") or []:
        value = "-" if entry["ratio"] is None else f"{entry['ratio']:.1%}"
        lines.append(f"  finite cache {entry['capacity_tokens']:,} tokens "
                     f"({entry['capacity_blocks']:,} blocks, LRU, shared, one lane): "
                     f"prefix-cache hit {value}")
    return "\n".join(lines) + "\n"


__all__ = ["CorpusStats", "render_corpus_stats", "timed_rows", "trace_prefix_hit"]
