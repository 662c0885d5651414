"""Scrapes over a run → the summary's server_metrics block, and the energy block."""

from __future__ import annotations

import json
from pathlib import Path

from agentic_bench.server_metrics import SCRAPES_FILE, digest
from agentic_bench.server_metrics.digest import increase, thin
from agentic_bench.server_metrics.energy import EnergyProbe, Meter, energy_block, rapl_meter


def _write(tmp_path: Path, lines: list[dict[str, object]]) -> Path:
    (tmp_path / SCRAPES_FILE).write_text("".join(json.dumps(x) + "\n" for x in lines)
                                         + '{"torn')  # an interrupted run's last line
    return tmp_path


def _llama(t: float, computed: int, cached: int, busy: int) -> dict[str, object]:
    text = (f"llamacpp:prompt_tokens_total {computed}\n"
            f"llamacpp:prompt_tokens_cached_total {cached}\nllamacpp:requests_processing {busy}\n")
    return {"source": "http://s/metrics", "t_ns": int(t * 1e9), "ok": True, "text": text}


def test_counters_gauges_hit_rate_and_failures(tmp_path: Path) -> None:
    scrapes = [_llama(0, 100, 0, 0), _llama(1, 150, 50, 2), _llama(2, 10, 5, 1),  # restarted
               {"source": "http://s/metrics", "t_ns": 3_000_000_000, "ok": False,
                "error": "ClientConnectorError: refused"},
               {"source": "http://bad/metrics", "t_ns": 0, "ok": True, "text": "<html>"}]
    block = digest(_write(tmp_path, scrapes))
    assert block is not None
    src = block["sources"]["http://s/metrics"]
    assert (src["scrapes"], src["failures"], src["errors"]) == \
        (4, 1, ["ClientConnectorError: refused"])
    hits = src["metrics"]["prefix_cache_hits"]
    assert hits["increase"] == 55  # 0 → 50, then a restart: counts from its new value 5
    assert src["metrics"]["prompt_tokens_computed"]["increase"] == 60
    assert src["prefix_cache_hit_rate"]["value"] == 55 / 115
    busy = src["metrics"]["requests_running"]
    assert (busy["max"], busy["mean"], busy["series"]) == (2, 1, [[0, 0], [1, 2], [2, 1]])
    bad = block["sources"]["http://bad/metrics"]
    assert bad["failures"] == 1 and "not Prometheus text" in bad["errors"][0]
    assert digest(tmp_path / "nothing") is None


def test_helpers() -> None:
    assert increase([(0, 5.0), (1, 7.0), (2, 1.0), (3, 4.0)]) == 2 + 1 + 3
    points = [(float(i), float(i)) for i in range(1000)]
    kept = thin(points, 100)
    assert len(kept) <= 101 and kept[-1] == [999.0, 999.0] and kept[0] == [0.0, 0.0]


def test_no_energy_source_is_said_plainly() -> None:
    probe = EnergyProbe(local_endpoint=False, finders=(lambda: (None, "RAPL: none here"),))
    probe.begin()
    block = energy_block(probe.end(), probe, None, {"requests_ok": 3})
    assert block == {"available": False, "reason": "no energy source on this machine: "
                     "RAPL: none here; NVML: the endpoint is not on this machine"}


def test_rapl_wraps_and_dcgm_counts(tmp_path: Path) -> None:
    zone = tmp_path / "intel-rapl:0"
    zone.mkdir()
    (zone / "max_energy_range_uj").write_text("1000000000")  # 1,000 J
    (zone / "energy_uj").write_text("999000000")
    meter, why = rapl_meter(tmp_path)
    assert meter is not None and why == "" and meter.wrap_j == 1000.0
    probe = EnergyProbe(local_endpoint=True, finders=(lambda: (meter, ""),))
    probe.begin()
    (zone / "energy_uj").write_text("4000000")  # wrapped: 1 J to the top, then 4 J
    used = probe.end()
    assert used == {"rapl": 5.0}
    scraped = {"sources": {"http://gpu:9400/metrics": {"metrics": {
        "gpu_energy": {"increase": 20.0}}}}}
    block = energy_block(used, probe, scraped, {"requests_ok": 5, "sessions": 2,
                                                "output_tokens": 100})
    rapl, dcgm = block["sources"]
    assert rapl["source"] == "rapl" and rapl["joules_per_request"] == 1.0
    assert rapl["output_tokens_per_joule"] == 20.0 and "CPU packages" in rapl["covers"]
    assert dcgm["source"] == "dcgm" and dcgm["joules_per_session"] == 10.0
    assert "MLPerf Power" in block["method"]
    unreadable = Meter("x", "y", lambda: 1.0)
    assert unreadable.wrap_j is None
