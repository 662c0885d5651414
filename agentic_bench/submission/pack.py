"""``agentic-bench submission pack``: our result folders laid out as an MLPerf submission.

``<out>/<division>/<submitter>/``:

- ``results/<system>/<benchmark>/<scenario>/`` — what the checker reads
  (mlcommons/inference b66003e1 ``tools/submission/submission_checker/constants.py`` 2029-2166,
  ``loader.py`` 345-495). E2E-RAG (``e2e-rag-qna``; ``e2e-rag-db`` the same without
  TEST09), a LoadGen benchmark: ``performance/run_1/``, ``accuracy/``
  (``accuracy.txt`` with its ``hash=`` line, the log truncated: :mod:`.truncate`), ``TEST09/``
  (its accuracy log hashed and truncated too, as ``truncate_accuracy_log.py`` 170-277 treats
  TEST09), ``user.conf``. Edge Agentic, an endpoints benchmark: ``config.yaml`` at the scenario
  level, ``performance/result_summary.json`` (no ``run_1``) and
  ``accuracy/accuracy_results.json``, as the checker's endpoints parser reads them
  (``parsers/endpoints_parser.py`` 28-30, 146-160) — not as endpoints' own
  ``publish_submission.py`` (mlcommons/endpoints ea332753, 95-96) writes them. Beside each:
  ``measurements.json`` and ``README.md`` (templates, kept once they exist).
- ``systems/<system>.json`` (template, kept once it exists); ``code/`` (the layout of
  ``submission_structure.md``) and ``src/`` (the folder the checker looks for since v6.0:
  ``constants.py`` 2181-2186); ``documentation/``; ``measurements/`` (a note: since v5.0 the
  checker reads each result's measurements.json beside it, ``constants.py`` 2095-2100).

Several run folders of one benchmark merge into one result: a performance run, an accuracy run
and a TEST09 run (``run rag-e2e --mlperf --loadgen-mode accuracy|TEST09``), each from its own
folder; two folders holding the same part are refused. Packing again into the same ``--out``
adds to it (e.g. a second ``--system``): logs are replaced, filled-in templates are kept.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentic_bench.errors import UsageError
from agentic_bench.submission import templates
from agentic_bench.submission.runs import EDGE_FILES, LOADGEN_FILES, RunFolder, read_run
from agentic_bench.submission.truncate import seal

DIVISIONS = ("closed", "open")
ACCURACY_LOG = "mlperf_log_accuracy.json"


@dataclass
class Packed:
    """What :func:`pack` wrote: the submitter root, the result folders, files written, templates
    kept and notes."""

    root: Path  # <out>/<division>/<submitter>
    results: list[Path] = field(default_factory=list)  # scenario folders written
    written: list[Path] = field(default_factory=list)
    kept: list[Path] = field(default_factory=list)  # templates already there (filled in?)
    notes: list[str] = field(default_factory=list)


def pack(run_dirs: Sequence[Path], *, submitter: str, system: str, division: str,
         out: Path) -> Packed:
    """Lay out ``run_dirs`` under ``out``; a :class:`UsageError` for bad input (nothing is
    written then) and for an ``out`` that cannot hold a submission (a file, a folder that cannot
    be created or written)."""
    _check_names(submitter=submitter, system=system, division=division)
    if not run_dirs:
        raise UsageError("submission pack: give at least one run folder")
    runs = [read_run(Path(p)) for p in run_dirs]
    _check_combination(runs, system)
    root = Path(out) / division / submitter
    _make_root(Path(out), root)
    try:
        return _write(runs, root, submitter=submitter, system=system, division=division)
    except (NotADirectoryError, IsADirectoryError, FileExistsError, PermissionError) as exc:
        # a file where a folder goes (or no right to write): the input's fault, not a bug
        raise UsageError(f"--out {out}: cannot write {exc.filename} ({exc.strerror}); expected "
                         "a submission folder that can be written") from None


def _make_root(out: Path, root: Path) -> None:
    """Create ``<out>/<division>/<submitter>``, or say why ``--out`` cannot hold it."""
    expected = ("expected a submission folder (created when missing, added to when it "
                "exists)")
    for folder in (root, root.parent, out, *out.parents):
        if folder.exists() or folder.is_symlink():
            if not folder.is_dir():
                what = "a file" if folder.is_file() else "not a folder"
                raise UsageError(f"--out {out}: {folder} is {what}; {expected}")
            break
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot create {root} ({exc.strerror}); "
                         f"{expected}") from None


def _write(runs: list[RunFolder], root: Path, *, submitter: str, system: str,
           division: str) -> Packed:
    packed = Packed(root)
    by_benchmark: dict[str, list[RunFolder]] = {}
    for run in runs:
        by_benchmark.setdefault(run.benchmark.ours, []).append(run)
    for group in by_benchmark.values():
        _pack_result(packed, group, system)
    system_type = runs[0].benchmark.system_type
    _template(packed, root / "systems" / f"{system}.json", json.dumps(
        templates.system_description(division=division, submitter=submitter, system=system,
                                     system_type=system_type), indent=2) + "\n")
    names = sorted({r.benchmark.mlperf for r in runs})
    for name in names:
        _template(packed, root / "code" / name / "README.md", templates.code_readme([name]))
    _template(packed, root / "src" / "README.md", templates.code_readme(names))
    _template(packed, root / "documentation" / "README.md",
              templates.documentation_readme(submitter))
    _template(packed, root / "measurements" / "README.md",
              "# Measurements\n\nEach result's measurements.json and README.md lie beside it "
              "in results/<system>/<benchmark>/<scenario>/, where the submission checker "
              "reads them.\n")
    return packed


def _check_names(**names: str) -> None:
    for key, value in names.items():
        if not value or value.strip() != value or any(c in value for c in "/\\") \
                or value in (".", ".."):
            raise UsageError(f"--{key} {value!r}: expected a plain folder name (no slashes, no "
                             "surrounding spaces)")
    if names["division"] not in DIVISIONS:
        raise UsageError(f"--division {names['division']!r}: expected one of "
                         f"{', '.join(DIVISIONS)}")


def _check_combination(runs: list[RunFolder], system: str) -> None:
    types = {r.benchmark.system_type for r in runs}
    if len(types) > 1:
        listed = ", ".join(sorted({f"{r.benchmark.mlperf} ({r.benchmark.system_type})"
                                   for r in runs}))
        raise UsageError(
            f"--system {system}: {listed} cannot share one system: the checker knows "
            "e2e-rag-qna and e2e-rag-db only for datacenter systems and qwen3.6-27b only for "
            "edge ones (constants.py required-scenarios-*); pack each under its own --system "
            "into the same --out")
    seen: dict[tuple[str, str], Path] = {}
    for run in runs:
        for part in run.parts:
            key = (run.benchmark.mlperf, part)
            if key in seen:
                raise UsageError(f"{seen[key]} and {run.path} both hold the {part} run of "
                                 f"{run.benchmark.mlperf}: pack one of them")
            seen[key] = run.path


def _pack_result(packed: Packed, runs: list[RunFolder], system: str) -> None:
    bench = runs[0].benchmark
    dest = packed.root / "results" / system / bench.mlperf / bench.scenario
    dest.mkdir(parents=True, exist_ok=True)
    packed.results.append(dest)
    parts: list[dict[str, str]] = []
    for run in runs:
        for part, src in run.parts.items():
            if bench.kind == "loadgen":
                _loadgen_part(packed, run, part, src, dest)
            else:
                _edge_part(packed, part, src, dest / EDGE_FILES[part])
            parts.append({"part": part, "folder": str(run.path), "command": run.command})
    if bench.kind == "loadgen":
        conf = next((r.path / "user.conf" for r in sorted(runs, key=_perf_first)
                     if (r.path / "user.conf").is_file()), None)
        if conf is not None:
            _copy(packed, conf, dest / "user.conf")
    else:
        conf_run = sorted(runs, key=_perf_first)[0]
        _copy(packed, conf_run.path / "config.yaml", dest / "config.yaml")
    _template(packed, dest / "measurements.json",
              json.dumps(templates.measurements(bench.mlperf, bench.scenario), indent=2) + "\n")
    _template(packed, dest / "README.md",
              templates.result_readme(bench.mlperf, bench.scenario, parts))


def _perf_first(run: RunFolder) -> int:
    return 0 if "performance" in run.parts else 1


def _loadgen_part(packed: Packed, run: RunFolder, part: str, src: Path, dest: Path) -> None:
    if part == "TEST09":
        target = dest / "TEST09"
        _replace_dir(target)
        _copy(packed, src / "verify_output_len.txt", target / "verify_output_len.txt")
        for name in LOADGEN_FILES:
            _copy(packed, src / "performance" / "run_1" / name,
                  target / "performance" / "run_1" / name)
        log = src / "accuracy" / ACCURACY_LOG
        if log.is_file():
            _copy(packed, log, target / "accuracy" / ACCURACY_LOG)
            seal(target / "accuracy" / ACCURACY_LOG, target / "accuracy" / "accuracy.txt",
                 compliance=True)
        return
    target = dest / ("performance/run_1" if part == "performance" else "accuracy")
    _replace_dir(target)
    for name in (*LOADGEN_FILES, ACCURACY_LOG):
        if (src / name).is_file():
            _copy(packed, src / name, target / name)
    if part != "accuracy":
        return
    found = next((p for p in (src / "accuracy.txt", run.path / "accuracy.txt") if p.is_file()),
                 None)
    if found is None:
        packed.notes.append(f"{run.path}: no accuracy.txt ({run.benchmark.accuracy})")
        return
    _copy(packed, found, target / "accuracy.txt")
    if (target / ACCURACY_LOG).is_file():
        seal(target / ACCURACY_LOG, target / "accuracy.txt")


def _edge_part(packed: Packed, part: str, src: Path, target: Path) -> None:
    _copy(packed, src, target)


def _replace_dir(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    path.mkdir(parents=True)


def _copy(packed: Packed, src: Path, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dest)
    packed.written.append(dest)


def _template(packed: Packed, path: Path, text: str) -> None:
    if path.exists():
        packed.kept.append(path)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    packed.written.append(path)


def describe(packed: Packed) -> dict[str, Any]:
    """What :func:`pack` did, as data for the command's report (written, kept, results)."""
    return {"root": str(packed.root), "results": [str(p) for p in packed.results],
            "files_written": len(packed.written), "templates_kept": [str(p) for p in packed.kept],
            "notes": packed.notes}
