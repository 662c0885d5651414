"""Run one workload at each point of a sweep and write sweep.json + sweep.html.

SIGINT/SIGTERM stop the whole sweep (or search, run/search.py): the point running ends as an
interrupted run (its segment's handlers, run/segments.py: stop issuing, wait ``--grace``, a
second signal cancels what is in flight), no further point starts, and sweep.json covers the
points run, the interrupted one marked. ``--resume DIR`` goes on: points that ran to their end
are kept as they are, the interrupted one is resumed, the ones never started run anew.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Any

from agentic_bench.contracts import Workload
from agentic_bench.metrics.summary_model import Summary
from agentic_bench.metrics.sweep import sweep_point, sweep_summary
from agentic_bench.options.common import CommonOptions
from agentic_bench.options.files import write_run_config
from agentic_bench.options.load import SweepSpec
from agentic_bench.options.schema import public_options
from agentic_bench.reporting.sweep_html import write_sweep_html
from agentic_bench.run.benchmark import run_workload
from agentic_bench.run.folder import default_out, resume_command
from agentic_bench.run.segments import interrupts

SIGNALS = (signal.SIGINT, signal.SIGTERM)


def point_options(workload: Workload, options: CommonOptions, key: str, value: float,
                  folder: Path) -> CommonOptions:
    """A sweep or search point's own options: the validated ones with the point's load
    (:meth:`~agentic_bench.options.common.CommonOptions.at_point`) going into ``folder`` — a
    copy, so what the point records as its options is the load it ran. Under ``--resume`` a
    point that never started (no records in ``folder``) starts anew there."""
    tasks = workload.source.size * options.trials  # --trials K: each task K times a point
    point = options.at_point(key, value, tasks, workload.trees)
    resumed = options.resume is not None and (folder / "records.jsonl").exists()
    moved = {"resume": folder} if resumed else {"out": folder, "resume": None}
    return point.model_copy(update=moved)


class PointRunner:
    """Runs a sweep's or search's points one at a time and notices an interrupt in any of them:
    a SIGINT/SIGTERM taken by a point's segment (run/segments.py), a point that ended
    ``interrupted``, or a signal outside the segments (a point setting up or writing its
    outputs, or between points), which this runner's own handlers take — within a point they
    end it as Ctrl-C ends a single run (KeyboardInterrupt; the point keeps what it wrote),
    between points they only stop the sweep. A context manager: the handlers before it come
    back after it."""

    def __init__(self, workload: Workload, options: CommonOptions, command: str | None) -> None:
        self.workload, self.options, self.command = workload, options, command
        self.started = 0  # points started (or read back under --resume)
        self.cut: dict[str, Any] | None = None  # the point an interrupt cut short
        self._hit = False
        self._in_point = False
        self._before: dict[int, Any] = {}

    def __enter__(self) -> PointRunner:
        if threading.current_thread() is threading.main_thread():
            self._before = {sig: signal.getsignal(sig) for sig in SIGNALS}
            self._arm()
        return self

    def __exit__(self, *_: object) -> None:
        for sig, before in self._before.items():
            signal.signal(sig, before)

    def _arm(self) -> None:
        if self._before:  # after a point: LoadGen's handlers leave the defaults behind
            for sig in SIGNALS:
                signal.signal(sig, self._handler)

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        self._hit = True
        if self._in_point:
            raise KeyboardInterrupt

    @property
    def stopped(self) -> bool:
        """An interrupt came: start no further point."""
        return self._hit or self.cut is not None

    def run(self, key: str, value: float, folder: Path,
            total: int | None = None) -> dict[str, Any] | None:
        """The summary of the point ``key=value`` run in ``folder`` (under ``--resume``, one
        that ran to its end is read back, not run again); None when an interrupt ended it
        before it wrote one. :attr:`cut` then names it, and :attr:`stopped` is set. Which
        point runs is said on stderr as it starts (``total``: the sweep's points; a search's
        probes are counted open-ended), unless ``--quiet``."""
        noun, of = ("point", f"/{total}") if total is not None else ("probe", "")
        done = _finished(folder) if self.options.resume is not None else None
        if done is not None:
            self.started += 1
            return done
        point = point_options(self.workload, self.options, key, value, folder)
        summary = self.run_point(point, folder, f"{noun} {self.started + 1}{of}: "
                                 f"{key}={value:g}")
        if self.cut is not None and key not in self.cut:
            self.cut = {key: value, **self.cut}
        return summary

    def run_point(self, point: CommonOptions, folder: Path,
                  label: str) -> dict[str, Any] | None:
        """Run ``point`` (a point's own options, writing into ``folder``), said on stderr as
        ``label`` unless ``--quiet``; None when an interrupt ended it before its summary."""
        self.started += 1
        if not self.options.quiet:
            print(f"{label} -> {folder}", file=sys.stderr, flush=True)
        before = interrupts()
        self._in_point = True
        summary: dict[str, Any] | None = None
        try:
            summary = run_workload(self.workload, point, self.command)
        except KeyboardInterrupt:
            self._hit = True
        finally:
            self._in_point = False
            self._arm()
        if (summary is None or interrupts() > before
                or Summary.of(summary).stop_reason == "interrupted"):
            self.cut = {"out_dir": str(folder), "summary": summary is not None}
        return summary

    def stop(self, what: str, key: str, total: int | None, base: Path,
             last: float | None) -> dict[str, Any] | None:
        """What ``sweep.json``/``search.json`` says of an interrupt (None: none came): the
        point (``after_point`` of ``of``), whether an interrupt cut it short and it wrote its
        summary (then the exit code is an interrupted run's, 3; else Ctrl-C's, 130), and the
        one line to print."""
        k, cut = self.started, self.cut is not None
        if not self.stopped or (not cut and total is not None and k >= total):
            return None  # none came, or only once every point had run
        noun, of = ("point", f" of {total}") if total is not None else ("probe", "")
        at = (f"before its first {noun}" if not k or last is None else
              f"after {noun} {k}{of} ({key}={last:g}, "
              + ("cut short" if cut else "ran to its end") + ")")
        resume = resume_command(self.command, self.workload.name, base)
        head = resume.split(" --resume ")[0]
        note = (f"{what} interrupted {at}; {what}.json has the {noun}s run; continue it: "
                f"{resume} (or run it anew: {head} --config {base}/config.yaml --out NEW)")
        return {"after_point": k, "of": total, key: last, "cut_short": cut,
                "summary_written": bool(self.cut and self.cut["summary"]),
                "out_dir": self.cut["out_dir"] if self.cut else None, "note": note}


def _finished(folder: Path) -> dict[str, Any] | None:
    """The summary of a point that ran to its end in ``folder`` (None: none, one cut short as
    it was written, or an interrupted run's)."""
    try:
        summary = Summary.read(folder / "summary.json")
    except (OSError, ValueError):  # unreadable, torn, or not a summary (a ValidationError)
        return None
    return None if summary.stop_reason == "interrupted" else summary.to_dict()


def run_sweep(workload: Workload, options: CommonOptions, sweep: SweepSpec,
              command: str | None = None) -> dict[str, Any]:
    """One run per point of ``sweep``, each under its own options (:func:`point_options`)
    in ``--out``/``KEY-VALUE``; an interrupt stops the sweep (module doc): ``interrupted``
    then says where (:meth:`PointRunner.stop`). A point cut short before it wrote a summary
    has no figures to draw: ``interrupted`` names its folder."""
    key = sweep.key
    base = options.resume or options.out or default_out(f"{workload.name}-sweep")
    base.mkdir(parents=True, exist_ok=True)
    write_run_config(base, command or workload.name, public_options(options), sweep_folder=True)
    points: list[dict[str, Any]] = []
    last: float | None = None
    with PointRunner(workload, options, command) as runner:
        for value in sweep.values:
            if runner.stopped:
                break
            last = value
            summary = runner.run(key, value, base / f"{key}-{value:g}", len(sweep.values))
            if summary is None:
                continue
            points.append(sweep_point(key, value, summary))
            if runner.cut is not None:
                points[-1]["interrupted"] = True
            if not options.quiet:
                _print_point(key, value, points[-1])
        result = {**sweep_summary(key, points), "slos": {**workload.default_slos, **options.slos}}
        stop = runner.stop("sweep", key, len(sweep.values), base, last)
        if stop is not None:
            result["interrupted"] = stop
        (base / "sweep.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        write_sweep_html(base, result)
    result["out_dir"] = str(base)
    return result


def _print_point(key: str, value: float, p: dict[str, Any]) -> None:
    ttft = p["ttft_p99_ms"]
    shown = "-" if ttft is None else f"{ttft:,.1f}"
    short = f"; SHORT: {p['short']}" if p.get("short") else ""
    cut = "; interrupted" if p.get("interrupted") else ""
    print(f"{key}={value:g}: {p['requests_per_s']:.2f} req/s, TTFT p99 {shown} ms, "
          f"goodput {p['goodput_sessions_per_s']:.3f}/s, {p['result']}{short}{cut}")
