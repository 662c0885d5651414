"""Energy of a run, from what the machine offers — each figure with its source and coverage.

- **NVML** (``nvidia-ml-py``; total-energy counters of Volta and newer GPUs, mJ): read at the
  run's start and end when the endpoint runs on this machine (embedded, in-process or a
  loopback URL); covers those GPUs only.
- **RAPL** (``/sys/class/powercap/intel-rapl:N/energy_uj``, when readable): the CPU packages of
  this machine — the client and any local server together; wrap-around handled with
  ``max_energy_range_uj``.
- **DCGM exporter** (``--server-metrics`` scraping ``DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION``): the
  increase of the scraped counter over the run; covers the exporter's GPUs.

None available is said plainly (``available: false`` with the reasons), never a zero. MLPerf
Power measures wall power with an external analyser (SPEC PTDaemon) over the whole system under
test, synchronised with LoadGen's run (mlcommons/power-dev; the submission checker's
``checks/power/``); these figures are the devices' own counters, a part of the system, and are
labelled as such.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RAPL_ROOT = Path("/sys/class/powercap")
ANALYSER_NOTE = ("device counters, not MLPerf Power's wall-power analyser over the whole "
                 "system (mlcommons/power-dev)")


@dataclass(frozen=True, slots=True)
class Meter:
    source: str
    covers: str
    read_j: Callable[[], float]  # a cumulative reading in joules
    wrap_j: float | None = None  # the counter wraps at this value (RAPL)


def rapl_meter(root: Path = RAPL_ROOT) -> tuple[Meter | None, str]:
    """The CPU packages' RAPL counters, or why not."""
    zones = sorted(p for p in root.glob("intel-rapl:*") if p.name.count(":") == 1)
    if not zones:
        return None, f"RAPL: no {root}/intel-rapl:N on this machine"
    try:
        ranges = [int((z / "max_energy_range_uj").read_text()) for z in zones]
        for z in zones:
            int((z / "energy_uj").read_text())
    except (OSError, ValueError) as exc:
        return None, f"RAPL: {zones[0]}/energy_uj not readable ({type(exc).__name__})"

    def read() -> float:
        return sum(int((z / "energy_uj").read_text()) for z in zones) / 1e6

    names = ", ".join(z.name for z in zones)
    return Meter("rapl", f"CPU packages of this machine ({names}): client and any local server",
                 read, wrap_j=sum(ranges) / 1e6), ""


def nvml_meter() -> tuple[Meter | None, str]:
    """This machine's NVIDIA GPUs' total-energy counters, or why not."""
    try:
        import pynvml
    except ImportError:
        return None, "NVML: nvidia-ml-py is not installed"
    try:
        pynvml.nvmlInit()
        handles = [pynvml.nvmlDeviceGetHandleByIndex(i)
                   for i in range(pynvml.nvmlDeviceGetCount())]
        if not handles:
            return None, "NVML: no GPU"
        for h in handles:
            pynvml.nvmlDeviceGetTotalEnergyConsumption(h)
    except Exception as exc:  # no driver, no GPU, a GPU older than Volta
        return None, f"NVML: {type(exc).__name__}: {exc}"[:200]

    def read() -> float:
        return float(sum(pynvml.nvmlDeviceGetTotalEnergyConsumption(h) for h in handles)) / 1e3

    return Meter("nvml", f"{len(handles)} local NVIDIA GPU(s), GPU only", read), ""


class EnergyProbe:
    """Readings at the run's start and end from every meter available here."""

    def __init__(self, local_endpoint: bool,
                 finders: tuple[Callable[[], tuple[Meter | None, str]], ...] | None = None
                 ) -> None:
        self.meters: list[Meter] = []
        self.missing: list[str] = []
        for find in finders or ((nvml_meter, rapl_meter) if local_endpoint else (rapl_meter,)):
            meter, why = find()
            if meter is not None:
                self.meters.append(meter)
            else:
                self.missing.append(why)
        if not local_endpoint:
            self.missing.append("NVML: the endpoint is not on this machine")
        self.start: dict[str, float] = {}

    def begin(self) -> None:
        self.start = {m.source: m.read_j() for m in self.meters}

    def end(self) -> dict[str, float]:
        used: dict[str, float] = {}
        for m in self.meters:
            if m.source in self.start:
                delta = m.read_j() - self.start[m.source]
                used[m.source] = delta + (m.wrap_j or 0.0) if delta < 0 else delta
        return used


def energy_block(used: dict[str, float], probe: EnergyProbe,
                 scraped: dict[str, Any] | None, counts: dict[str, Any]) -> dict[str, Any]:
    """The summary's ``energy``: per source the joules, per request, per session and tokens
    per joule, with what the source covers."""
    sources = [(m.source, m.covers, used[m.source]) for m in probe.meters if m.source in used]
    for url, block in ((scraped or {}).get("sources") or {}).items():
        gpu = (block.get("metrics") or {}).get("gpu_energy")
        if gpu and gpu.get("increase") is not None:
            sources.append(("dcgm", f"GPUs of the DCGM exporter at {url}", gpu["increase"]))
    if not sources:
        return {"available": False,
                "reason": "no energy source on this machine: " + "; ".join(probe.missing)}
    requests = counts.get("requests_ok") or 0
    sessions = counts.get("sessions") or 0
    tokens = counts.get("output_tokens") or 0
    out = []
    for source, covers, joules in sources:
        out.append({"source": source, "covers": covers, "joules": round(joules, 3),
                    "joules_per_request": joules / requests if requests else None,
                    "joules_per_session": joules / sessions if sessions else None,
                    "output_tokens_per_joule": tokens / joules if joules > 0 else None})
    return {"available": True, "sources": out, "not_available": probe.missing,
            "method": ANALYSER_NOTE}
