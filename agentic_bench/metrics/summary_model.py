"""``summary.json`` as a typed model: :class:`Summary`, read by attribute.

The summariser (:func:`~agentic_bench.metrics.aggregate.summary_of`) assembles the summary;
:meth:`Summary.of` takes it (or a ``summary.json`` read back) and the readers read
``summary.counts.requests``, ``summary.latency_ms["ttft"].p99`` and so on, where a mistyped
key is a type error, not a ``KeyError`` at run time. The model is versioned as the file is
(``schema`` = :data:`SUMMARY_SCHEMA`, ``version`` = :data:`SUMMARY_VERSION`).

The blocks every summary has are typed sub-models (:class:`Counts`, :class:`Stats`,
:class:`Throughput`, :class:`Goodput`, :class:`ToolCalls`, :class:`Harness`,
:class:`Constraint`, :class:`Endpoint`, :class:`Load`, :class:`Intervals`); a block a task
or a run mode adds (``accuracy``, ``workload``, ``loadgen``, ``trees``...) is a typed field
holding its plain dictionary, and a key no field names is kept as it came (``extra="allow"``:
a task's own block, or a key a later version adds).

The round trip is exact: :meth:`Summary.to_dict` gives back the dictionary it was made from,
the keys in the same order and only the keys it had (a field never given is not written), so
:meth:`Summary.to_json` of a ``summary.json`` read back is the file's bytes
(tests/unit/metrics/test_summary_model.py checks every committed one and a fresh run's).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    ValidationError,
    ValidatorFunctionWrapHandler,
    model_serializer,
    model_validator,
)

SUMMARY_SCHEMA = "agentic-bench/summary"
SUMMARY_VERSION = 1

Number = int | float  # an int stays an int and a float a float (the bytes round-trip)


class Block(BaseModel):
    """A block of ``summary.json``: typed fields, any other key kept as given, and a dump in
    the order the keys came, holding only the keys given or set since."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
    _order: list[str] = PrivateAttr(default_factory=list)

    @model_validator(mode="wrap")
    @classmethod
    def _remember_order(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        block = handler(data)
        if isinstance(data, dict) and isinstance(block, Block):
            block._order = list(data)
        return block

    def to_dict(self) -> dict[str, Any]:
        """The dictionary this block was made from, with what was set since (key order kept)."""
        return self.model_dump(mode="python", by_alias=True)

    def given(self, name: str, missing: Any = None) -> Any:
        """Field ``name`` when the block had it (or it was set since), else ``missing``: for a
        reader that shows "-" for a figure an older or partial summary lacks, not the
        default."""
        return getattr(self, name) if name in self.model_fields_set else missing

    @model_serializer(mode="wrap")
    def _in_given_order(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        dumped: dict[str, Any] = handler(self)
        present = {self._key(name) for name in self.model_fields_set}
        present.update(self.__pydantic_extra__ or {})
        keys = [k for k in self._order if k in present]
        keys += [k for k in dumped if k in present and k not in keys]
        return {k: dumped[k] for k in keys if k in dumped}

    @classmethod
    def _key(cls, name: str) -> str:
        alias = cls.model_fields[name].alias if name in cls.model_fields else None
        return alias or name


class Stats(Block):
    """A distribution (:func:`~agentic_bench.metrics.percentiles.describe`): ``count`` and
    the statistics, each None when there was no value."""

    count: int = 0
    mean: Number | None = None
    min: Number | None = None
    p50: Number | None = None
    p90: Number | None = None
    p95: Number | None = None
    p99: Number | None = None
    max: Number | None = None

    def stat(self, name: str) -> Number | None:
        """The statistic ``name`` ("p99", "mean"...), None when it is not one of these."""
        value = getattr(self, name, None) if name in Stats.model_fields else None
        return value if isinstance(value, int | float) else None


class Counts(Block):
    sessions: int = 0
    sessions_ok: int = 0
    turns: int = 0
    turns_ok: int = 0
    missing_turns: int = 0
    requests: int = 0
    requests_ok: int = 0
    errors: int = 0
    errors_by_type: dict[str, int] = Field(default_factory=dict)
    internal_errors: int = 0
    retries: int = 0
    unmatched_tool_calls: int = 0
    output_tokens: int = 0


class Throughput(Block):
    requests_per_s: Number = 0.0
    output_tokens_per_s: Number = 0.0
    sessions_per_s: Number = 0.0


class Goodput(Block):
    """Sessions that met every SLO (``sessions``; absent from summaries before it was kept)."""

    sessions_per_s: Number = 0.0
    sessions: int | None = None


class ToolCalls(Block):
    scored: int = 0
    matched: int = 0
    match_rate: Number | None = None


class Harness(Block):
    """The client's own timing: schedule lag; for prompts given as blocks their writing time,
    how many were written ahead of their send and how many were ready late, each send's
    lateness against its due instant; the client's share of TTFT against a timestamping
    server (replay/prompt_ahead.py, records/client_share.py)."""

    schedule_lag_ms: Stats = Field(default_factory=Stats)
    prompt_build_ms: Stats = Field(default_factory=Stats)
    prompt_ahead: int = 0
    prompt_late: int = 0
    send_late_ms: Stats = Field(default_factory=Stats)
    client_share_ms: Stats = Field(default_factory=Stats)
    token_source: dict[str, int] = Field(default_factory=dict)
    truncated_record_lines: int = 0


class Constraint(Block):
    """One row of the verdict: the figure, its limit and whether it holds."""

    name: str
    value: Any = None
    limit: Any = None
    op: str = ""
    ok: bool = False
    rule: str | None = None


class Endpoint(Block):
    url: str | None = None
    kind: str | None = None
    model: str | None = None
    client: str | None = None
    server: str | None = None
    restarts: list[Any] | None = None
    restart_waits: Any = None


class InFlight(Block):
    mean: Number | None = None
    max: Number | None = None


class Load(Block):
    """How much load the run held (:mod:`~agentic_bench.metrics.load_reached`); ``short``
    says how it fell short of the load named."""

    sessions_in_flight: InFlight | None = None
    requests_in_flight: InFlight | None = None
    named_streams: int | None = None
    arrival_rate: Number | None = None
    named_rate: Number | None = None
    short: str | None = None


class ScoredTasks(Block):
    """Task goodput of a scored run (:mod:`~agentic_bench.metrics.scored_tasks`): tasks scored,
    correct, correct within every SLO, per second with its interval, why the others did not
    count and, with ``--trials``, pass@k / pass^k and the latency spread across trials."""

    scored: int = 0
    correct: int = 0
    correct_within_slo: int = 0
    accuracy: Number | None = None
    accuracy_interval: list[float] | None = None
    within_slo_fraction: Number | None = None
    within_slo_interval: list[float] | None = None
    task_goodput_per_s: Number = 0.0
    task_goodput_interval: list[float] | None = None
    causes: dict[str, int] = Field(default_factory=dict)
    slos: dict[str, Number] = Field(default_factory=dict)
    trials: int | None = None  # --trials K
    tasks_fewer_trials: int | None = None  # tasks short of trials 0 … K − 1: not in pass_k
    extra_trials: int | None = None  # scored sessions of trial K or later: not in pass_k
    pass_hat_k: Number | None = None  # at k = K over the tasks with all K trials
    pass_at_k: Number | None = None
    pass_k: dict[str, Any] | None = None
    latency_across_trials: dict[str, Any] | None = None

    def pass_hat(self, k: int | None = None) -> Number | None:
        """pass^k at ``k`` (default: the most trials every task had); None without trials."""
        block = self.pass_k or {}
        row = (block.get("k") or {}).get(str(k if k is not None else block.get("trials")))
        return None if row is None else row.get("pass_hat_k")


Bounds = list[Number]  # [lo, hi] of a 95 % interval


class Intervals(Block):
    """The headline figures' 95 % intervals (:mod:`~agentic_bench.metrics.intervals`): per
    latency metric and statistic, per rate, the goodput fraction and the accuracy; ``note``
    (too few sessions) or ``error`` (not computed) where there are none."""

    confidence: Number | None = None
    method: str = ""
    resamples: int | None = None
    seed: int | None = None
    sessions_used: int = 0
    sessions_left_out: int = 0
    latency_ms: dict[str, dict[str, Bounds]] = Field(default_factory=dict)
    throughput: dict[str, Bounds] = Field(default_factory=dict)
    goodput_fraction: Bounds | None = None
    accuracy: Bounds | None = None
    note: str | None = None
    error: str | None = None


class Summary(Block):
    """``summary.json``. The core blocks are typed; the blocks of a run mode or task are typed
    fields over their plain dictionary; any other key is kept as it came."""

    schema_: str = Field(SUMMARY_SCHEMA, alias="schema")
    version: int = SUMMARY_VERSION
    benchmark: str = ""
    complete: bool = False
    stop_reason: str = "done"
    duration_s: Number = 0.0
    counts: Counts = Field(default_factory=Counts)
    latency_ms: dict[str, Stats] = Field(default_factory=dict)
    stages_ms: dict[str, Stats] = Field(default_factory=dict)
    throughput: Throughput = Field(default_factory=Throughput)
    goodput: Goodput = Field(default_factory=Goodput)
    interactivity: dict[str, Any] | None = None
    tool_calls: ToolCalls = Field(default_factory=ToolCalls)
    accuracy: dict[str, Any] | None = None
    harness: Harness = Field(default_factory=Harness)
    slos: dict[str, Number] = Field(default_factory=dict)
    config: dict[str, Any] = Field(default_factory=dict)
    started_at: str | None = None
    scenario: dict[str, Any] = Field(default_factory=dict)
    endpoint: Endpoint = Field(default_factory=Endpoint)
    workload: dict[str, Any] = Field(default_factory=dict)
    versions: dict[str, str] = Field(default_factory=dict)
    client_cpu_s: Number | None = None
    host_cpu: dict[str, Any] | None = None
    out_dir: str | None = None
    command_line: str | None = None
    resumed_sessions: int = 0
    planned_sessions: int | None = None
    resume_command: str | None = None
    loadgen: dict[str, Any] | None = None
    agentx: dict[str, Any] | None = None
    server_metrics: dict[str, Any] | None = None
    records_unwritten: dict[str, Any] | None = None
    prefix_cache: dict[str, Any] | None = None
    fanout: dict[str, Any] | None = None
    warmup: dict[str, int] | None = None
    failure: str | None = None
    load: Load | None = None
    trees: dict[str, Any] | None = None
    roles: dict[str, dict[str, Any]] = Field(default_factory=dict)
    phases: dict[str, dict[str, Any]] = Field(default_factory=dict)
    constraints: list[Constraint] = Field(default_factory=list)
    result: str = "INVALID"
    report_sample: dict[str, Any] | None = None
    energy: dict[str, Any] | None = None
    fidelity: dict[str, Any] | None = None
    intervals: Intervals | None = None
    tasks: ScoredTasks | None = None  # task goodput of a scored run (metrics/scored_tasks.py)
    regenerated: str | None = None
    # e2e-rag-db's build summary (tasks/rag_e2e/db_run.py): the reference benchmark, the DB
    db: dict[str, Any] | None = None
    mlperf_benchmark: str | None = None
    waterfall_session: str | None = None  # the session report.html draws (report --session)

    @classmethod
    def of(cls, summary: Summary | dict[str, Any]) -> Summary:
        """``summary`` as a :class:`Summary` (the same object when it is one already)."""
        return summary if isinstance(summary, Summary) else cls.model_validate(summary)

    @classmethod
    def from_json(cls, text: str) -> Summary:
        return cls.model_validate(json.loads(text))

    @classmethod
    def read(cls, path: Path) -> Summary:
        """The ``summary.json`` at ``path``."""
        return cls.from_json(path.read_text(encoding="utf-8"))

    def to_json(self) -> str:
        """``summary.json``'s text (strict JSON, two-space indent, a final newline)."""
        return json.dumps(self.to_dict(), indent=2, default=str, allow_nan=False) + "\n"

    def latency(self, metric: str, stat: str) -> Number | None:
        """One statistic of a declared latency metric (None when the summary has none)."""
        stats = self.latency_ms.get(metric)
        return None if stats is None else stats.stat(stat)

    def latency_block(self, metric: str) -> dict[str, Any] | None:
        """A declared latency metric's block as summary.json has it (None when absent): for an
        export that copies it whole."""
        stats = self.latency_ms.get(metric)
        return None if stats is None else stats.to_dict()

    def constraint_rows(self) -> list[dict[str, Any]] | None:
        """The verdict's rows as summary.json has them (None when the summary has none)."""
        if "constraints" not in self.model_fields_set:
            return None
        return [row.to_dict() for row in self.constraints]

    @property
    def valid(self) -> bool:
        return self.result == "VALID"


# what a message says a field expected, by pydantic's error type (else pydantic's own words)
_EXPECTED = {"dict_type": "an object", "model_type": "an object", "string_type": "a string",
             "int_type": "an integer", "int_parsing": "an integer",
             "int_from_float": "an integer", "float_type": "a number",
             "float_parsing": "a number", "bool_type": "true or false",
             "bool_parsing": "true or false", "list_type": "a list", "missing": "a value"}


def json_kind(value: Any) -> str:
    """A JSON value as a message names what it got: ``a list``, ``a string``, ``3``, ``null``."""
    for kind, name in ((list, "a list"), (str, "a string"), (dict, "an object")):
        if isinstance(value, kind):
            return name
    return json.dumps(value, default=str)  # a number, true, false or null


def why_invalid(error: ValidationError) -> str:
    """The first field a summary.json read back got wrong, in one line:
    ``loadgen: expected an object, got 3`` (for a reader's :class:`UsageError`)."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "the summary"
    expected = _EXPECTED.get(first["type"], str(first["msg"]).lower())
    return f"{where}: expected {expected}, got {json_kind(first.get('input'))}"


__all__ = [
    "SUMMARY_SCHEMA",
    "SUMMARY_VERSION",
    "Block",
    "Constraint",
    "Counts",
    "Endpoint",
    "Goodput",
    "Harness",
    "InFlight",
    "Intervals",
    "Load",
    "ScoredTasks",
    "Stats",
    "Summary",
    "Throughput",
    "ToolCalls",
    "json_kind",
    "why_invalid",
]
