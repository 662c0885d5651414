"""A finished run folder as the exporters read it: ``summary.json``, the first (``run``) record
of ``records.jsonl`` (``.gz`` too) and the records themselves, streamed; a sweep or capacity
search folder (``sweep.json`` / ``search.json``, written by ``agentic_bench/run/sweep.py`` and
``run/search.py``) as its points, each a run folder.

The layout is this project's own (docs/report.md, docs/metrics.md "Records"); nothing here is
a foreign format. Every problem is a :class:`~agentic_bench.errors.UsageError` naming the
folder and what was expected, raised before an exporter writes anything.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agentic_bench.errors import UsageError
from agentic_bench.metrics.declarations import field_of
from agentic_bench.metrics.percentiles import percentile
from agentic_bench.metrics.summary_model import Summary, why_invalid
from agentic_bench.records.stream import iter_records, run_records_path

Record = dict[str, Any]
_TTFT, _TPOT, _LATENCY = field_of("ttft"), field_of("tpot"), field_of("request")


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise UsageError(f"{path}: cannot be read as JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise UsageError(f"{path}: expected a JSON object")
    return data


def _read_summary(path: Path) -> Summary:
    """``summary.json`` as the typed :class:`Summary`; a UsageError names a field that is not
    a summary's."""
    try:
        return Summary.model_validate(_read_json(path))
    except ValidationError as exc:
        raise UsageError(f"{path}: not a run's summary ({why_invalid(exc)})") from None


@dataclass(frozen=True)
class RunFolder:
    """One finished run: its summary, its ``run`` record and (streamed) its records."""

    path: Path
    summary: Summary  # summary.json, validated as it is read (open_run)
    run: dict[str, Any]
    label: str  # the point's name in a sweep (``concurrency-2``), else the folder's name

    def records(self) -> Iterator[Record]:
        """Every record of ``records.jsonl``, one at a time (torn lines skipped)."""
        return iter_records(run_records_path(self.path))

    @property
    def options(self) -> dict[str, Any]:
        """The run's options as validated (empty for a version-1 folder)."""
        return dict(self.run.get("options") or {})

    @property
    def load(self) -> dict[str, Any]:
        """The load block: scenario, rate, concurrency, sessions, duration, seed."""
        return dict(self.summary.config.get("load") or self.summary.scenario)

    @property
    def scenario(self) -> str:
        return str(self.load.get("scenario") or "single-stream")

    @property
    def model(self) -> str:
        return str(self.summary.endpoint.model or self.summary.config.get("model") or "unknown")

    @property
    def agentx(self) -> bool:
        """Whether the run was an ``--agentx`` replay (the scenario's block in the summary)."""
        return bool(self.summary.agentx) or bool(self.summary.config.get("agentx"))

    @property
    def gpus(self) -> int:
        trees = self.summary.trees or {}
        return int(trees.get("gpus") or self.summary.config.get("gpus")
                   or self.options.get("gpus") or 1)

    def concurrency(self) -> int | None:
        """The load's fixed concurrency: 1 for single-stream, the streams (or lanes) of a
        closed loop or multi-stream; None for a paced (``--rate``), offline or trace-timed
        load."""
        if self.scenario == "single-stream":
            return 1
        if self.scenario in ("concurrency", "multi-stream") and self.load.get("concurrency"):
            return int(self.load["concurrency"])
        return None

    def config_id(self) -> str:
        """A hash of the run's options (what another run with the same options shares)."""
        text = json.dumps(self.options or self.summary.config, sort_keys=True,
                          default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:32]


def open_run(path: Path, label: str | None = None) -> RunFolder:
    """The run folder at ``path``; UsageError when it is not a finished run."""
    if not path.is_dir():
        raise UsageError(f"{path}: no such run folder")
    if not (path / "summary.json").is_file():
        raise UsageError(f"{path}: not a finished run folder (no summary.json; "
                         f"`agentic-bench report {path}` rebuilds it from records.jsonl)")
    summary = _read_summary(path / "summary.json")
    run: Record = {}
    records = run_records_path(path)
    if records.exists():
        run = next((r for r in iter_records(records) if r.get("type") == "run"), {})
    return RunFolder(path, summary, run, label or path.name)


@dataclass(frozen=True)
class Target:
    """What ``export RUN_DIR`` names: one run, or the points of a sweep or search."""

    path: Path
    points: list[RunFolder]
    kind: str  # "run", "sweep" or "search"
    key: str | None = None  # the swept option (``concurrency``, ``rate``)


def open_target(path: Path) -> Target:
    """A run folder, or a sweep/search folder and each of its points (in its order)."""
    if (path / "summary.json").is_file() or run_records_path(path).exists():
        return Target(path, [open_run(path)], "run")  # (refused there without a summary)
    for kind in ("sweep", "search"):
        index = path / f"{kind}.json"
        if index.is_file():
            data = _read_json(index)
            key = str(data.get("key") or "")
            points: list[RunFolder] = []
            seen: set[Path] = set()
            for point in data.get("points") or []:
                folder = _point_folder(path, key, point)
                if folder not in seen:
                    seen.add(folder)
                    points.append(open_run(folder, folder.name))
            if not points:
                raise UsageError(f"{index}: no points")
            return Target(path, points, kind, key or None)
    raise UsageError(f"{path}: not a run folder (summary.json) nor a sweep or search folder "
                     "(sweep.json, search.json)")


def _point_folder(base: Path, key: str, point: dict[str, Any]) -> Path:
    """A point's folder under ``base``: its recorded ``out_dir``'s name (the folder may have
    moved since), else ``KEY-VALUE`` as ``run_sweep`` names it."""
    if point.get("out_dir"):
        return base / Path(str(point["out_dir"])).name
    value = point.get(key)
    if not isinstance(value, int | float):
        raise UsageError(f"{base}: a point without out_dir or {key!r}")
    return base / f"{key}-{value:g}"


# ---- record helpers shared by the exporters ------------------------------------------------

@dataclass(frozen=True, slots=True)
class Request:
    """What the exporters read of one LLM step record (its per-chunk gaps left behind, so a
    long run's requests fit in memory)."""

    session_id: str
    status: str
    warmup: bool
    error_type: str | None
    ttft_ms: float | None
    tpot_ms: float | None
    request_ms: float | None
    input_tokens: int | None
    output_tokens: int | None
    output_target: int | None  # the recorded reply length (Weka traces)
    synthesized: bool  # the prompt was written to a recorded token count
    scheduled_ns: int | None
    sent_ns: int | None
    end_ns: int | None
    finish_reason: str | None

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) \
        else None


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def request_of(r: Record) -> Request | None:
    """The :class:`Request` of an LLM step record (None for any other record)."""
    if r.get("type") != "step" or r.get("kind") != "llm":
        return None
    ok = r.get("status") == "ok"
    return Request(
        session_id=str(r.get("session_id")), status=str(r.get("status")),
        warmup=bool(r.get("warmup")),
        error_type=None if ok else str(r.get("error_type") or "unknown"),
        ttft_ms=_num(r.get(_TTFT)), tpot_ms=_num(r.get(_TPOT)), request_ms=_num(r.get(_LATENCY)),
        input_tokens=_int(r.get("input_tokens")), output_tokens=_int(r.get("output_tokens")),
        output_target=_int(r.get("output_tokens_target")),
        synthesized=r.get("prompt_tokens_synth") is not None,
        scheduled_ns=_int(r.get("t_scheduled_ns")), sent_ns=_int(r.get("t_sent_ns")),
        end_ns=_int(r.get("t_end_ns")),
        finish_reason=None if r.get("finish_reason") is None else str(r["finish_reason"]))


def requests(records: Iterable[Record]) -> list[Request]:
    """The LLM step records (warm-up included, flagged), in file order."""
    return [q for r in records if (q := request_of(r)) is not None]


def stats(data: Iterable[float], keys: tuple[str, ...] = ("p50", "p75", "p90", "p95", "p99")
          ) -> dict[str, float]:
    """mean, std (population), min, max and the percentiles ``keys`` (``pNN``) of ``data``,
    linear interpolation (numpy's default, as :mod:`agentic_bench.metrics.percentiles`);
    {} when empty."""
    sorted_values = sorted(data)
    if not sorted_values:
        return {}
    n = len(sorted_values)
    mean = math.fsum(sorted_values) / n
    out = {"mean": mean,
           "std": math.sqrt(math.fsum((v - mean) ** 2 for v in sorted_values) / n),
           "min": sorted_values[0], "max": sorted_values[-1]}
    for key in keys:
        out[key] = percentile(sorted_values, float(key[1:]))
    return out


__all__ = ["Record", "Request", "RunFolder", "Target", "open_run", "open_target", "request_of",
           "requests",
           "stats"]
