"""``run_with_loadgen``: the LoadGen counterpart of the runner call in
:mod:`agentic_bench.run.segments`.

LoadGen (``StartTestWithLogSettings``) blocks, so it runs in its own thread; the sessions run on
the caller's asyncio loop, where the endpoint's connections live. The call returns a
:class:`LoadgenSegment` (a ``contracts.Segment`` plus the parsed LoadGen results for summary.json).
"""

from __future__ import annotations

import asyncio
import math
import signal
import sys
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from time import perf_counter_ns
from typing import Any

from agentic_bench.contracts import ExecContext, RecordSink, Segment, Workload
from agentic_bench.endpoint.resolve import Endpoint
from agentic_bench.errors import ConfigError
from agentic_bench.loadgen.accuracy import score_accuracy_log
from agentic_bench.loadgen.compare import compare_latencies
from agentic_bench.loadgen.conf_files import AUDIT_CONF, USER_CONF, copy_conf
from agentic_bench.loadgen.logs import ACCURACY_FILE, loadgen_result
from agentic_bench.loadgen.settings import (
    SettingsPlan,
    build_test_settings,
    plan_settings,
    settings_snapshot,
)
from agentic_bench.loadgen.sut import SessionSut
from agentic_bench.loadgen.test09 import finish_test09
from agentic_bench.options.load import LoadSpec
from agentic_bench.options.loadgen import INSTALL_HINT, LoadgenOptions
from agentic_bench.options.replay import ReplayOptions
from agentic_bench.workload import session_executor

# LoadGen's issue thread needs the GIL to call issue_queries; while the loop thread runs Python
# it waits up to the interpreter's switch interval (5 ms by default) — time LoadGen counts as
# latency and we cannot see. A shorter interval bounds that wait (it only matters while two
# threads contend for the GIL).
SWITCH_INTERVAL_S = 0.0005


@dataclass
class LoadgenSegment(Segment):
    loadgen: dict[str, Any] = field(default_factory=dict)
    accuracy: dict[str, Any] | None = None


def import_loadgen() -> Any:
    try:
        import mlperf_loadgen
    except ImportError:
        raise ConfigError(INSTALL_HINT) from None
    return mlperf_loadgen


async def run_with_loadgen(
    workload: Workload, endpoint: Endpoint, out: Path, sink: RecordSink, *, load: LoadSpec,
    slos: dict[str, float], replay: ReplayOptions, transport_kind: str | None = None,
    t0_ns: int | None = None, options: LoadgenOptions | None = None, lg: Any = None,
    install_signals: bool = True,
) -> LoadgenSegment:
    """Run ``workload`` with LoadGen issuing its sessions under ``load`` (its scenario,
    concurrency cap and grace) and ``slos`` (the benchmark's defaults with the run's), each
    session's requests made as ``replay`` says; LoadGen's logs go into ``out`` (or, with
    ``layout="submission"``, into ``out/performance/run_1``, ``out/accuracy`` or
    ``out/TEST09/performance/run_1`` by mode; the conf used is copied to ``out/user.conf``)."""
    opts = options or LoadgenOptions(scenario=load.scenario)
    lg = lg or import_loadgen()
    plan = plan_settings(opts, load, slos, workload.source.size, workload.name)
    out.mkdir(parents=True, exist_ok=True)
    files = _conf_copies(opts, plan, out, workload.source.size)
    ts = build_test_settings(lg, plan)
    t0 = perf_counter_ns() if t0_ns is None else t0_ns
    loop = asyncio.get_running_loop()
    capped = load.concurrency if plan.scenario in ("Offline", "Server") else None
    sut = SessionSut(lg, loop, workload.source, sink, t0_ns=t0,
                     token_latencies=bool(ts.use_token_latencies), max_in_flight=capped,
                     keep_records=opts.mode == "accuracy", token_stage=opts.token_stage,
                     json_payload=opts.mode == "accuracy")
    ctx = ExecContext(endpoint.transport, sut.sink, t0, replay, transport_kind=transport_kind)
    sut.execute = session_executor(workload, ctx)
    logs = out / opts.log_dir if opts.log_dir else out
    logs.mkdir(parents=True, exist_ok=True)
    grace = load.grace_s
    stop = _Interrupt(sut, grace) if install_signals else None
    t_start = perf_counter_ns()
    audit = files.get("audit_path")
    await _start_test(lg, sut, ts, log_settings(lg, logs), workload.source.size, stop,
                      None if audit is None else str(audit))
    await sut.drain(grace)
    t_end = perf_counter_ns()
    await ctx.close_extras()
    trace = logs / "mlperf_log_trace.json"  # written (empty) even with tracing off
    if trace.is_file() and trace.stat().st_size == 0:
        trace.unlink()
    result = loadgen_result(logs)
    result.update({
        "log_dir": opts.log_dir or ".", "options": opts.public(), "conf_model": plan.model,
        "settings": settings_snapshot(ts),
        "sut": _sut_block(sut),
        "comparison": compare_latencies(sut.queries, result, sut.stats.skipped),
        **{k: v for k, v in files.items() if k in ("conf", "audit")},
    })
    if opts.mode == "TEST09" and audit is not None:
        test_dir = out / "TEST09" if opts.layout == "submission" else out
        result["test09"] = finish_test09(test_dir, logs, audit)
    accuracy = None
    if opts.mode == "accuracy":
        accuracy_block = score_accuracy_log(logs / ACCURACY_FILE, sut.records, workload.score)
        result["accuracy"] = accuracy_block
        accuracy = accuracy_block["score"]
    interrupted = stop is not None and stop.hits > 0
    first, last = sut.stats.t_first_issue_ns, sut.stats.t_last_done_ns
    duration_ns = last - first if first is not None and last is not None else t_end - t_start
    return LoadgenSegment(
        duration_s=duration_ns / 1e9, stop_reason="interrupted" if interrupted else "done",
        issued=sut.stats.issued, cancelled=sut.stats.cancelled, loadgen=result,
        accuracy=accuracy)


def _conf_copies(opts: LoadgenOptions, plan: SettingsPlan, out: Path,
                 qsl_size: int) -> dict[str, Any]:
    """Copy the conf (and audit) files into the run folder; LoadGen reads the copies."""
    fit_to = None
    if opts.layout == "submission":
        spq = plan.merged().get("multi_stream_samples_per_query", 1) \
            if plan.scenario == "MultiStream" else 1
        fit_to = max(1, math.ceil(qsl_size / spq))
    found: dict[str, Any] = {}
    if plan.conf is not None:
        found["conf"] = copy_conf(Path(plan.conf), out / USER_CONF, model=plan.model,
                                  scenario=plan.scenario, fit_to=fit_to)
        plan.conf = out / USER_CONF
    if opts.audit is not None:
        folder = out / "TEST09" if opts.mode == "TEST09" and opts.layout == "submission" \
            else out
        found["audit"] = copy_conf(Path(opts.audit), folder / AUDIT_CONF, model=plan.model,
                                   scenario=plan.scenario, fit_to=fit_to)
        found["audit_path"] = folder / AUDIT_CONF
    return found


def log_settings(lg: Any, out: Path) -> Any:
    """LoadGen's log settings: files into ``out``, no trace, nothing on stdout."""
    output = lg.LogOutputSettings()
    output.outdir = str(out)
    output.copy_summary_to_stdout = False
    settings = lg.LogSettings()
    settings.log_output = output
    settings.enable_trace = False
    return settings


async def _start_test(lg: Any, sut: SessionSut, ts: Any, log_settings: Any, qsl_size: int,
                      stop: _Interrupt | None, audit: str | None = None) -> None:
    """Run LoadGen in a (non-daemon) thread and wait for it on the loop."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[None] = loop.create_future()
    sut_handle = lg.ConstructSUT(sut.issue_queries, sut.flush_queries)
    qsl_handle = lg.ConstructQSL(qsl_size, qsl_size, _noop, _noop)
    outcome: dict[str, BaseException | None] = {"error": None}

    def finished() -> None:
        if not done.done():
            done.set_result(None)

    def target() -> None:
        try:
            if audit is None:
                lg.StartTestWithLogSettings(sut_handle, qsl_handle, ts, log_settings)
            else:  # a compliance test: LoadGen applies the audit file over the settings
                lg.StartTestWithLogSettings(sut_handle, qsl_handle, ts, log_settings, audit)
        except BaseException as exc:  # reported on the loop below
            outcome["error"] = exc
        try:
            loop.call_soon_threadsafe(finished)
        except RuntimeError:
            pass

    thread = threading.Thread(target=target, name="mlperf-loadgen")
    if stop is not None:
        stop.install()
    switch = sys.getswitchinterval()
    sys.setswitchinterval(min(switch, SWITCH_INTERVAL_S))
    try:
        thread.start()
        await asyncio.shield(done)
    finally:
        sys.setswitchinterval(switch)
        if stop is not None:
            stop.remove()
        if not done.done():  # cancelled from outside: let LoadGen end (it cannot be aborted)
            sut.stopping = True
            sut.cancel_all()
            await asyncio.to_thread(thread.join)
        lg.DestroyQSL(qsl_handle)
        lg.DestroySUT(sut_handle)
    if outcome["error"] is not None:
        raise outcome["error"]


def _noop(_: list[int]) -> None:
    return None


def _sut_block(sut: SessionSut) -> dict[str, Any]:
    stats = asdict(sut.stats)
    stats.pop("t_first_issue_ns", None)
    stats.pop("t_last_done_ns", None)
    stats["first_token"] = dict(sut.stats.first_token)
    stats["first_token_realtime"] = sut.realtime_first_token
    return stats


class _Interrupt:
    """SIGINT/SIGTERM during a LoadGen run.

    LoadGen has no abort: 1st signal — sessions LoadGen issues from now on are answered empty
    at once, in-flight ones get ``grace`` seconds; 2nd — in-flight sessions are cancelled.
    Either way LoadGen finishes its own schedule before the run ends.
    """

    def __init__(self, sut: SessionSut, grace_s: float) -> None:
        self.sut = sut
        self.grace_s = grace_s
        self.hits = 0
        self._installed = False
        self._timer: asyncio.TimerHandle | None = None

    def _handler(self) -> None:
        self.hits += 1
        if self.hits == 1:
            print("\nstopping: LoadGen's remaining queries are answered empty; in-flight "
                  "sessions finish (Ctrl-C again to cancel them)", file=sys.stderr)
            self.sut.stopping = True
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(self.grace_s, self.sut.cancel_all)
        else:
            print("\ncancelling in-flight sessions; waiting for LoadGen to end its schedule",
                  file=sys.stderr)
            self.sut.cancel_all()

    def install(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, self._handler)
            self._installed = True
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread
            self._installed = False

    def remove(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if not self._installed:
            return
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
