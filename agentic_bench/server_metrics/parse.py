"""One scrape's Prometheus text → our named metrics and the raw samples nobody maps.

Parsing is ``prometheus_client``'s exposition parser (a maintained implementation, not ours).
It runs after the run, never on the measured path: during the run the scraper only stores text.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from statistics import fmean

from agentic_bench.server_metrics.families import BY_NAME, BY_SAMPLE, Known, base_name, split_key


@dataclass(slots=True)
class ParsedScrape:
    """One scrape read: our named values, the raw samples and the serving engines recognised."""

    # our name (``name[label value]`` for a split metric) → value (in its unit)
    values: dict[str, float] = field(default_factory=dict)
    raw: dict[str, float] = field(default_factory=dict)  # 'name{labels}' → value, unmapped
    engines: set[str] = field(default_factory=set)


def _key(name: str, labels: dict[str, str]) -> str:
    if not labels:
        return name
    inner = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    return f"{name}{{{inner}}}"


def _combine(known: Known, values: list[float]) -> float:
    if known.combine == "mean":
        return fmean(values)
    if known.combine == "max":
        return max(values)
    return sum(values)


def parse_slots(text: str) -> ParsedScrape:
    """llama-server's ``/slots`` (a JSON list of slots): how many are busy, and how full the
    fullest busy slot's context is — its prompt tokens plus the tokens decoded so far over its
    ``n_ctx``."""
    import json

    slots = json.loads(text)
    if not isinstance(slots, list) or not all(isinstance(s, dict) for s in slots):
        raise ValueError("/slots: expected a JSON list of slot objects")
    busy = [s for s in slots if s.get("is_processing")]
    used = [0.0]
    for slot in busy:
        decoded = sum(int(n.get("n_decoded") or 0) for n in slot.get("next_token") or []
                      if isinstance(n, dict))
        if slot.get("n_ctx"):
            used.append((int(slot.get("n_prompt_tokens") or 0) + decoded) / int(slot["n_ctx"]))
    return ParsedScrape(values={"slots_busy": float(len(busy)), "slot_context_used": max(used)},
                        engines={"llamacpp"})


def parse_scrape(text: str) -> ParsedScrape:
    """Our metrics of one scrape (Prometheus text, or llama-server's ``/slots`` JSON); raises
    ``ValueError`` on anything else."""
    from prometheus_client.parser import text_string_to_metric_families

    from agentic_bench.server_metrics.families import engine_of

    if text.lstrip().startswith("["):
        return parse_slots(text)
    out = ParsedScrape()
    found: dict[str, list[float]] = defaultdict(list)
    chosen: dict[str, str] = {}  # our name → the first sample name seen for it
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            engine = engine_of(sample.name)
            if engine:
                out.engines.add(engine)
            # the parser names every counter sample ..._total, also where the exporter does
            # not (DCGM's DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION)
            known = BY_SAMPLE.get(sample.name) or BY_SAMPLE.get(sample.name.removesuffix("_total"))
            if known is None:
                out.raw[_key(sample.name, dict(sample.labels))] = float(sample.value)
                continue
            if chosen.setdefault(known.name, sample.name) != sample.name:
                continue  # two generations of one metric (vLLM v0 and v1): keep the first
            key = (split_key(known.name, str(sample.labels.get(known.split, "")))
                   if known.split else known.name)
            found[key].append(float(sample.value) * known.scale)
    for key, values in found.items():
        out.values[key] = _combine(BY_NAME[base_name(key)], values)
    return out
