"""After the run: ``server_metrics.jsonl`` → time series and the summary's ``server_metrics``.

Per source: scrapes and failures (with the first reasons), the engines recognised, each named
metric's series (time since the run's start, value) with first / last / min / max / mean for a
gauge and the increase over the run for a counter (a counter that went down — a server
restart — counts from its new value), the observed prefix-cache hit rate over the run where the
server exports the counters for it (vLLM: hits / queries; llama.cpp: cached / (cached +
computed) prompt tokens; SGLang: its own gauge, last value), speculative decoding and the
KV-cache tiers where the server reports them (:mod:`.speculation`), and how many raw families
nobody maps were kept.
"""

from __future__ import annotations

import itertools
import json
import math
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from statistics import fmean
from typing import Any

from agentic_bench.server_metrics.families import BY_NAME, base_name
from agentic_bench.server_metrics.parse import parse_scrape
from agentic_bench.server_metrics.scraper import SCRAPES_FILE
from agentic_bench.server_metrics.speculation import speculation_block, tiers_block
from agentic_bench.units import NS_PER_S

MAX_POINTS = 600  # per metric and source in the summary (for the report's plots)
# a scraped value beyond this (or NaN, ±Inf) is no reading: it is counted as a bad value of its
# metric, shown in the summary, and kept out of the series (sums of such values overflow)
MAX_ABS_VALUE = 1e100


@dataclass
class SourceSeries:
    source: str
    scrapes: int = 0
    failures: int = 0
    errors: list[str] = field(default_factory=list)
    engines: set[str] = field(default_factory=set)
    series: dict[str, list[tuple[float, float]]] = field(
        default_factory=lambda: defaultdict(list))
    raw_families: set[str] = field(default_factory=set)
    bad_values: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> count, first


def read_scrapes(path: Path) -> Iterator[dict[str, Any]]:
    """Scrape lines of ``path``, streamed; a torn last line (an interrupted run) is skipped."""
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            try:
                yield json.loads(line)
            except ValueError:
                continue


def collect(path: Path) -> dict[str, SourceSeries]:
    sources: dict[str, SourceSeries] = {}
    for scrape in read_scrapes(path):
        src = sources.setdefault(scrape["source"], SourceSeries(scrape["source"]))
        src.scrapes += 1
        t_s = scrape.get("t_ns", 0) / NS_PER_S
        if not scrape.get("ok"):
            src.failures += 1
            if len(src.errors) < 3:
                src.errors.append(str(scrape.get("error")))
            continue
        try:
            parsed = parse_scrape(scrape.get("text") or "")
        except ValueError as exc:
            src.failures += 1
            if len(src.errors) < 3:
                src.errors.append(f"not Prometheus text: {exc}"[:200])
            continue
        src.engines |= parsed.engines
        src.raw_families |= {k.split("{", 1)[0] for k in parsed.raw}
        for name, value in parsed.values.items():
            if math.isfinite(value) and abs(value) <= MAX_ABS_VALUE:
                src.series[name].append((t_s, value))
                continue
            bad = src.bad_values.setdefault(name, {"count": 0, "first": repr(value),
                                                   "first_t_s": round(t_s, 3)})
            bad["count"] += 1
    return sources


def increase(points: list[tuple[float, float]]) -> float:
    """A counter's increase over the points; a drop (the server restarted) restarts from 0."""
    total = 0.0
    for (_, before), (_, after) in itertools.pairwise(points):
        total += after - before if after >= before else after
    return total


def thin(points: list[tuple[float, float]], limit: int = MAX_POINTS) -> list[list[float]]:
    """At most ``limit`` points, evenly strided, the last one always kept."""
    stride = max(1, -(-len(points) // limit))
    kept = points[::stride]
    if kept[-1] != points[-1]:
        kept.append(points[-1])
    return [[round(t, 3), v] for t, v in kept]


def _stats(name: str, points: list[tuple[float, float]]) -> dict[str, Any]:
    known = BY_NAME[base_name(name)]
    values = [v for _, v in points]
    out: dict[str, Any] = {"unit": known.unit, "kind": known.kind, "points": len(points),
                           "first": values[0], "last": values[-1], "series": thin(points)}
    if known.kind == "counter":
        out["increase"] = increase(points)
    else:
        out.update(min=min(values), max=max(values), mean=fmean(values))
    return out


def hit_rate(stats: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """The prefix-cache hit rate the server itself saw over the run."""
    hits = (stats.get("prefix_cache_hits") or {}).get("increase")
    if hits is not None and "prefix_cache_queries" in stats:
        queries = stats["prefix_cache_queries"]["increase"]
        return {"value": hits / queries if queries else None,
                "from": "prefix_cache_hits / prefix_cache_queries"}
    if hits is not None and "prompt_tokens_computed" in stats:
        total = hits + stats["prompt_tokens_computed"]["increase"]
        return {"value": hits / total if total else None,
                "from": "cached / (cached + computed) prompt tokens"}
    if "prefix_cache_hit_rate" in stats:
        return {"value": stats["prefix_cache_hit_rate"]["last"],
                "from": "the server's hit-rate gauge (last value)"}
    return None


def digest(out_dir: Path) -> dict[str, Any] | None:
    """The summary's ``server_metrics`` block, or ``None`` when nothing was scraped."""
    path = Path(out_dir) / SCRAPES_FILE
    if not path.is_file():
        return None
    blocks: dict[str, Any] = {}
    for source, src in collect(path).items():
        stats = {name: _stats(name, pts) for name, pts in sorted(src.series.items()) if pts}
        block: dict[str, Any] = {
            "scrapes": src.scrapes, "failures": src.failures, "engines": sorted(src.engines),
            "metrics": stats, "raw_families": len(src.raw_families)}
        if src.errors:
            block["errors"] = src.errors
        if src.bad_values:
            block["bad_values"] = {
                name: {**bad, "reason": f"not a finite value within ±{MAX_ABS_VALUE:g}: "
                       "left out of the series"} for name, bad in sorted(src.bad_values.items())}
        if (rate := hit_rate(stats)) is not None:
            block["prefix_cache_hit_rate"] = rate
        if (spec := speculation_block(stats, src.series)) is not None:
            block["speculation"] = spec
        if (tiers := tiers_block(stats)) is not None:
            block["kv_tiers"] = tiers
        blocks[source] = block
    return {"file": SCRAPES_FILE, "sources": blocks}


def series(out_dir: Path) -> dict[str, dict[str, list[tuple[float, float]]]]:
    """Per source, per named metric: (seconds since the run's start, value) — for plots."""
    path = Path(out_dir) / SCRAPES_FILE
    if not path.is_file():
        return {}
    return {s: dict(src.series) for s, src in collect(path).items()}
