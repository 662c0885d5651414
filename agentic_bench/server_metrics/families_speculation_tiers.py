"""The families of speculative decoding and of KV-cache tiers beyond the GPU, given our names.

Where each name comes from (read in the servers' source; the tests' fixtures cite the same):

Speculative decoding
  * vLLM v1 ``vllm/v1/spec_decode/metrics.py`` ``SpecDecodingProm.__init__`` (commit 016a8587):
    counters ``vllm:spec_decode_num_drafts``, ``vllm:spec_decode_num_draft_tokens``,
    ``vllm:spec_decode_num_accepted_tokens`` and ``vllm:spec_decode_num_accepted_tokens_per_pos``
    (label ``position``), created only when a speculative config is set. Its docstring defines
    acceptance rate = accepted / draft tokens, mean acceptance length = 1 + accepted / drafts
    (the bonus token counted), per-position rate = accepted at the position / drafts.
  * SGLang ``python/sglang/srt/metrics/collector.py`` ``SchedulerMetricsCollector`` (commit
    00ae9c15): gauges ``sglang:spec_accept_length`` and ``sglang:spec_accept_rate``, set every
    log interval (0 when speculation is off — the gauges are always exported).
  * TensorRT-LLM ``tensorrt_llm/metrics/collector.py`` ``MetricsCollector`` (commit 050f80de;
    served by ``trtllm-serve`` next to its JSON ``/metrics`` of iteration stats): counters
    ``trtllm_spec_decode_num_draft_tokens_total``, ``trtllm_spec_decode_num_accepted_tokens_total``
    and the gauge ``trtllm_spec_decode_acceptance_length``. Older releases serve only the JSON
    iteration statistics (``docs/source/commands/trtllm-serve.rst``, "Metrics Endpoint"): no
    Prometheus family, nothing to read here.

KV-cache tiers (per-tier hits; the GPU tier is ``prefix_cache_hits``)
  * vLLM ``vllm/v1/metrics/loggers.py`` ``PrometheusStatLogger``: ``vllm:external_prefix_cache_
    queries`` and ``vllm:external_prefix_cache_hits`` (tokens, counters: what a KV connector —
    LMCache, the offloading connector — found for the prompt); ``vllm/distributed/kv_transfer/
    kv_connector/v1/offloading_connector.py``: ``vllm:kv_offload_total_bytes`` (label
    ``transfer_type``: ``GPU_to_CPU``, ``CPU_to_GPU``).
  * LMCache ``lmcache/observability.py`` ``PrometheusLogger`` (commit dd022cce):
    ``lmcache:num_requested_tokens``, ``lmcache:num_hit_tokens`` (counters).
  * SGLang HiCache, ``collector.py`` ``RadixCacheMetricsCollector`` and
    ``StorageMetricsCollector``: ``sglang:evicted_tokens_total`` (GPU → host),
    ``sglang:load_back_tokens_total`` (host → GPU: hits of the host tier),
    ``sglang:prefetched_tokens_total`` (read from the storage tier),
    ``sglang:backuped_tokens_total`` (written to it).
  * TensorRT-LLM ``collector.py``: ``trtllm_kv_cache_onboard_bytes_total`` (host → GPU),
    ``trtllm_kv_cache_offload_bytes_total`` (GPU → host), ``trtllm_kv_cache_host_utilization``.
"""

from __future__ import annotations

from agentic_bench.server_metrics.known import Known

SPECULATION: tuple[Known, ...] = (
    Known("spec_drafts", "drafts", "counter", ("vllm:spec_decode_num_drafts_total",),
          description="speculative drafts verified (vLLM)"),
    Known("spec_draft_tokens", "tokens", "counter",
          ("vllm:spec_decode_num_draft_tokens_total",
           "trtllm_spec_decode_num_draft_tokens_total"),
          description="draft tokens proposed"),
    Known("spec_accepted_tokens", "tokens", "counter",
          ("vllm:spec_decode_num_accepted_tokens_total",
           "trtllm_spec_decode_num_accepted_tokens_total"),
          description="draft tokens the target model accepted"),
    Known("spec_accepted_per_position", "tokens", "counter",
          ("vllm:spec_decode_num_accepted_tokens_per_pos_total",), split="position",
          description="accepted draft tokens at each draft position (vLLM)"),
    Known("spec_accept_length", "tokens", "gauge",
          ("sglang:spec_accept_length", "trtllm_spec_decode_acceptance_length"), "mean",
          description="the server's mean acceptance length (bonus token included)"),
    Known("spec_accept_rate", "ratio", "gauge", ("sglang:spec_accept_rate",), "mean",
          description="the server's acceptance rate: accepted / draft tokens"),
)

KV_TIERS: tuple[Known, ...] = (
    Known("external_prefix_cache_queries", "tokens", "counter",
          ("vllm:external_prefix_cache_queries_total",),
          description="prompt tokens looked up through the KV connector (vLLM)"),
    Known("external_prefix_cache_hits", "tokens", "counter",
          ("vllm:external_prefix_cache_hits_total",),
          description="prompt tokens the KV connector (offload, LMCache) supplied (vLLM)"),
    Known("lmcache_requested_tokens", "tokens", "counter",
          ("lmcache:num_requested_tokens_total",),
          description="tokens requested from LMCache"),
    Known("lmcache_hit_tokens", "tokens", "counter", ("lmcache:num_hit_tokens_total",),
          description="tokens LMCache found"),
    Known("host_tier_loaded_tokens", "tokens", "counter",
          ("sglang:load_back_tokens_total",),
          description="tokens loaded back from the host tier to the GPU (SGLang HiCache)"),
    Known("host_tier_evicted_tokens", "tokens", "counter", ("sglang:evicted_tokens_total",),
          description="tokens evicted from the GPU to the host tier (SGLang HiCache)"),
    Known("storage_tier_prefetched_tokens", "tokens", "counter",
          ("sglang:prefetched_tokens_total",),
          description="tokens prefetched from the storage tier (SGLang HiCache)"),
    Known("storage_tier_written_tokens", "tokens", "counter",
          ("sglang:backuped_tokens_total",),
          description="tokens written to the storage tier (SGLang HiCache)"),
    Known("kv_offload_bytes", "bytes", "counter", ("vllm:kv_offload_total_bytes_total",),
          split="transfer_type",
          description="bytes the offloading connector moved, per direction (vLLM)"),
    Known("kv_onboard_bytes", "bytes", "counter", ("trtllm_kv_cache_onboard_bytes_total",),
          description="KV bytes moved host → GPU (TensorRT-LLM)"),
    Known("kv_offloaded_bytes", "bytes", "counter",
          ("trtllm_kv_cache_offload_bytes_total",),
          description="KV bytes moved GPU → host (TensorRT-LLM)"),
    Known("host_tier_usage", "ratio", "gauge", ("trtllm_kv_cache_host_utilization",), "mean",
          description="host KV pool in use, 0-1 (TensorRT-LLM)"),
)

# per tier: (tier, hits metric, queries metric or None) — the summary's ``kv_tiers``
TIERS: tuple[tuple[str, str, str | None], ...] = (
    ("gpu", "prefix_cache_hits", "prefix_cache_queries"),
    ("connector", "external_prefix_cache_hits", "external_prefix_cache_queries"),
    ("lmcache", "lmcache_hit_tokens", "lmcache_requested_tokens"),
    ("host", "host_tier_loaded_tokens", None),
    ("storage", "storage_tier_prefetched_tokens", None),
)

__all__ = ["KV_TIERS", "SPECULATION", "TIERS"]
