"""Run one workload at each point of a sweep and write sweep.json + sweep.html."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from agentic_bench.contracts import Workload
from agentic_bench.metrics.sweep import sweep_point, sweep_summary
from agentic_bench.options.files import write_run_config
from agentic_bench.options.run import RunConfig
from agentic_bench.reporting.sweep_html import write_sweep_html
from agentic_bench.run.benchmark import run_workload
from agentic_bench.run.folder import default_out


def run_sweep(workload: Workload, config: RunConfig, key: str, values: list[float],
              point_config: Callable[[str, float], RunConfig]) -> dict[str, Any]:
    """One run per point; ``point_config(key, value)`` gives a point's whole config, built from
    the point's own options (``model_copy(update=...)`` of the validated ones), so what a
    point records as its options names the load it ran."""
    base = config.out or default_out(f"{workload.name}-sweep")
    base.mkdir(parents=True, exist_ok=True)
    write_run_config(base, config.command or workload.name, config.options_shown,
                     sweep_folder=True)
    points = []
    for value in values:
        cfg = replace(point_config(key, value), out=base / f"{key}-{value:g}")
        summary = run_workload(workload, cfg)
        points.append(sweep_point(key, value, summary))
        if not config.quiet:
            p = points[-1]
            ttft = p["ttft_p99_ms"]
            shown = "-" if ttft is None else f"{ttft:,.1f}"
            short = f"; SHORT: {p['short']}" if p.get("short") else ""
            print(f"{key}={value:g}: {p['requests_per_s']:.2f} req/s, TTFT p99 {shown} ms, "
                  f"goodput {p['goodput_sessions_per_s']:.3f}/s, {p['result']}{short}")
    sweep = {**sweep_summary(key, points), "slos": {**workload.default_slos, **config.slos}}
    Path(base / "sweep.json").write_text(json.dumps(sweep, indent=2) + "\n", encoding="utf-8")
    write_sweep_html(base, sweep)
    sweep["out_dir"] = str(base)
    return sweep
