"""A scored run's task goodput as people read it: the lines of ``summary.txt`` and the panel of
``report.html`` (``section-tasks``). Nothing is shown for a run that scored nothing (no
``tasks`` block; metrics/scored_tasks.py)."""

from __future__ import annotations

from agentic_bench.metrics.summary_model import ScoredTasks
from agentic_bench.reporting.html_template import kv_table, section, table
from agentic_bench.reporting.svg_axes import esc


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}%"


def _pct_bounds(bounds: list[float] | None) -> str:
    return "" if not bounds else f" [{bounds[0] * 100:.1f}%, {bounds[1] * 100:.1f}%]"


def _rate_bounds(bounds: list[float] | None) -> str:
    return "" if not bounds else f" [{bounds[0]:.3f}, {bounds[1]:.3f}]"


def slo_words(tasks: ScoredTasks) -> str:
    """The latency SLOs a task had to meet, as one phrase."""
    if not tasks.slos:
        return "no latency SLO set (every finished task is within)"
    return ", ".join(f"{k} {v:g}" for k, v in tasks.slos.items())


def causes_words(tasks: ScoredTasks) -> str:
    return ", ".join(f"{k} {v}" for k, v in tasks.causes.items()) or "none"


def task_lines(tasks: ScoredTasks | None) -> list[str]:
    """``summary.txt``'s task-goodput lines (none for an unscored run)."""
    if tasks is None:
        return []
    lines = [
        "",
        f"Tasks     : {tasks.correct}/{tasks.scored} correct "
        f"({_pct(tasks.accuracy)}{_pct_bounds(tasks.accuracy_interval)}); "
        f"{tasks.correct_within_slo} correct within SLO "
        f"({_pct(tasks.within_slo_fraction)}{_pct_bounds(tasks.within_slo_interval)})",
        f"Task goodput: {tasks.task_goodput_per_s:.3f} correct tasks/s within SLO"
        f"{_rate_bounds(tasks.task_goodput_interval)} ({slo_words(tasks)})",
        f"            not counted: {causes_words(tasks)}",
    ]
    if tasks.trials:
        lines.append(f"Trials    : {tasks.trials} per task over "
                     f"{(tasks.pass_k or {}).get('tasks', 0)} tasks (trials 0-{tasks.trials - 1}; "
                     "95 % intervals: bootstrap over tasks)")
        if tasks.tasks_fewer_trials is not None:  # summaries before the count lack it
            lines.append(f"            tasks with < {tasks.trials} trials: "
                         f"{tasks.tasks_fewer_trials} (left out of pass@k/pass^k)"
                         + (f"; {tasks.extra_trials} sessions of trial {tasks.trials} or "
                            "later scored, not in pass@k/pass^k" if tasks.extra_trials else ""))
    if tasks.trials and tasks.pass_k:
        lines += [f"            k={n}: pass@k {_pct(row['pass_at_k'])}"
                  f"{_pct_bounds(row['pass_at_k_interval'])}, pass^k {_pct(row['pass_hat_k'])}"
                  f"{_pct_bounds(row['pass_hat_k_interval'])}"
                  for n, row in (tasks.pass_k.get("k") or {}).items()]
        spread = tasks.latency_across_trials
        if spread:
            lines.append(f"            session latency across trials: std mean "
                         f"{spread['mean_std_ms']:.1f} ms, max {spread['max_std_ms']:.1f} ms "
                         f"over {spread['tasks']} tasks")
    return lines


def tasks_section(tasks: ScoredTasks | None) -> str:
    """report.html's task-goodput panel (empty for an unscored run)."""
    if tasks is None:
        return ""
    items: list[tuple[str, object]] = [
        ("tasks scored", tasks.scored),
        ("correct", f"{tasks.correct} ({_pct(tasks.accuracy)}"
         f"{_pct_bounds(tasks.accuracy_interval)})"),
        ("correct within SLO", f"{tasks.correct_within_slo} ({_pct(tasks.within_slo_fraction)}"
         f"{_pct_bounds(tasks.within_slo_interval)})"),
        ("task goodput (correct tasks/s within SLO)",
         f"{tasks.task_goodput_per_s:.3f}{_rate_bounds(tasks.task_goodput_interval)}"),
        ("SLOs", slo_words(tasks)),
        ("not counted, by cause", causes_words(tasks)),
    ]
    body = (f'<p id="task-goodput-headline"><b>{tasks.task_goodput_per_s:.3f}</b> correct '
            f"tasks/s within SLO</p>" + kv_table(items, "table-tasks"))
    if tasks.trials and tasks.pass_k:
        rows = [[n, _pct(r["pass_at_k"]) + _pct_bounds(r["pass_at_k_interval"]),
                 _pct(r["pass_hat_k"]) + _pct_bounds(r["pass_hat_k_interval"])]
                for n, r in (tasks.pass_k.get("k") or {}).items()]
        body += (f"<h3>{esc(str(tasks.trials))} trials per task</h3>"
                 + (f"<p>tasks with &lt; {esc(str(tasks.trials))} trials: "
                    f"{esc(str(tasks.tasks_fewer_trials))} (left out of pass@k/pass^k)</p>"
                    if tasks.tasks_fewer_trials is not None else "")
                 + table(["k", "pass@k [95 %]", "pass^k [95 %]"], rows, "table-pass-k"))
    return section("section-tasks", "Task goodput", body)


__all__ = ["task_lines", "tasks_section"]
