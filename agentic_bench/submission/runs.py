"""Our result folders as parts of an MLPerf submission: which benchmark, which scenario, which
part (a LoadGen performance, accuracy or TEST09 run; the endpoints-format artifacts of an Edge
Agentic run), read from each folder's ``summary.json``.

Benchmark names, scenarios and system types are those of mlcommons/inference b66003e1
``tools/submission/submission_checker/constants.py``: ``e2e-rag-qna`` and ``e2e-rag-db``
(Offline, datacenter: 12-39; TEST09 for e2e-rag-qna only: 322-325) and ``qwen3.6-27b`` —
MLPerf's Edge Agentic model — (SingleStream, edge: 48-60, an endpoints model: 2045-2049).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agentic_bench.errors import UsageError
from agentic_bench.metrics.summary_model import Summary, json_kind, why_invalid


@dataclass(frozen=True)
class Benchmark:
    """How one of our benchmarks maps to MLPerf's: names, scenario, system type, compliance
    tests, the command that runs it and its accuracy rule."""

    ours: str  # our benchmark name (summary.json "benchmark")
    mlperf: str  # the checker's benchmark folder
    scenario: str  # the checker's scenario folder
    system_type: str  # a system type under which the checker knows the benchmark
    kind: str  # "loadgen" (mlperf_log_* files) or "endpoints" (config.yaml + JSON results)
    compliance: tuple[str, ...] = ()  # compliance tests the closed division needs
    command: str = ""  # the command that produces a run folder of it
    accuracy: str = ""  # what its accuracy.txt holds and what writes it


RAG = Benchmark("rag-e2e", "e2e-rag-qna", "Offline", "datacenter", "loadgen", ("TEST09",),
                "run rag-e2e --mlperf", "the judge's accuracy (--judge-endpoint URL)")
RAG_DB = Benchmark("rag-e2e-db", "e2e-rag-db", "Offline", "datacenter", "loadgen", (),
                   "rag build-index --mlperf-db --corpus doc_html/ --loadgen mlperf --out DIR",
                   "the accuracy the accuracy run computes (--loadgen-mode accuracy)")
EDGE = Benchmark("agentic-edge", "qwen3.6-27b", "SingleStream", "edge", "endpoints", (),
                 "run agentic-edge --mode both")
BENCHMARKS = {b.ours: b for b in (RAG, RAG_DB, EDGE)}

LOADGEN_FILES = ("mlperf_log_summary.txt", "mlperf_log_detail.txt")
EDGE_FILES = {"performance": "performance/result_summary.json",
              "accuracy": "accuracy/accuracy_results.json"}


@dataclass
class RunFolder:
    """One checked result folder: its path, benchmark, summary and the files it is made of."""

    path: Path
    benchmark: Benchmark
    summary: Summary
    parts: dict[str, Path] = field(default_factory=dict)  # part name → its folder in the run

    @property
    def command(self) -> str:
        return str(self.summary.command_line or f"agentic-bench run "
                   f"{self.benchmark.ours} (command line not recorded)")


def read_run(path: Path) -> RunFolder:
    """One result folder, checked; a :class:`UsageError` says what is wrong with it."""
    path = Path(path)
    if not path.is_dir():
        raise UsageError(f"{path}: no such folder (expected a run folder: the --out of "
                         "`agentic-bench run rag-e2e --mlperf`, `run agentic-edge` or `rag "
                         "build-index --mlperf-db --loadgen mlperf`)")
    summary_file = path / "summary.json"
    if not summary_file.is_file():
        raise UsageError(f"{path}: no summary.json (expected a finished run folder of "
                         "`agentic-bench run`)")
    try:
        summary = json.loads(summary_file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise UsageError(f"{summary_file}: not JSON ({exc.msg}, line {exc.lineno})") from None
    except OSError as exc:
        raise UsageError(f"{summary_file}: cannot read it ({exc.strerror})") from None
    except (UnicodeDecodeError, RecursionError) as exc:
        why = "nested too deeply" if isinstance(exc, RecursionError) else "not UTF-8 text"
        raise UsageError(f"{summary_file}: not JSON ({why}); expected the summary.json "
                         "`agentic-bench run` writes") from None
    if not isinstance(summary, dict):
        raise UsageError(f"{summary_file}: expected a JSON object (the summary `agentic-bench "
                         f"run` writes), got {json_kind(summary)}")
    try:
        typed = Summary.model_validate(summary)
    except ValidationError as exc:
        wrong = exc.errors()[0]
        if wrong["loc"] == ("benchmark",):
            raise UsageError(_no_layout(path, wrong.get("input"))) from None
        raise UsageError(f"{summary_file}: {why_invalid(exc)}") from None
    name = typed.given("benchmark")
    if name not in BENCHMARKS:
        raise UsageError(_no_layout(path, name))
    run = RunFolder(path, BENCHMARKS[name], typed)
    run.parts = _loadgen_parts(run) if run.benchmark.kind == "loadgen" else _edge_parts(run)
    return run


def _no_layout(path: Path, name: Any) -> str:
    return (f"{path}: benchmark {name!r} has no MLPerf submission layout "
            f"(expected one of {', '.join(BENCHMARKS)})")


def _loadgen_parts(run: RunFolder) -> dict[str, Path]:
    lg = run.summary.loadgen  # an object or absent: read_run validated the summary
    if not lg:
        raise UsageError(f"{run.path}: not a LoadGen run (no loadgen block in summary.json); "
                         f"run `agentic-bench {run.benchmark.command}` (LoadGen installed: pip "
                         "install 'agentic-serving-bench[loadgen]')")
    log_dir = str(lg.get("log_dir") or ".")
    expected = {"performance/run_1": "performance", "accuracy": "accuracy",
                "TEST09/performance/run_1": "TEST09"}
    if log_dir not in expected:
        raise UsageError(f"{run.path}: LoadGen's logs are in {log_dir!r}, not in a submission "
                         "layout (performance/run_1, accuracy or TEST09; --loadgen-layout "
                         f"submission); run it again with `agentic-bench "
                         f"{run.benchmark.command}`")
    folder = run.path / log_dir
    absent = [name for name in LOADGEN_FILES if not (folder / name).is_file()]
    if absent:
        raise UsageError(f"{folder}: {', '.join(absent)} missing (LoadGen did not finish?)")
    part = expected[log_dir]
    if part == "TEST09" and not (run.path / "TEST09" / "verify_output_len.txt").is_file():
        raise UsageError(f"{run.path / 'TEST09'}: verify_output_len.txt missing")
    return {part: run.path / "TEST09" if part == "TEST09" else folder}


def _edge_parts(run: RunFolder) -> dict[str, Path]:
    found = {part: run.path / rel for part, rel in EDGE_FILES.items()
             if (run.path / rel).is_file()}
    if not found:
        raise UsageError(f"{run.path}: no MLPerf artifacts (expected "
                         f"{' and '.join(EDGE_FILES.values())}, written by `run agentic-edge`)")
    if not (run.path / "config.yaml").is_file():
        raise UsageError(f"{run.path}: config.yaml missing (the endpoints-schema configuration "
                         "`run agentic-edge` writes beside its results)")
    return found
