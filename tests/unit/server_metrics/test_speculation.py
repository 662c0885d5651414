"""Speculative decoding and KV-cache tiers: exporter text → our names → the summary (#46 items
4 and 5).

The exposition is written from each server's source (names, types, labels; values are ours):

- vLLM v1 ``vllm/v1/spec_decode/metrics.py`` (commit 016a8587) ``SpecDecodingProm``: counters
  ``vllm:spec_decode_num_drafts``, ``..._num_draft_tokens``, ``..._num_accepted_tokens``,
  ``..._num_accepted_tokens_per_pos`` (label ``position``), served with ``_total``;
  ``vllm/v1/metrics/loggers.py``: ``vllm:external_prefix_cache_queries``/``_hits``;
  ``vllm/distributed/kv_transfer/kv_connector/v1/offloading_connector.py``:
  ``vllm:kv_offload_total_bytes`` (label ``transfer_type``);
- SGLang ``python/sglang/srt/metrics/collector.py`` (commit 00ae9c15): gauges
  ``sglang:spec_accept_length``, ``sglang:spec_accept_rate``; counters
  ``sglang:load_back_tokens_total``, ``sglang:evicted_tokens_total``,
  ``sglang:prefetched_tokens_total``, ``sglang:backuped_tokens_total`` (HiCache);
- TensorRT-LLM ``tensorrt_llm/metrics/collector.py`` (commit 050f80de) ``MetricsCollector``:
  ``trtllm_spec_decode_num_draft_tokens_total``, ``trtllm_spec_decode_num_accepted_tokens_total``,
  ``trtllm_spec_decode_acceptance_length``;
- LMCache ``lmcache/observability.py`` (commit dd022cce): ``lmcache:num_requested_tokens``,
  ``lmcache:num_hit_tokens``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentic_bench.server_metrics import SCRAPES_FILE, digest, parse_scrape
from agentic_bench.server_metrics.speculation import ratio_series, speculation_block

LABELS = 'engine="0",model_name="m"'


def vllm_text(drafts: int, draft_tokens: int, accepted: int, per_pos: tuple[int, ...],
              ext_q: int = 0, ext_h: int = 0) -> str:
    pos = "\n".join(f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{{LABELS},'
                    f'position="{i}"}} {v}.0' for i, v in enumerate(per_pos))
    return f"""# HELP vllm:spec_decode_num_drafts Number of spec decoding drafts.
# TYPE vllm:spec_decode_num_drafts counter
vllm:spec_decode_num_drafts_total{{{LABELS}}} {drafts}.0
# TYPE vllm:spec_decode_num_draft_tokens counter
vllm:spec_decode_num_draft_tokens_total{{{LABELS}}} {draft_tokens}.0
# TYPE vllm:spec_decode_num_accepted_tokens counter
vllm:spec_decode_num_accepted_tokens_total{{{LABELS}}} {accepted}.0
# HELP vllm:spec_decode_num_accepted_tokens_per_pos Accepted tokens per draft position.
# TYPE vllm:spec_decode_num_accepted_tokens_per_pos counter
{pos}
# TYPE vllm:prefix_cache_queries counter
vllm:prefix_cache_queries_total{{{LABELS}}} 1000.0
# TYPE vllm:prefix_cache_hits counter
vllm:prefix_cache_hits_total{{{LABELS}}} 500.0
# TYPE vllm:external_prefix_cache_queries counter
vllm:external_prefix_cache_queries_total{{{LABELS}}} {ext_q}.0
# TYPE vllm:external_prefix_cache_hits counter
vllm:external_prefix_cache_hits_total{{{LABELS}}} {ext_h}.0
# TYPE vllm:kv_offload_total_bytes counter
vllm:kv_offload_total_bytes_total{{{LABELS},transfer_type="GPU_to_CPU"}} 4096.0
vllm:kv_offload_total_bytes_total{{{LABELS},transfer_type="CPU_to_GPU"}} 1024.0
"""


def sglang_text(length: float, rate: float, load_back: int = 0) -> str:
    m = 'model_name="m",tp_rank="0"'
    return f"""# HELP sglang:spec_accept_length The average acceptance length.
# TYPE sglang:spec_accept_length gauge
sglang:spec_accept_length{{{m}}} {length}
# TYPE sglang:spec_accept_rate gauge
sglang:spec_accept_rate{{{m}}} {rate}
# TYPE sglang:load_back_tokens counter
sglang:load_back_tokens_total{{{m}}} {load_back}.0
# TYPE sglang:evicted_tokens counter
sglang:evicted_tokens_total{{{m}}} 900.0
# TYPE sglang:prefetched_tokens counter
sglang:prefetched_tokens_total{{{m}}} 0.0
"""


TRTLLM = """# TYPE trtllm_spec_decode_num_draft_tokens counter
trtllm_spec_decode_num_draft_tokens_total{model_name="m",engine_type="trtllm"} 300.0
# TYPE trtllm_spec_decode_num_accepted_tokens counter
trtllm_spec_decode_num_accepted_tokens_total{model_name="m",engine_type="trtllm"} 210.0
# TYPE trtllm_spec_decode_acceptance_length gauge
trtllm_spec_decode_acceptance_length{model_name="m",engine_type="trtllm"} 2.4
"""

LMCACHE = """# TYPE lmcache:num_requested_tokens counter
lmcache:num_requested_tokens_total{model_name="m",worker_id="0"} 2000.0
# TYPE lmcache:num_hit_tokens counter
lmcache:num_hit_tokens_total{model_name="m",worker_id="0"} 1500.0
"""


def test_vllm_families_and_the_position_split() -> None:
    got = parse_scrape(vllm_text(10, 30, 18, (9, 6, 3), 200, 120))
    assert got.values["spec_drafts"] == 10 and got.values["spec_draft_tokens"] == 30
    assert got.values["spec_accepted_tokens"] == 18
    # one value per position, not their sum
    assert [got.values[f"spec_accepted_per_position[{i}]"] for i in range(3)] == [9, 6, 3]
    assert "spec_accepted_per_position" not in got.values
    assert (got.values["external_prefix_cache_queries"],
            got.values["external_prefix_cache_hits"]) == (200, 120)
    assert (got.values["kv_offload_bytes[GPU_to_CPU]"],
            got.values["kv_offload_bytes[CPU_to_GPU]"]) == (4096, 1024)
    assert not any(k.startswith("vllm:spec") for k in got.raw)


def test_sglang_trtllm_lmcache_families() -> None:
    sg = parse_scrape(sglang_text(3.2, 0.55, 700))
    assert (sg.values["spec_accept_length"], sg.values["spec_accept_rate"]) == (3.2, 0.55)
    assert (sg.values["host_tier_loaded_tokens"], sg.values["host_tier_evicted_tokens"]) == \
        (700, 900)
    trt = parse_scrape(TRTLLM)
    assert trt.engines == {"trtllm"}
    assert (trt.values["spec_draft_tokens"], trt.values["spec_accepted_tokens"],
            trt.values["spec_accept_length"]) == (300, 210, 2.4)
    lm = parse_scrape(LMCACHE)
    assert lm.engines == {"lmcache"}
    assert (lm.values["lmcache_requested_tokens"], lm.values["lmcache_hit_tokens"]) == \
        (2000, 1500)


def _write(tmp_path: Path, texts: list[tuple[float, str]], src: str) -> Path:
    lines = [{"source": src, "t_ns": int(t * 1e9), "ok": True, "text": text}
             for t, text in texts]
    (tmp_path / SCRAPES_FILE).write_text("".join(json.dumps(x) + "\n" for x in lines))
    return tmp_path


def test_vllm_summary_acceptance_over_time_and_tiers(tmp_path: Path) -> None:
    scrapes = [(0.0, vllm_text(0, 0, 0, (0, 0, 0), 0, 0)),
               (1.0, vllm_text(10, 30, 18, (9, 6, 3), 100, 40)),   # rate 0.6, length 2.8
               (2.0, vllm_text(20, 60, 27, (16, 8, 3), 300, 190))]  # rate 0.3, length 1.9
    block = digest(_write(tmp_path, scrapes, "http://v/metrics"))
    assert block is not None
    src = block["sources"]["http://v/metrics"]
    spec = src["speculation"]
    assert spec["drafting"] is True
    assert spec["acceptance_rate"] == pytest.approx(27 / 60)
    assert spec["mean_acceptance_length"] == pytest.approx(1 + 27 / 20)
    assert spec["per_position"] == pytest.approx([16 / 20, 8 / 20, 3 / 20])
    assert spec["series"]["acceptance_rate"] == [[1.0, pytest.approx(0.6)],
                                                 [2.0, pytest.approx(0.3)]]
    assert spec["series"]["acceptance_length"] == [[1.0, pytest.approx(2.8)],
                                                   [2.0, pytest.approx(1.9)]]
    assert src["metrics"]["spec_accepted_per_position[0]"]["increase"] == 16
    tiers = src["kv_tiers"]
    assert tiers["connector"]["hits"] == 190 and tiers["connector"]["hit_rate"] == 190 / 300
    assert tiers["gpu"]["hits"] == 0  # the GPU counters did not move
    assert src["metrics"]["kv_offload_bytes[GPU_to_CPU]"]["kind"] == "counter"


def test_sglang_summary_uses_the_gauge_above_zero(tmp_path: Path) -> None:
    scrapes = [(0.0, sglang_text(0.0, 0.0)), (1.0, sglang_text(3.0, 0.5, 100)),
               (2.0, sglang_text(2.0, 0.25, 300))]
    src = digest(_write(tmp_path, scrapes, "http://s/metrics"))["sources"]["http://s/metrics"]  # type: ignore[index]
    spec = src["speculation"]
    assert spec["drafting"] is True and spec["mean_acceptance_length"] == 2.5
    assert spec["acceptance_rate"] == pytest.approx(0.375)
    assert spec["series"]["acceptance_length"] == [[1.0, 3.0], [2.0, 2.0]]
    assert src["kv_tiers"]["host"] == {"hits": 300, "queries": None, "hit_rate": None,
                                       "metric": "host_tier_loaded_tokens"}


def test_sglang_with_speculation_off_reports_no_drafts(tmp_path: Path) -> None:
    scrapes = [(0.0, sglang_text(0.0, 0.0)), (1.0, sglang_text(0.0, 0.0))]
    src = digest(_write(tmp_path, scrapes, "http://s/metrics"))["sources"]["http://s/metrics"]  # type: ignore[index]
    assert src["speculation"]["drafting"] is False
    assert src["speculation"]["mean_acceptance_length"] is None


def test_no_speculation_family_no_block() -> None:
    assert speculation_block({"kv_cache_usage": {"max": 0.5}}, {}) is None


def test_ratio_series_skips_idle_intervals_and_restarts() -> None:
    num = [(0.0, 0.0), (1.0, 5.0), (2.0, 5.0), (3.0, 2.0)]
    den = [(0.0, 0.0), (1.0, 10.0), (2.0, 10.0), (3.0, 4.0)]
    assert ratio_series(num, den) == [[1.0, 0.5], [3.0, 0.5]]  # t=2 idle; t=3 a restart


def test_report_and_summary_text_show_speculation_and_tiers(tmp_path: Path) -> None:
    from agentic_bench.reporting.server_figures import server_figures
    from agentic_bench.reporting.summary_text import _server_lines

    scrapes = [(0.0, vllm_text(0, 0, 0, (0, 0, 0), 0, 0)),
               (1.0, vllm_text(10, 30, 18, (9, 6, 3), 100, 40))]
    block = digest(_write(tmp_path, scrapes, "http://v/metrics"))
    html = server_figures(block)
    assert "speculation: acceptance rate" in html and "plot-server-spec-acceptance_length" in html
    assert "plot-server-spec_accepted_per_position-0" in html  # no brackets in an HTML id
    lines = "\n".join(_server_lines(block))
    assert "speculation drafting, mean acceptance length 2.80, acceptance rate 60.0 %" in lines
    assert "KV tiers hits: gpu 0 tokens, connector 40 tokens (40.0 %)" in lines
