"""Known Prometheus families of serving stacks, mapped to a few named server-side metrics.

Each :class:`Known` metric lists, per engine, the sample names that carry it and how the
samples of several label sets (GPUs, models, ranks) combine. Sources (documentation examples the
tests transcribe): vLLM "Production Metrics" (docs.vllm.ai, usage/metrics; v1 names and the v0
``gpu_cache_usage_perc``), SGLang "Production Metrics" (docs.sglang.io, references/
production_metrics), llama.cpp's ``tools/server`` ``/metrics`` (llama-cpp-python 0.3.36's
vendored tree, ``server-context.cpp``), TGI's ``tgi_*`` gauges, NVIDIA Dynamo's frontend
(``dynamo_frontend_*``) and NVIDIA DCGM exporter's default counters (``etc/default-counters.csv``).
Speculative decoding and KV-cache tiers (docs/server-metrics.md):
:mod:`.families_speculation_tiers`.
Families nobody maps are kept raw. A metric with ``split`` keeps one value per value of that
label (``name[value]``, e.g. ``spec_accepted_per_position[0]``) instead of combining them.
"""

from __future__ import annotations

from agentic_bench.server_metrics.families_speculation_tiers import KV_TIERS, SPECULATION
from agentic_bench.server_metrics.known import Combine, Known, base_name, split_key

KNOWN: tuple[Known, ...] = (
    Known("kv_cache_usage", "ratio", "gauge",
          ("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "sglang:token_usage",
           "llamacpp:kv_cache_usage_ratio"), "mean",
          description="KV-cache blocks or tokens in use, 0-1"),
    Known("requests_running", "requests", "gauge",
          ("vllm:num_requests_running", "sglang:num_running_reqs",
           "llamacpp:requests_processing", "tgi_batch_current_size",
           "dynamo_frontend_inflight_requests"),
          description="requests the server is working on"),
    Known("requests_waiting", "requests", "gauge",
          ("vllm:num_requests_waiting", "sglang:num_queue_reqs", "llamacpp:requests_deferred",
           "tgi_queue_size", "dynamo_frontend_queued_requests"),
          description="requests queued, not yet started"),
    Known("preemptions", "requests", "counter", ("vllm:num_preemptions_total",),
          description="requests preempted (KV cache evicted, recomputed later)"),
    Known("prefix_cache_queries", "tokens", "counter",
          ("vllm:prefix_cache_queries_total",),
          description="prompt tokens looked up in the prefix cache"),
    Known("prefix_cache_hits", "tokens", "counter",
          ("vllm:prefix_cache_hits_total", "llamacpp:prompt_tokens_cached_total",
           "sglang:cached_tokens_total"),
          description="prompt tokens served from the prefix cache"),
    Known("prompt_tokens_computed", "tokens", "counter",
          ("llamacpp:prompt_tokens_total",),
          description="prompt tokens computed (llama.cpp: excluding cached ones)"),
    Known("prefix_cache_hit_rate", "ratio", "gauge", ("sglang:cache_hit_rate",), "mean",
          description="the server's own hit-rate gauge"),
    Known("gpu_utilization", "%", "gauge", ("DCGM_FI_DEV_GPU_UTIL",), "mean",
          description="GPU utilisation (DCGM), mean over GPUs"),
    Known("gpu_power", "W", "gauge", ("DCGM_FI_DEV_POWER_USAGE",),
          description="GPU power draw (DCGM), summed over GPUs"),
    Known("gpu_energy", "J", "counter", ("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",),
          scale=1e-3, description="GPU energy since boot (DCGM, mJ), summed over GPUs"),
    Known("gpu_memory_used", "MiB", "gauge", ("DCGM_FI_DEV_FB_USED",),
          description="GPU frame buffer in use (DCGM), summed over GPUs"),
    # llama-server's /slots (JSON, not Prometheus: parse.parse_slots)
    Known("slots_busy", "slots", "gauge", (), description="llama-server slots processing"),
    Known("slot_context_used", "ratio", "gauge", (), "max",
          description="the fullest busy slot's context: (prompt + generated tokens) / n_ctx"),
    *SPECULATION, *KV_TIERS,
)
BY_SAMPLE: dict[str, Known] = {s: k for k in KNOWN for s in k.samples}
BY_NAME: dict[str, Known] = {k.name: k for k in KNOWN}
ENGINES = ("vllm:", "sglang:", "llamacpp:", "tgi_", "dynamo_", "DCGM_FI_", "trtllm_", "lmcache:")



def engine_of(sample: str) -> str | None:
    """The stack a sample name belongs to (its prefix), or ``None``."""
    return next((e.rstrip(":_") for e in ENGINES if sample.startswith(e)), None)


__all__ = ["BY_NAME", "BY_SAMPLE", "ENGINES", "KNOWN", "Combine", "Known", "base_name",
           "engine_of", "split_key"]
