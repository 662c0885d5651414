"""Exporter text of each known stack → our named metrics (#34 item 2).

The samples follow the exposition shown in each project's documentation (names, types and
labels; values are ours):
- vLLM: docs.vllm.ai "Production Metrics" (usage/metrics; v1: ``vllm:kv_cache_usage_perc``,
  ``vllm:prefix_cache_queries``/``_hits`` counters, ``vllm:num_preemptions``; v0:
  ``vllm:gpu_cache_usage_perc``);
- SGLang: docs.sglang.io "Production Metrics" (its example output: ``sglang:token_usage``,
  ``sglang:cache_hit_rate``, ``sglang:num_running_reqs``, ``sglang:num_queue_reqs``);
- llama.cpp: ``llama-server --metrics`` as built from llama-cpp-python 0.3.36's vendored tree
  (``llamacpp:prompt_tokens_total``, ``llamacpp:prompt_tokens_cached_total``, measured here);
- NVIDIA DCGM exporter: ``etc/default-counters.csv`` (``DCGM_FI_DEV_POWER_USAGE`` W,
  ``DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION`` mJ counter, ``DCGM_FI_DEV_GPU_UTIL`` %).
"""

from __future__ import annotations

import pytest

from agentic_bench.server_metrics import parse_scrape

VLLM = """# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="m"} 7.0
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="m"} 2.0
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.42
# TYPE vllm:gpu_cache_usage_perc gauge
vllm:gpu_cache_usage_perc{model_name="m"} 0.99
# TYPE vllm:prefix_cache_queries counter
vllm:prefix_cache_queries_total{engine="0",model_name="m"} 1000.0
# TYPE vllm:prefix_cache_hits counter
vllm:prefix_cache_hits_total{engine="0",model_name="m"} 600.0
# TYPE vllm:num_preemptions counter
vllm:num_preemptions_total{engine="0",model_name="m"} 3.0
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{le="0.1",model_name="m"} 5.0
vllm:time_to_first_token_seconds_bucket{le="+Inf",model_name="m"} 9.0
vllm:time_to_first_token_seconds_count{model_name="m"} 9.0
vllm:time_to_first_token_seconds_sum{model_name="m"} 1.5
"""
SGLANG = """# HELP sglang:token_usage The token usage
# TYPE sglang:token_usage gauge
sglang:token_usage{model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.28
# TYPE sglang:cache_hit_rate gauge
sglang:cache_hit_rate{model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.0075
# TYPE sglang:num_running_reqs gauge
sglang:num_running_reqs{model_name="meta-llama/Llama-3.1-8B-Instruct"} 12.0
# TYPE sglang:num_queue_reqs gauge
sglang:num_queue_reqs{model_name="meta-llama/Llama-3.1-8B-Instruct"} 4.0
"""
LLAMACPP = """# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed
# TYPE llamacpp:prompt_tokens_total counter
llamacpp:prompt_tokens_total 46
# TYPE llamacpp:prompt_tokens_cached_total counter
llamacpp:prompt_tokens_cached_total 55
# TYPE llamacpp:requests_processing gauge
llamacpp:requests_processing 1
# TYPE llamacpp:requests_deferred gauge
llamacpp:requests_deferred 0
"""
DCGM = """# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).
# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-a",Hostname="h"} 300.5
DCGM_FI_DEV_POWER_USAGE{gpu="1",UUID="GPU-b",Hostname="h"} 199.5
# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter
DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="0",UUID="GPU-a"} 5000000
DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="1",UUID="GPU-b"} 3000000
# TYPE DCGM_FI_DEV_GPU_UTIL gauge
DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a"} 90
DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-b"} 70
"""


def test_vllm() -> None:
    p = parse_scrape(VLLM)
    assert p.values["requests_running"] == 7 and p.values["requests_waiting"] == 2
    assert p.values["kv_cache_usage"] == 0.42  # v1 first; the v0 gauge is not mixed in
    assert (p.values["prefix_cache_queries"], p.values["prefix_cache_hits"]) == (1000, 600)
    assert p.values["preemptions"] == 3 and p.engines == {"vllm"}
    assert 'vllm:time_to_first_token_seconds_bucket{le="+Inf",model_name="m"}' in p.raw
    assert "vllm:gpu_cache_usage_perc" not in str(p.raw)  # mapped, not raw


def test_sglang_llamacpp_dcgm() -> None:
    s = parse_scrape(SGLANG)
    assert (s.values["kv_cache_usage"], s.values["prefix_cache_hit_rate"]) == (0.28, 0.0075)
    assert (s.values["requests_running"], s.values["requests_waiting"]) == (12, 4)
    ll = parse_scrape(LLAMACPP)
    assert (ll.values["prompt_tokens_computed"], ll.values["prefix_cache_hits"]) == (46, 55)
    assert ll.values["requests_running"] == 1 and ll.engines == {"llamacpp"}
    d = parse_scrape(DCGM)
    assert d.values["gpu_power"] == 500.0  # summed over GPUs
    assert d.values["gpu_energy"] == 8000.0  # mJ → J, summed
    assert d.values["gpu_utilization"] == 80.0  # mean over GPUs
    assert d.engines == {"DCGM_FI"}


def test_unknown_families_are_kept_raw_and_junk_is_refused() -> None:
    p = parse_scrape('# TYPE my_queue gauge\nmy_queue{shard="a"} 3\n')
    assert p.values == {} and p.raw == {'my_queue{shard="a"}': 3.0}
    with pytest.raises(ValueError):
        parse_scrape("<html>not metrics</html>\n")


def test_llama_server_slots() -> None:
    """llama-server's /slots as this build serves it (measured: a busy slot carries
    n_prompt_tokens and next_token[].n_decoded; an idle one only id, n_ctx, is_processing)."""
    slots = ('[{"id": 0, "n_ctx": 8192, "speculative": false, "is_processing": false},'
             ' {"id": 1, "n_ctx": 8192, "is_processing": true, "id_task": 0,'
             ' "n_prompt_tokens": 359, "n_prompt_tokens_processed": 237,'
             ' "next_token": [{"has_next_token": true, "n_remain": 78, "n_decoded": 122}]}]')
    p = parse_scrape(slots)
    assert p.values == {"slots_busy": 1.0, "slot_context_used": (359 + 122) / 8192}
    assert p.engines == {"llamacpp"}
    idle = parse_scrape('[{"id": 0, "n_ctx": 8192, "is_processing": false}]')
    assert idle.values == {"slots_busy": 0.0, "slot_context_used": 0.0}
    with pytest.raises(ValueError):
        parse_scrape('[1, 2]')
