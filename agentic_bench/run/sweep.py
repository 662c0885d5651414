"""Run one workload at each point of a sweep and write sweep.json + sweep.html."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentic_bench.contracts import Workload
from agentic_bench.metrics.sweep import sweep_point, sweep_summary
from agentic_bench.options.common import CommonOptions
from agentic_bench.options.files import write_run_config
from agentic_bench.options.load import SweepSpec
from agentic_bench.options.schema import public_options
from agentic_bench.reporting.sweep_html import write_sweep_html
from agentic_bench.run.benchmark import run_workload
from agentic_bench.run.folder import default_out


def point_options(workload: Workload, options: CommonOptions, key: str, value: float,
                  folder: Path) -> CommonOptions:
    """A sweep or search point's own options: the validated ones with the point's load
    (:meth:`~agentic_bench.options.common.CommonOptions.at_point`) going into ``folder`` — a
    copy, so what the point records as its options is the load it ran."""
    point = options.at_point(key, value, workload.source.size, workload.trees)
    moved = {"resume": folder} if options.resume is not None else {"out": folder}
    return point.model_copy(update=moved)


def run_sweep(workload: Workload, options: CommonOptions, sweep: SweepSpec,
              command: str | None = None) -> dict[str, Any]:
    """One run per point of ``sweep``, each under its own options (:func:`point_options`)
    in ``--out``/``KEY-VALUE``."""
    key = sweep.key
    base = options.resume or options.out or default_out(f"{workload.name}-sweep")
    base.mkdir(parents=True, exist_ok=True)
    write_run_config(base, command or workload.name, public_options(options), sweep_folder=True)
    points = []
    for value in sweep.values:
        point = point_options(workload, options, key, value, base / f"{key}-{value:g}")
        summary = run_workload(workload, point, command)
        points.append(sweep_point(key, value, summary))
        if not options.quiet:
            p = points[-1]
            ttft = p["ttft_p99_ms"]
            shown = "-" if ttft is None else f"{ttft:,.1f}"
            short = f"; SHORT: {p['short']}" if p.get("short") else ""
            print(f"{key}={value:g}: {p['requests_per_s']:.2f} req/s, TTFT p99 {shown} ms, "
                  f"goodput {p['goodput_sessions_per_s']:.3f}/s, {p['result']}{short}")
    result = {**sweep_summary(key, points), "slos": {**workload.default_slos, **options.slos}}
    Path(base / "sweep.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    write_sweep_html(base, result)
    result["out_dir"] = str(base)
    return result
