"""The latency metrics as declarations: one row each, read by every place that shows them.

A row says how a metric's value is derived from one request's timestamps (``derive``: a
function of :class:`~agentic_bench.records.Timestamps`, for the metrics of LLM steps), which
records it comes from (``source``: the run's successful LLM steps, turns or sessions), which
field, its unit, whether lower or higher is better, the SLO key that gates it (if any), what
``compare`` shows of it and what it means. The record constructor
(:func:`~agentic_bench.records.llm_record`) writes each step metric's field from its
``derive`` (:func:`step_derivations`); :func:`latency_block` folds the records into
``summary.json``'s ``latency_ms``; ``summary.txt``, ``compare``, the verdict's SLO keys, the
report's tables and plots, and the generated table of ``docs/metrics.md``
(:func:`markdown_table`; a test fails when the doc is stale) all read the same rows, through
:func:`latency_metrics`, and a reader that needs one metric's field looks it up by name
(:func:`field_of`). Adding a latency metric is one row here, or one ``metric:NAME`` entry point
in the ``agentic_bench.plugins`` group naming a :class:`MetricDecl` (:func:`plugin_metrics`:
loaded once per process, so worker processes, ``report`` and ``compare`` see the same set).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentic_bench.errors import ConfigError
from agentic_bench.metrics.percentiles import describe
from agentic_bench.plugins import PluginRef, discover_plugins
from agentic_bench.records.llm import Derivation, Timestamps, Value
from agentic_bench.units import NS_PER_MS

if TYPE_CHECKING:
    from agentic_bench.metrics.summary_model import Summary

STATS = ("count", "mean", "p50", "p90", "p99", "max")  # what describe() gives, shown in order

# Where a metric is shown (MetricDecl.views). Every metric is in summary.json's latency_ms;
# a view lists it when the view is named in its declaration:
#   summary  summary.txt's and report.html's latency tables
#   cards    report.html's headline cards (each statistic of ``compare``)
#   compare  `agentic-bench compare`'s rows and its A/B figures (each statistic of ``compare``)
#   cdf      compare's distribution plots
#   sweep    a sweep's points (p50, p99) and its throughput-latency chart (p99)
#   roles    the per-role block of an LLM role (rag-e2e: main, grade): step metrics only
#   goodput  its SLO limit (when --slo sets one) gates a session's goodput
VIEWS = ("summary", "cards", "compare", "cdf", "sweep", "roles", "goodput")


@dataclass(frozen=True)
class MetricDecl:
    """One latency metric: where its values come from and how every output shows it.

    ``derive`` (step metrics) computes the value of one request from its
    :class:`~agentic_bench.records.Timestamps` — a number, a list (one per token gap) or
    ``None`` (the field is left out) — and the record constructor writes it to ``field``; a
    metric without one reads ``field`` as some other code wrote it (turn and session
    latencies, a task's own step fields)."""

    name: str  # key in summary.json latency_ms
    label: str  # how tables title it
    source: str  # "step" (ok LLM steps), "turn" (ok turns) or "session" (ok sessions)
    field: str  # the record field; a list field contributes every element
    unit: str
    better: str  # "lower" or "higher"
    slo: str | None  # the --slo key that gates it, if any
    compare: tuple[str, ...]  # the statistics `agentic-bench compare` shows
    description: str
    title: str = ""  # the report's plot title (default: the label)
    derive: Callable[[Timestamps], Value] | None = None  # a request's value from its timestamps
    views: tuple[str, ...] = VIEWS  # where it is shown (VIEWS); a plugin's: everywhere
    missing_fails: bool = False  # a step without a value fails its goodput limit (TTFT)

    @property
    def heading(self) -> str:
        return self.title or self.label

    def values(self, records: Iterable[dict[str, Any]]) -> Iterator[float]:
        for record in records:
            value = record.get(self.field)
            if isinstance(value, list | tuple):
                yield from value
            elif value is not None:
                yield value


def ttft_ns(t: Timestamps) -> int | None:
    """TTFT in ns, the one definition: request bytes sent → first content-carrying chunk (None:
    no such chunk came). The ``ttft`` metric (ms) is derived from it; a file that reports TTFT
    in ns (agentic-edge's ``result_summary.json``) reads it here."""
    return None if t.first_token_ns is None else t.first_token_ns - t.sent_ns


def _ttft(t: Timestamps) -> float | None:
    span = ttft_ns(t)
    return None if span is None else span / NS_PER_MS


def _itl(t: Timestamps) -> list[float]:
    times = t.token_times_ns
    if times and times[0] == times[-1]:  # one read carried every token (the clock is monotonic)
        return [0.0] * (len(times) - 1)
    return [round((b - a) / NS_PER_MS, 4) for a, b in itertools.pairwise(times)]


def _tpot(t: Timestamps) -> float | None:
    if t.first_token_ns is None or t.output_tokens <= 1:
        return None
    return (t.end_ns - t.first_token_ns) / NS_PER_MS / (t.output_tokens - 1)


def _request(t: Timestamps) -> float:
    return (t.end_ns - t.sent_ns) / NS_PER_MS


# the definitions are docs/metrics.md's (the generated table there prints them)
LATENCY: tuple[MetricDecl, ...] = (
    MetricDecl("ttft", "TTFT", "step", "ttft_ms", "ms", "lower", "ttft_p99_ms", ('p50', 'p99'),
               'request bytes sent → first streamed chunk carrying content or a tool-call delta '
               '(a role-only chunk does not count; reasoning deltas do). "Sent" is stamped '
               'immediately before the request bytes are written to an already-open keep-alive '
               'socket (connections are opened before the run); "first chunk" is stamped first '
               "thing in the event loop's read callback for the socket read that completed it "
               '(default `raw` transport, docs/transport.md).', "TTFT", _ttft, missing_fails=True),
    MetricDecl("itl", "ITL", "step", "itl_ms", "ms", "lower", None, ('p50',),
               'gaps between consecutive content-carrying chunks, per chunk (not averaged per '
               'request). Chunks that arrive in one network read share one timestamp (gap 0).',
               "Inter-token latency (ITL)", _itl,
               views=("summary", "cards", "compare", "goodput")),
    MetricDecl("tpot", "TPOT", "step", "tpot_ms", "ms", "lower", "tpot_p99_ms", ('p50', 'p99'),
               '(end − first token) / (output_tokens − 1). `output_tokens` come from the '
               "server's `usage` (the request asks `stream_options.include_usage`); when the "
               'server sends none, the number of content-carrying chunks is used. '
               '`harness.token_source` in summary.json counts which source each request used '
               '(`usage` or `chunks`).', "Time per output token (TPOT)", _tpot),
    MetricDecl("request", "request", "step", "request_ms", "ms", "lower", None, ('p50', 'p99'),
               "sent → arrival of the stream's last bytes.", "Request latency", _request,
               views=("summary", "cards", "compare", "sweep", "roles", "goodput")),
    MetricDecl("turn", "turn", "turn", "latency_ms", "ms", "lower", "turn_p90_ms", ('p50', 'p99'),
               'user message issued (after think time) → final assistant reply of that turn, '
               'including tool, retrieve and rerank steps.', "Turn latency",
               views=("summary", "compare", "cdf", "goodput")),
    MetricDecl("session", "session", "session", "latency_ms", "ms", "lower", None, ('p50', 'p99'),
               'first step scheduled → last step done.', "Session latency",
               views=("summary", "compare", "goodput")),
)


@dataclass(frozen=True)
class FigureDecl:
    """A run-level figure of summary.json (one number, found at ``path``)."""

    label: str  # how compare titles it
    path: tuple[str, ...]
    unit: str
    better: str  # "lower", "higher" or "" (no direction: the verdict)
    description: str
    report: str = ""  # its row in the report's rates table ("": shown elsewhere there)
    percent: bool = False  # a fraction in summary.json, shown as a percentage everywhere


def shown_figure(decl: FigureDecl, value: Any) -> Any:
    """The figure as people read it: a fraction (0..1) as "57.1%" in every output; other values
    as they are."""
    if decl.percent and isinstance(value, int | float) and not isinstance(value, bool) \
            and 0.0 <= value <= 1.0:
        return f"{value * 100:.1f}%"
    return value


FIGURES: tuple[FigureDecl, ...] = (
    FigureDecl("requests/s", ("throughput", "requests_per_s"), "1/s", "higher",
               "successful requests / run duration", "requests/s"),
    FigureDecl("output tok/s", ("throughput", "output_tokens_per_s"), "1/s", "higher",
               "output tokens of successful requests / run duration", "output tokens/s"),
    FigureDecl("sessions/s", ("throughput", "sessions_per_s"), "1/s", "higher",
               "sessions completed without error / run duration", "sessions/s"),
    FigureDecl("goodput", ("goodput", "sessions_per_s"), "sess/s", "higher",
               "sessions per second that met every SLO",
               "goodput (sessions/s meeting every SLO)"),
    FigureDecl("interactivity", ("interactivity", "e2e_avg_interactivity"), "tok/s", "higher",
               "MLCommons endpoints' e2e_avg_interactivity",
               "interactivity, e2e avg (tok/s per user)"),
    FigureDecl("prefix-cache hit rate", ("prefix_cache", "hit_rate"), "%", "higher",
               "cached / prompt tokens, as the server reports them", "prefix-cache hit rate",
               percent=True),
    FigureDecl("errors", ("counts", "errors"), "", "lower", "failed requests and stages"),
    FigureDecl("accuracy", ("accuracy", "headline"), "%", "higher",
               "the benchmark's headline accuracy (a fraction in summary.json)", percent=True),
    FigureDecl("correct tasks in SLO", ("tasks", "correct_within_slo"), "", "higher",
               "(scored runs) tasks scored correct whose session met every SLO"),
    FigureDecl("task goodput", ("tasks", "task_goodput_per_s"), "tasks/s", "higher",
               "(scored runs) correct tasks within every SLO / run duration"),
    FigureDecl("pass^k", ("tasks", "pass_hat_k"), "%", "higher",
               "(--trials K) chance all K trials of a task are correct, mean over tasks",
               percent=True),
    FigureDecl("result", ("result",), "", "", "VALID or INVALID"),
)
BY_NAME = {decl.name: decl for decl in LATENCY}
FIGURE_BY_LABEL = {decl.label: decl for decl in FIGURES}


def figure_value(summary: Summary | dict[str, Any], path: Sequence[str]) -> Any:
    """The value at ``path`` in a summary (None where the summary lacks it): a typed block's
    field as given (:meth:`~agentic_bench.metrics.summary_model.Block.given`), a plain
    block's key."""
    from agentic_bench.metrics.summary_model import Block  # pydantic: only where it is read

    node: Any = summary
    for key in path:
        if isinstance(node, Block):
            node = node.given(key)
        elif isinstance(node, dict):
            node = node.get(key)
        else:
            return None
    return node


def step_value(name: str, stamps: Timestamps) -> Value:
    """The declared step metric ``name`` of one request (``"ttft"`` → its TTFT in ms): its
    declaration's ``derive``, as the record constructor writes it into the record the summary
    is computed from — for a reader that needs the value of a request it does not record."""
    derive = BY_NAME[name].derive
    if derive is None:
        raise ValueError(f"metric {name!r} is not derived from a request's timestamps")
    return derive(stamps)


def field_of(name: str) -> str:
    """The record field of the declared metric ``name`` (``"ttft"`` → its field): how a reader
    that needs one metric finds it, rather than spelling the field out."""
    return BY_NAME[name].field


_DECLARED: list[MetricDecl] = list(LATENCY)  # the built-ins, then any declare_latency() adds
_PLUGINS: tuple[MetricDecl, ...] | None = None  # loaded on first use, once per process
SOURCES = ("step", "turn", "session")


def latency_metrics() -> tuple[MetricDecl, ...]:
    """Every declared latency metric: the built-ins (:data:`LATENCY`), then those of the
    installed ``metric:`` plugins (:func:`plugin_metrics`). Every reader asks here when it
    runs, so one declaration reaches the records, summary.json, summary.txt, the report,
    compare and the SLO keys — in every process, a worker's as the parent's."""
    return (*_DECLARED, *plugin_metrics())


def shown_in(view: str) -> tuple[MetricDecl, ...]:
    """The declared metrics a view shows (:data:`VIEWS`), in declaration order: how every
    output picks its metrics, so a declared metric (a plugin's) reaches it with no other
    edit. The ``roles`` view holds step metrics only (a role's block is of its LLM calls)."""
    if view not in VIEWS:
        raise ValueError(f"unknown metric view {view!r} (one of {', '.join(VIEWS)})")
    return tuple(d for d in latency_metrics() if view in d.views
                 and (view != "roles" or d.source == "step"))


def shown_latency(latency: Iterable[str]) -> list[str]:
    """The names of a summary's ``latency_ms`` its latency tables show: the ``summary`` view's
    in declaration order, then any the summary has that is not declared here (a metric of a
    plugin not installed where it is read); a declared metric left out of the view is not."""
    present = list(latency)
    shown = [d.name for d in shown_in("summary") if d.name in present]
    declared = {d.name for d in latency_metrics()}
    return shown + [name for name in present if name not in declared]


def step_derivations() -> list[Derivation]:
    """``(field, derive)`` of every declared step metric that derives its value: what
    :func:`~agentic_bench.records.llm_record` writes into an LLM call's record (asked per
    request: kept while the same declarations and loaded plugins stand)."""
    plugins = plugin_metrics()
    if _STEP.plugins is not plugins or _STEP.declared != _STEP.changes:
        _STEP.plugins, _STEP.declared = plugins, _STEP.changes
        _STEP.derivations = [(d.field, d.derive) for d in latency_metrics()
                             if d.source == "step" and d.derive is not None]
    return _STEP.derivations


@dataclass
class _StepCache:
    plugins: tuple[MetricDecl, ...] | None = None
    declared: int = -1  # the count of declaration changes the derivations were taken at
    changes: int = 0  # declare_latency() and the end of declared_latency() count one each
    derivations: list[Derivation] = field(default_factory=list)


_STEP = _StepCache()


def plugin_metrics() -> tuple[MetricDecl, ...]:
    """The metrics of the installed plugins (entry points ``metric:NAME`` in the
    ``agentic_bench.plugins`` group, each naming a :class:`MetricDecl` or an object with its
    fields), in name order; loaded once per process. A plugin that fails to load, or whose
    metric clashes with a declared one, raises a :class:`ConfigError` naming it."""
    global _PLUGINS
    if _PLUGINS is None:
        taken = list(_DECLARED)
        for ref in sorted(discover_plugins("metric").values(), key=lambda r: r.name):
            taken.append(_plugin_metric(ref, taken))
        _PLUGINS = tuple(taken[len(_DECLARED):])
    return _PLUGINS


def reload_plugin_metrics() -> tuple[MetricDecl, ...]:
    """Forget the loaded plugin metrics and load them again (after installing one)."""
    global _PLUGINS
    _PLUGINS = None
    return plugin_metrics()


def _plugin_metric(ref: PluginRef, taken: Sequence[MetricDecl]) -> MetricDecl:
    obj = ref.load()
    where = f"metric plugin {ref.entry_point.name!r} ({ref.source})"
    try:
        decl = obj if isinstance(obj, MetricDecl) else MetricDecl(
            obj.name, obj.label, obj.source, obj.field, obj.unit, obj.better, obj.slo,
            tuple(obj.compare), obj.description, getattr(obj, "title", ""),
            getattr(obj, "derive", None), tuple(getattr(obj, "views", VIEWS)),
            bool(getattr(obj, "missing_fails", False)))
    except (AttributeError, TypeError) as exc:
        raise ConfigError(f"{where}: not a metric declaration: {exc}") from exc
    problems = []
    if decl.name != ref.name:
        problems.append(f"its metric is named {decl.name!r}, its entry point {ref.name!r}")
    if decl.source not in SOURCES:
        problems.append(f"source {decl.source!r} is not one of {', '.join(SOURCES)}")
    if unknown := [v for v in decl.views if v not in VIEWS]:
        problems.append(f"views {unknown} are not among {', '.join(VIEWS)}")
    if decl.derive is not None and not callable(decl.derive):
        problems.append("`derive` is not callable")
    for other in taken:
        if other.name == decl.name or (decl.slo and other.slo == decl.slo) \
                or (other.source == decl.source and other.field == decl.field):
            problems.append(f"it clashes with the declared metric {other.name!r} "
                            "(same name, SLO key or record field)")
    if problems:
        raise ConfigError(f"{where}: {'; '.join(problems)}")
    return decl


def declare_latency(decl: MetricDecl) -> None:
    """Add a latency metric in this process only (a test's); its name and SLO key must be new.
    A plugin declares its metric through a ``metric:NAME`` entry point instead, which every
    process sees."""
    if any(d.name == decl.name or (decl.slo and d.slo == decl.slo)
           for d in latency_metrics()):
        raise ValueError(f"latency metric {decl.name!r} (or SLO key {decl.slo!r}) is declared")
    _DECLARED.append(decl)
    _STEP.changes += 1


@contextmanager
def declared_latency(decl: MetricDecl) -> Iterator[MetricDecl]:
    """:func:`declare_latency` for the duration of a ``with`` block."""
    declare_latency(decl)
    try:
        yield decl
    finally:
        _DECLARED.remove(decl)
        _STEP.changes += 1


def slo_limits() -> dict[str, tuple[str, str]]:
    """Each declared SLO key → (metric, statistic): ``ttft_p99_ms`` → (``ttft``, ``p99``); keys
    are named ``<metric>_<statistic>_<unit>``."""
    return {d.slo: (d.name, d.slo.removeprefix(f"{d.name}_").split("_")[0])
            for d in latency_metrics() if d.slo}


def in_latency_population(record: dict[str, Any]) -> bool:
    """The one rule for whose latencies a figure counts — the summary's, the report's charts
    and tables, compare's: a measured record (not a lane's warm-up) that succeeded, and for a
    turn or session a whole one (not begun mid-trajectory, ``partial``)."""
    if record.get("warmup") or record.get("status") != "ok":
        return False
    return record.get("type") == "step" or not record.get("partial")


def latency_values(steps: Sequence[dict[str, Any]], turns: Sequence[dict[str, Any]],
                   sessions: Sequence[dict[str, Any]]) -> dict[str, list[float]]:
    """Each declared metric's values over its (successful) records, in declaration order."""
    sources = {"step": steps, "turn": turns, "session": sessions}
    return {decl.name: list(decl.values(sources[decl.source])) for decl in latency_metrics()}


def latency_block(steps: Sequence[dict[str, Any]], turns: Sequence[dict[str, Any]],
                  sessions: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """``summary.json``'s ``latency_ms``: each declared metric over its (successful) records."""
    return {name: describe(values)
            for name, values in latency_values(steps, turns, sessions).items()}


def markdown_table() -> str:
    """The table of docs/metrics.md between its ``metrics-table`` markers: the built-in
    metrics (and a test's declared ones), not those of whatever plugins are installed."""
    rows = ["| metric | from | field | unit | better | SLO key | compare | definition |",
            "|---|---|---|---|---|---|---|---|"]
    for d in _DECLARED:
        rows.append(f"| `{d.name}` ({d.label}) | ok {d.source}s | `{d.field}` | {d.unit} | "
                    f"{d.better} | {f'`{d.slo}`' if d.slo else '-'} | {', '.join(d.compare)} | "
                    f"{d.description} |")
    return "\n".join(rows)



START, END = "<!-- metrics-table:start -->", "<!-- metrics-table:end -->"


def figures_table() -> str:
    """The run-level figures `compare` shows (the second generated table of docs/metrics.md)."""
    rows = ["| figure | summary.json path | unit | better | meaning |", "|---|---|---|---|---|"]
    rows += [f"| {f.label} | `{'.'.join(f.path)}` | "
             f"{'fraction, shown as %' if f.percent else f.unit or '-'} | {f.better or '-'} | "
             f"{f.description} |" for f in FIGURES]
    return "\n".join(rows)


def render_doc(text: str) -> str:
    """``text`` (docs/metrics.md) with the generated table between its markers."""
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    return (f"{head}{START}\n{markdown_table()}\n\nRun-level figures (also compared by "
            f"`agentic-bench compare`):\n\n{figures_table()}\n{END}{tail}")


__all__ = [
    "BY_NAME",
    "FIGURES",
    "LATENCY",
    "SOURCES",
    "STATS",
    "VIEWS",
    "FigureDecl",
    "MetricDecl",
    "declare_latency",
    "declared_latency",
    "field_of",
    "figure_value",
    "figures_table",
    "in_latency_population",
    "latency_block",
    "latency_metrics",
    "latency_values",
    "markdown_table",
    "plugin_metrics",
    "reload_plugin_metrics",
    "render_doc",
    "shown_in",
    "shown_latency",
    "slo_limits",
    "step_derivations",
    "step_value",
    "ttft_ns",
]


if __name__ == "__main__":  # python -m agentic_bench.metrics.declarations [docs/metrics.md]
    import sys
    from pathlib import Path

    doc = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/metrics.md")
    doc.write_text(render_doc(doc.read_text(encoding="utf-8")), encoding="utf-8")
