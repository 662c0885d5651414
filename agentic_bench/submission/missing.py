"""What a packed submission still lacks before MLCommons' checker can accept it.

Three kinds of items, per result and per system:

- ``fill``: a template value or text still starting with ``FILL IN:`` (system facts,
  measurements, how the system was started) — only the submitter knows them;
- ``missing``: a part the checker requires and no packed run provided (a performance, accuracy
  or TEST09 run; the judge's accuracy.txt; user.conf; an Edge phase);
- ``will_fail``: what the packed runs themselves say the checker will refuse — fewer samples
  than the official count, LoadGen's INVALID, TEST09 failed, accuracy below the gate, and for
  the closed division any departure from MLPerf's configuration our run recorded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentic_bench.metrics.summary_model import Summary
from agentic_bench.submission.runs import BENCHMARKS, EDGE_FILES, Benchmark
from agentic_bench.submission.templates import FILL

# official counts: constants.py performance-sample-count / dataset-size (b66003e1 176-231)
OFFICIAL_SAMPLES = {"e2e-rag-qna": 824, "e2e-rag-db": 2515, "qwen3.6-27b": 995}
ACCURACY_GATES = {"e2e-rag-qna": 33.95, "e2e-rag-db": 98.0}  # constants.py 156-157
E2E_ACCURACY_GATE = ACCURACY_GATES["e2e-rag-qna"]
_ACCURACY = re.compile(r"^Accuracy:\s*([\d.]+)", re.M)


@dataclass
class Report:
    """What a packed submission still needs: fields to fill in, files missing, and what would
    fail MLCommons' checker."""

    fill: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    will_fail: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.fill or self.missing or self.will_fail)

    def lines(self) -> list[str]:
        out: list[str] = []
        for title, items in (("to fill in", self.fill), ("missing", self.missing),
                             ("the checker will refuse", self.will_fail)):
            if items:
                out.append(f"{title} ({len(items)}):")
                out += [f"  - {item}" for item in items]
        return out or ["nothing missing that agentic-bench can see"]


def report(root: Path) -> Report:
    """Walk ``<out>/<division>/<submitter>`` (one packed submitter folder)."""
    rep = Report()
    division = root.parent.name
    for system_json in sorted((root / "systems").glob("*.json")):
        _placeholders(rep, _rel(root, system_json), _load(system_json))
    by_mlperf = {b.mlperf: b for b in BENCHMARKS.values()}
    for scenario in sorted((root / "results").glob("*/*/*")):
        bench = by_mlperf.get(scenario.parent.name)
        if bench is None or not scenario.is_dir():
            continue
        system = scenario.parent.parent.name
        if not (root / "systems" / f"{system}.json").is_file():
            rep.missing.append(f"systems/{system}.json")
        measurements = scenario / "measurements.json"
        if measurements.is_file():
            _placeholders(rep, _rel(root, measurements), _load(measurements))
        else:
            rep.missing.append(_rel(root, measurements))
        readme = scenario / "README.md"
        if readme.is_file() and FILL in readme.read_text(encoding="utf-8"):
            rep.fill.append(f"{_rel(root, readme)}: how the system under test was started")
        if bench.kind == "loadgen":
            _loadgen_result(rep, root, scenario, bench, division)
        else:
            _endpoints_result(rep, root, scenario, bench)
    if not (root / "src").is_dir():
        rep.missing.append("src/ (the checker requires the folder)")
    return rep


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, RecursionError):  # not JSON, not UTF-8 or nested too deeply
        return {}
    return data if isinstance(data, dict) else {}


def _rel(root: Path, path: Path) -> str:
    return str(path.relative_to(root))


def _placeholders(rep: Report, where: str, data: dict[str, Any]) -> None:
    for key, value in data.items():
        if isinstance(value, str) and value.startswith(FILL):
            rep.fill.append(f"{where}: {key} ({value[len(FILL):].strip()})")


def _loadgen_result(rep: Report, root: Path, scenario: Path, bench: Benchmark,
                    division: str) -> None:
    perf, acc = scenario / "performance" / "run_1", scenario / "accuracy"
    if not (perf / "mlperf_log_detail.txt").is_file():
        rep.missing.append(f"{_rel(root, perf)}: the performance run ({bench.command})")
    else:
        _detail_checks(rep, root, perf, bench)
    if not (acc / "mlperf_log_detail.txt").is_file():
        rep.missing.append(f"{_rel(root, acc)}: the accuracy run ({bench.command} "
                           f"--loadgen-mode accuracy)")
    elif not (acc / "accuracy.txt").is_file():
        rep.missing.append(f"{_rel(root, acc)}/accuracy.txt: {bench.accuracy}")
    else:
        found = _ACCURACY.search((acc / "accuracy.txt").read_text(encoding="utf-8"))
        gate = ACCURACY_GATES.get(bench.mlperf)
        if found is None:
            rep.will_fail.append(f"{_rel(root, acc)}/accuracy.txt: no line starting "
                                 "'Accuracy:' (the checker's E2E_ACCURACY)")
        elif gate is not None and float(found.group(1)) < gate and division == "closed":
            rep.will_fail.append(f"{_rel(root, acc)}: accuracy {found.group(1)} below the gate "
                                 f"{gate}")
    if not (scenario / "user.conf").is_file():
        rep.missing.append(f"{_rel(root, scenario)}/user.conf")
    if division != "closed":
        return
    for test in bench.compliance:
        verify = scenario / test / "verify_output_len.txt"
        if not verify.is_file():
            rep.missing.append(f"{_rel(root, scenario)}/{test}: the compliance run "
                               f"({bench.command} --loadgen-mode {test})")
        elif "TEST PASS" not in verify.read_text(encoding="utf-8"):
            rep.will_fail.append(f"{_rel(root, verify)}: TEST FAIL")


def _detail_checks(rep: Report, root: Path, perf: Path, bench: Benchmark) -> None:
    from agentic_bench.loadgen.logs import parse_detail

    detail = parse_detail(perf / "mlperf_log_detail.txt")
    count = detail.get("effective_performance_sample_count") or \
        detail.get("qsl_reported_performance_count")
    official = OFFICIAL_SAMPLES[bench.mlperf]
    if isinstance(count, int) and count < official:
        rep.will_fail.append(f"{_rel(root, perf)}: {count} samples (official: {official})")
    if detail.get("result_validity") not in (None, "VALID"):
        rep.will_fail.append(f"{_rel(root, perf)}: LoadGen's result is "
                             f"{detail.get('result_validity')}")


def _endpoints_result(rep: Report, root: Path, scenario: Path, bench: Benchmark) -> None:
    for part, rel in EDGE_FILES.items():
        if not (scenario / rel).is_file():
            rep.missing.append(f"{_rel(root, scenario / rel)}: the {part} phase "
                               f"({bench.command})")
    if not (scenario / "config.yaml").is_file():
        rep.missing.append(f"{_rel(root, scenario)}/config.yaml")
    results = _load(scenario / EDGE_FILES["accuracy"])
    for entry in results.get("accuracy_scores") or []:
        if isinstance(entry, dict) and entry.get("dataset_type") == "accuracy" and \
                (entry.get("total_samples") or 0) < OFFICIAL_SAMPLES[bench.mlperf]:
            rep.will_fail.append(f"{_rel(root, scenario)}: {entry.get('total_samples')} "
                                 f"accuracy samples (official: {OFFICIAL_SAMPLES[bench.mlperf]})")


def departures(summaries: Sequence[Summary | dict[str, Any]]) -> list[str]:
    """The departures from MLPerf's configuration our runs recorded (closed division: each one
    keeps a result out)."""
    out: list[str] = []
    for summary in summaries:
        block = Summary.of(summary).workload.get("mlperf") or {}
        for item in block.get("departures") or []:
            if item not in out:
                out.append(str(item))
    return out
