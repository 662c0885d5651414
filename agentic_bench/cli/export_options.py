"""The options model of ``agentic-bench export RUN_DIR --to FORMAT --out PATH``.

Declared like the other tool commands' options (:mod:`agentic_bench.cli.tool_options`): the
flags, ``--help`` and ``--config FILE`` are generated from it. Imported only when the command
runs (pydantic stays out of ``agentic-bench --help``).
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Literal

from agentic_bench.cli.tool_options import ToolOptions
from agentic_bench.options.schema import option

ExportFormat = Literal["inferencex", "llmd-report", "mlperf-viz", "otel"]

FORMAT_HELP = {
    "llmd-report": (
        "llm-d's Benchmark Report v0.2.1 (PyPI llmd-benchmark-report): run metadata, the load, "
        "request latency (TTFT, TPOT, ITL, NTPOT, request), throughput and session_performance "
        "from our sessions; per-turn, per-tree, goodput and the verdict in "
        "results.observability.agentic_bench. One run: --out FILE (.json, or .yaml for YAML); a "
        "sweep: --out DIR, one report per point."),
    "mlperf-viz": (
        "the MLPerf Endpoints v1.0 results tree that mlperf-viz 2.0.0 shows: "
        "DIR/results/<system>/<model>/r<N>/ with point.yaml, result_summary.json (ns stat "
        "blocks of TTFT, TPOT and latency), system_desc.json and accuracy_results.json when the "
        "run has an accuracy; one point per run or per sweep point, N its concurrency. --out "
        "DIR; then `mlperf-viz DIR`."),
    "inferencex": (
        "InferenceX's aggregated agentic result (the agg JSON of a bmk_agentic artifact, "
        "utils/agentic/aggregation/process_agentic_result.py) for --agentx runs only: requests "
        "and their accounting, latency, interactivity, tokens, throughput per GPU, theoretical "
        "cache hit; our tree figures and verdict under agentic_bench. One run: --out FILE; a "
        "sweep: --out DIR, agentx_conc<N>.json per point."),
    "otel": "OpenTelemetry spans of the run (see docs/interop.md).",
}


class ExportOptions(ToolOptions):
    option_group: ClassVar[str] = "export"
    description: ClassVar[str] = "\n\n".join(
        ["Write a finished run folder — or every point of a sweep or search folder — in another "
         "tool's result format, read from its summary.json, records.jsonl and config. Nothing "
         "is written when the folder cannot be exported; the reason is printed and the exit "
         "code is 2. Formats (docs/interop.md says what each keeps and loses):"]
        + [f"{name}: {text}" for name, text in FORMAT_HELP.items()])

    run_dir: Path = option(..., positional=True, metavar="RUN_DIR",
                           help="a run's output folder (summary.json), or a sweep or search "
                           "folder (sweep.json, search.json)")
    to: ExportFormat = option(..., metavar="FORMAT",
                              help="the format: " + ", ".join(FORMAT_HELP) + " (each described "
                              "above)")
    out: Path = option(..., metavar="PATH",
                       help="where to write: a file for one run (llmd-report, inferencex), a "
                       "folder for a sweep and for mlperf-viz")


__all__ = ["FORMAT_HELP", "ExportFormat", "ExportOptions"]
