"""The options model of ``agentic-bench traces verify`` (the fidelity gate), declared like the
other tool commands' (:mod:`agentic_bench.cli.tool_options`): flags, ``--help`` and
``--config FILE`` are generated from it. Imported only when the command runs."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from agentic_bench.cli.tool_options import IMPORT_FORMAT_HELP, ToolOptions
from agentic_bench.options.schema import option


class TracesVerifyOptions(ToolOptions):
    """``traces verify SOURCE --against TRACE_OR_RUN_DIR``."""

    option_group: ClassVar[str] = "traces verify"
    description: ClassVar[str] = (
        "Profile SOURCE (sessions, trees, requests, subagents, tool calls, ISL/OSL p50/p90/p99, "
        "inter-request gaps, theoretical prefix hit) and the same figures of --against — an "
        "imported trace, or a run folder (what the replay sent, from its records) — side by "
        "side; exit 3 when a figure is outside its stated tolerance (counts exact, "
        "distributions ±10 %, prefix hit ±0.02; docs/importers.md, 'Fidelity').")

    source: Path = option(..., positional=True, metavar="SOURCE",
                          help="the source trace, in its own format (a file, or a folder where "
                          "the format has them)")
    against: Path = option(..., metavar="TRACE_OR_RUN_DIR",
                           help="the imported trace, or a run folder (its records.jsonl)")
    format: str = option("auto", metavar="FORMAT", help=f"SOURCE's format: {IMPORT_FORMAT_HELP}")
    against_format: str = option("auto", metavar="FORMAT",
                                 help="--against's format when it is a trace (default auto: "
                                 "native JSONL, or any importable format)")
    json_output: bool = option(False, flag="--json", help="print the rows and notes as JSON")


__all__ = ["TracesVerifyOptions"]
