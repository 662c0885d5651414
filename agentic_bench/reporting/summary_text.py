"""``summary.txt``: a short human summary in the spirit of mlperf_log_summary.txt."""

from __future__ import annotations

from typing import Any

from agentic_bench.metrics.declarations import (
    FIGURE_BY_LABEL,
    shown_figure,
    shown_in,
    shown_latency,
)
from agentic_bench.metrics.host_cpu import describe_host_cpu
from agentic_bench.metrics.summary_model import InFlight, Load, Stats, Summary
from agentic_bench.metrics.verdict import UNCONSTRAINED_NOTE, unconstrained
from agentic_bench.reporting.intervals_text import interval_lines
from agentic_bench.reporting.scored_tasks_view import task_lines
from agentic_bench.reporting.svg_axes import fmt_pct
from agentic_bench.reporting.trees_text import lanes_line, tree_lines
from agentic_bench.trace.fidelity_compare import fidelity_line


def _prompt_lines(harness: Any) -> list[str]:
    """Prompts given as blocks: written ahead, late, their cost; the client's TTFT share."""
    lines: list[str] = []
    build = harness.prompt_build_ms
    if build.count:
        send = harness.send_late_ms
        lines.append(f"Prompts written: {build.count} ({harness.prompt_ahead} ahead of their "
                     f"send), {harness.prompt_late} late; writing (ms) p50 {_fmt(build.p50)}  "
                     f"p99 {_fmt(build.p99)}; send lateness (ms) p50 {_fmt(send.p50)}  "
                     f"p99 {_fmt(send.p99)}")
    share = harness.client_share_ms
    if share.count:
        lines.append(f"Client share of TTFT (ms): p50 {_fmt(share.p50)}  p99 {_fmt(share.p99)}"
                     "  (against the server's timestamps)")
    return lines


def _fmt(value: Any, unit: str = "") -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.2f}{unit}"
    return f"{value}{unit}"


def _load_line(scenario: dict[str, Any]) -> str:
    """The scenario with the settings that shaped the load (rate, concurrency, limits)."""
    parts = [str(scenario.get("scenario", "-"))]
    for key, label in (("rate", "rate {} sessions/s"), ("concurrency", "concurrency {}"),
                       ("sessions", "{} sessions"), ("duration_s", "duration {} s"),
                       ("max_errors", "max errors {}")):
        if scenario.get(key) is not None:
            parts.append(label.format(f"{scenario[key]:g}" if isinstance(scenario[key], float)
                                      else scenario[key]))
    return ", ".join(parts)


def _exact(value: Any) -> str:
    """A limit as compared (83.6431 must not print as 83.64): up to 4 decimals, no padding."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.4f}".rstrip("0").rstrip(".")
    return _fmt(value)


def _restart_lines(restarts: list[dict[str, Any]],
                   waits: dict[str, Any] | None = None) -> list[str]:
    if not restarts:
        return []
    causes = ", ".join(sorted({r.get("signal") or f"exit {r.get('exit_code')}" for r in restarts}))
    failed = [r["error"] for r in restarts if r.get("error")]
    waited = (f"; {waits['requests']} requests waited {waits['total_ms'] / 1000:.1f} s for it "
              "(not counted as latency)" if waits and waits.get("requests") else "")
    return [f"Restarts  : the embedded server died {len(restarts)}x ({causes}) and was restarted"
            + (f"; {failed[-1]}" if failed else "") + waited]


def _server_lines(block: dict[str, Any] | None) -> list[str]:
    """One line per scraped source: scrapes, and the peaks a serving team looks for."""
    out = []
    for url, src in ((block or {}).get("sources") or {}).items():
        m = src.get("metrics") or {}
        parts = [f"{src.get('scrapes', 0)} scrapes ({src.get('failures', 0)} failed)"]
        if "kv_cache_usage" in m:
            parts.append(f"KV cache max {m['kv_cache_usage']['max'] * 100:.0f} %")
        for name, label in (("requests_running", "running"), ("requests_waiting", "waiting")):
            if name in m:
                parts.append(f"{label} max {m[name]['max']:g}")
        if "slot_context_used" in m:
            parts.append(f"busy slots max {m['slots_busy']['max']:g}, fullest slot's context "
                         f"max {m['slot_context_used']['max'] * 100:.0f} %")
        if "preemptions" in m:
            parts.append(f"preemptions {m['preemptions']['increase']:g}")
        rate = (src.get("prefix_cache_hit_rate") or {}).get("value")
        if rate is not None:
            parts.append(f"prefix-cache hits {rate * 100:.1f} % (server)")
        out.append(f"Server    : {url}: " + ", ".join(parts))
        out += _spec_tier_lines(url, src)
        for name, bad in (src.get("bad_values") or {}).items():
            out.append(f"Server    : {url}: {name}: {bad['count']} bad value(s), first "
                       f"{bad['first']} at {bad['first_t_s']} s ({bad['reason']})")
    return out


def _spec_tier_lines(url: str, src: dict[str, Any]) -> list[str]:
    """Speculative decoding and the KV-cache tiers, where the server reports them."""
    out = []
    spec = src.get("speculation")
    if isinstance(spec, dict):
        length, rate = spec.get("mean_acceptance_length"), spec.get("acceptance_rate")
        out.append(f"Server    : {url}: speculation "
                   + ("drafting" if spec.get("drafting") else "no drafts")
                   + (f", mean acceptance length {length:.2f}" if length is not None else "")
                   + (f", acceptance rate {rate * 100:.1f} %" if rate is not None else ""))
    tiers = src.get("kv_tiers")
    if isinstance(tiers, dict):
        parts = [f"{tier} {t['hits']:,.0f} tokens"
                 + (f" ({t['hit_rate'] * 100:.1f} %)" if t.get("hit_rate") is not None else "")
                 for tier, t in tiers.items()]
        out.append(f"Server    : {url}: KV tiers hits: " + ", ".join(parts))
    return out


def _number(value: Any, spec: str) -> str:
    """A figure, or "n/a" where the summary holds none (a non-finite value written as null)."""
    return "n/a" if value is None else format(value, spec)


def _energy_lines(block: dict[str, Any] | None) -> list[str]:
    if not block:
        return []
    if not block.get("available"):
        return [f"Energy    : not available ({block.get('reason', '')})"]
    return [f"Energy    : {_number(s.get('joules'), '.1f')} J by {s['source']} ({s['covers']})"
            + (f", {s['joules_per_request']:.3g} J/request" if s.get("joules_per_request")
               else "")
            + (f", {s['output_tokens_per_joule']:.3g} tokens/J"
               if s.get("output_tokens_per_joule") else "")
            for s in block.get("sources") or []]


def _mlperf_lines(block: dict[str, Any] | None, loadgen: Any = None) -> list[str]:
    """Which MLPerf configuration the run used, and each point where it departs. A block with
    ``requested: false`` (a task whose MLPerf settings are opt-in) gets one line."""
    if not block:
        return []
    gone = block.get("departures") or []
    if block.get("requested") is False and gone:
        return [f"Config    : {block.get('configuration', '-')} ({len(gone)} departures, "
                "listed in summary.json; --mlperf applies its settings)"]
    lines = [f"Config    : {block.get('configuration', '-')}"]
    lines += [f"            departs: {d}" for d in gone]
    lines += [f"            note: {n}" for n in block.get("notes") or []]
    rate = loadgen.get("samples_per_s") if isinstance(loadgen, dict) else None
    if block.get("result_unit") and isinstance(rate, int | float):
        lines.append(f"            MLPerf figure: {rate:.4g} {block['result_unit']} "
                     f"(LoadGen {loadgen.get('scenario') or ''} samples/s)")
    return lines


def _accuracy_lines(acc: dict[str, Any]) -> list[str]:
    headline = acc.get("headline")
    shown = shown_figure(FIGURE_BY_LABEL["accuracy"], headline)
    shown = f"{shown:.3f}" if isinstance(shown, float) else _fmt(shown)
    lines = [f"Accuracy  : {shown} ({acc.get('metric', '')})"]
    if acc.get("planned") is not None:
        rep = acc.get("reported") or {}
        lines.append(f"            overall {_fmt(rep.get('overall_accuracy'))} %, normalized "
                     f"{_fmt(rep.get('normalized_single_turn_score'))} %; "
                     f"{acc.get('completed')}/{acc['planned']} planned samples completed "
                     "(the rest score 0)")
    if acc.get("scored_trial") is not None:  # --trials K: each sample once, as MLPerf does
        lines.append(f"            scored: trial {acc['scored_trial']} of each sample; "
                     f"{acc.get('other_trials')} sample records of other trials are in Tasks "
                     "only")
    inline = acc.get("inline")
    if inline:
        t = inline["turns"]
        errors = ", ".join(f"{k} {v}" for k, v in (inline.get("errors_by_type") or {}).items())
        score = inline.get("score")
        shown = "-" if score is None else f"{score:.4f}"
        lines.append(f"Inline IoU: {shown} (MLPerf turns = requests: issued "
                     f"{t['issued']}, expected {t['expected']}, observed {t['observed']}, "
                     f"missing {t['missing']})" + (f"; failed turns: {errors}" if errors else "")
                     + (f"; {inline['capped_turns']} in flight at the performance phase's "
                        "duration cap" if inline.get("capped_turns") else ""))
    return lines


_STAT_COLUMNS = ("mean", "p50", "p90", "p99", "max")
FEW_FOR_P99 = 100  # fewer values than this: the p99 rests on the largest one or two


def _interactivity_lines(block: dict[str, Any] | None) -> list[str]:
    """Tokens/s one user sees: MLCommons' scalar (and with failed requests left out), the
    per-request median, and 1000 / p90 of latency per token (docs/metrics.md)."""
    if not block or block.get("e2e_avg_interactivity") is None:
        return []
    per_user = (block.get("tokens_per_s_per_user") or {}).get("p50")
    inverse = (block.get("inverse_e2el_per_token") or {}).get("p90")
    return [f"Interactivity: e2e_avg {_fmt(block['e2e_avg_interactivity'])} tok/s "
            f"(failed excluded {_fmt(block.get('e2e_avg_interactivity_ok'))}); "
            f"per request p50 {_fmt(per_user)} tok/s; 1000/p90(E2EL/OSL) {_fmt(inverse)} tok/s"]


def _fanout_lines(block: dict[str, Any] | None) -> list[str]:
    """Fan-out agents: groups, branches, and how long the joins waited (metrics/fanout.py)."""
    if not block:
        return []

    def p50_p99(stats: dict[str, Any]) -> str:
        return f"{_fmt(stats.get('p50'))} / {_fmt(stats.get('p99'))} ms"

    return [f"Fan-out   : {block['groups_ok']}/{block['groups']} groups ok, "
            f"{block['branches_ok']}/{block['branches']} branches ok "
            f"(width mean {_fmt(block['width'].get('mean'))}); p50 / p99: "
            f"join {p50_p99(block['join_ms'])}, branch {p50_p99(block['branch_ms'])}, "
            f"straggler spread {p50_p99(block['spread_ms'])}"]


def _prefix_cache_lines(block: dict[str, Any] | None,
                        ceiling: dict[str, Any] | None = None) -> list[str]:
    limit = ([f"Prefix reuse ceiling (the trace, one pass, characters): "
              f"{fmt_pct(ceiling.get('ratio'))} of request text, "
              f"{fmt_pct(ceiling.get('within_session'))} within sessions"]
             if ceiling and ceiling.get("ratio") is not None else [])
    if not block:
        return limit
    curve = block.get("by_request_position") or []
    first = next((r["hit_rate"] for r in curve if r["position"] == 0), None)
    later = [r for r in curve if r["position"] > 0 and r["hit_rate"] is not None]
    rest = (sum(r["hit_rate"] * r["requests"] for r in later)
            / sum(r["requests"] for r in later)) if later else None
    paired = [r for r in curve if r.get("ceiling") is not None and r["hit_rate"] is not None]
    versus = (["Prefix cache vs ceiling by request position: " + ", ".join(
        f"{r['position']}: {fmt_pct(r['hit_rate'])} / {fmt_pct(r['ceiling'])}" for r in paired[:6])
        + (" ..." if len(paired) > 6 else "")] if paired else [])
    return [f"Prefix cache: {_fmt(block['cached_tokens'])} of {_fmt(block['prompt_tokens'])} "
            f"prompt tokens served from cache ({fmt_pct(block['hit_rate'])}; first request of a "
            f"session {fmt_pct(first)}, later ones {fmt_pct(rest)}; "
            f"{block['requests_reporting']} requests reported it)", *limit, *versus]



def _role_lines(roles: dict[str, Any]) -> list[str]:
    """One line per LLM role (rag-e2e: main, grade): calls and the p50 / p99 of each metric of
    the ``roles`` view (metrics/declarations.py)."""
    if not roles:
        return []
    shown = shown_in("roles")
    lines = ["", "LLM roles     calls  per session" + "".join(
        f"{f'{d.label} p50 / p99 {d.unit}':>20}" for d in shown)]
    for name, r in roles.items():
        per = r.get("requests_per_session")
        cells = "".join(f"{_fmt(stats.get('p50')):>12} / {_fmt(stats.get('p99')):<6}"
                        for d in shown for stats in [r.get(d.field) or {}])
        lines.append(
            f"  {name:<10}{r['requests']:>7}{'' if per is None else f'{per:.2f}':>13}"
            f"{cells.rstrip()}" + (f"   errors {r['errors']}" if r.get("errors") else ""))
    return lines


def _stop_reason(summary: Summary) -> str:
    """The stop reason, said so that it cannot be misread: an early stop after the first
    requests failed is not "all failed" when requests in flight then succeeded."""
    reason, counts = summary.stop_reason, summary.counts
    if reason == "all_failed" and counts.requests_ok:
        return (f"stopped early: the first requests failed, so no more sessions were issued; "
                f"{counts.requests_ok}/{counts.requests} requests then succeeded")
    if reason == "records_unwritable":
        return "stopped: the records could not be written"
    if reason == "failed_request_threshold":
        return ("stopped early: failed requests exceeded --failed-request-threshold (the "
                "summary holds what was measured)")
    return reason


def _latency_tables(latency: dict[str, Stats], stages: dict[str, Stats]) -> list[str]:
    """The latency table and the stage table, with one column width wide enough for every
    value (a 157,053.52 ms maximum must not run into the p99 beside it)."""
    cells = [_fmt(stats.stat(k)) for table in (latency, stages) for stats in table.values()
             for k in _STAT_COLUMNS]
    width = max([10] + [len(c) + 2 for c in cells])

    def row(label: str, stats: Stats) -> str:
        return f"{label:<14}{stats.count:>8}" + "".join(
            f"{_fmt(stats.stat(k)):>{width}}" for k in _STAT_COLUMNS)

    lines = [f"{'latency (ms)':<14}{'count':>8}" + "".join(f"{k:>{width}}" for k in _STAT_COLUMNS)]
    names = shown_latency(latency)
    lines += [row(name, latency[name]) for name in names]
    few = [f"{name} n={latency[name].count}" for name in names
           if 0 < latency[name].count < FEW_FOR_P99]
    if few:  # a p99 of a handful of values is their maximum, give or take
        lines.append(f"  (p99 of fewer than {FEW_FOR_P99} values is at or next to their max: "
                     + ", ".join(few) + ")")
    if stages:
        lines += ["", "stages (ms)"]
        lines += [row(f"  {name}", stats) for name, stats in stages.items()]
    return lines


def _load_lines(load: Load | None) -> list[str]:
    """The load the run reached beside the one it named (metrics/load_reached.py)."""
    if not load:
        return []
    sess, reqs = load.sessions_in_flight or InFlight(), load.requests_in_flight or InFlight()
    named = f" of {load.named_streams} named" if load.named_streams else ""
    rate = (f"; sessions arrived at {load.arrival_rate:.3g}/s of {load.named_rate:g}/s"
            if load.arrival_rate is not None else "")
    line = (f"Load      : sessions in flight mean {_fmt(sess.mean)}, max {sess.max}"
            f"{named}; requests in flight mean {_fmt(reqs.mean)}, max {reqs.max}{rate}")
    return [line] + ([f"            SHORT: {load.short} (the load named was not reached)"]
                     if load.short else [])


def _dash(value: Any) -> Any:
    return "-" if value is None else value


def render_text(summary: Summary | dict[str, Any]) -> str:
    """``summary.txt``: the summary for people to read."""
    summary = Summary.of(summary)
    c, endpoint, workload = summary.counts, summary.endpoint, summary.workload
    lines = [
        "================================================",
        "agentic-bench results summary",
        "================================================",
        f"Benchmark : {summary.benchmark}",
        *([f"Command   : {summary.command_line}"] if summary.command_line else []),
        "Scenario  : " + (lanes_line(summary.config) or _load_line(summary.scenario)),
        f"Endpoint  : {_dash(endpoint.url)}"
        + (f" ({endpoint.server})" if endpoint.server else ""),
        f"Model     : {_dash(endpoint.model)}",
        f"Result is : {summary.result}",
        *([f"            {summary.failure}"
           + (" (stopped early: --stop-after-failures)"
              if summary.stop_reason == "all_failed" else "")]
          if summary.failure else []),
        *([f"            ({UNCONSTRAINED_NOTE})"]
          if summary.valid and unconstrained(summary.constraints) else []),
        *_mlperf_lines(workload.get("mlperf"), summary.loadgen),
        f"Complete  : {'yes' if summary.complete else 'no'} ({_stop_reason(summary)})",
        *([f"Records   : {lost['records']} not written ({lost['error']}); records.jsonl holds "
           "what was measured before"] if (lost := summary.records_unwritten) else []),
        *([f"Resume    : {summary.resume_command}"] if summary.resume_command else []),
        f"Duration  : {summary.duration_s:.2f} s",
        "",
        f"Sessions  : {c.sessions_ok}/{c.sessions} ok"
        + (f" of {summary.planned_sessions} planned"
           if summary.planned_sessions not in (None, c.sessions) else "")
        + f"   turns {c.turns_ok}/{c.turns} (missing {c.missing_turns})   requests "
        f"{c.requests_ok}/{c.requests} ok",
        f"Errors    : {c.errors}" + (" (" + ", ".join(
            f"{k} {v}" for k, v in c.errors_by_type.items()) + ")"
            if c.errors_by_type else ""),
        *_load_lines(summary.load),
        *_restart_lines(endpoint.restarts or [], endpoint.restart_waits),
        *_server_lines(summary.server_metrics),
        *_energy_lines(summary.energy),
        "",
    ]
    lines += _latency_tables(summary.latency_ms, summary.stages_ms)
    lines += interval_lines(summary)
    t = summary.throughput
    lines += [
        "",
        f"Throughput: {t.requests_per_s:.2f} req/s, "
        f"{t.output_tokens_per_s:.1f} output tok/s, "
        f"{t.sessions_per_s:.3f} sessions/s; goodput "
        f"{summary.goodput.sessions_per_s:.3f} sessions/s"
        + (f"; task goodput {summary.tasks.task_goodput_per_s:.3f} correct tasks/s"
           if summary.tasks else ""),
        *_interactivity_lines(summary.interactivity),
        *_prefix_cache_lines(summary.prefix_cache, workload.get("prefix_ceiling")),
        *_fanout_lines(summary.fanout),
        *tree_lines(summary),
        *([fidelity_line(summary.fidelity)] if summary.fidelity else []),
    ]
    lines += _role_lines(summary.roles)
    tc = summary.tool_calls
    if tc.scored:
        lines.append(f"Tool calls: the model made {tc.matched} of the {tc.scored} "
                     f"recorded calls again ({tc.match_rate or 0.0:.1%}) — information, not a "
                     "failure: the replay sends the recorded tool results either way and the "
                     "verdict does not count it")
    if summary.accuracy:
        lines += _accuracy_lines(summary.accuracy)
    lines += task_lines(summary.tasks)
    lag = summary.harness.schedule_lag_ms
    lines += ["", f"Schedule lag (ms): p50 {_fmt(lag.p50)}  p99 {_fmt(lag.p99)}  "
              f"max {_fmt(lag.max)}"]
    lines += _prompt_lines(summary.harness)
    host = describe_host_cpu(summary.host_cpu)
    lines += [host] if host else []
    lines += ["", "Constraints:"]
    for row in summary.constraints:
        mark = "ok " if row.ok else "FAIL"
        lines.append(f"  [{mark}] {row.name}: {_exact(row.value)} {row.op} "
                     f"{_exact(row.limit)}" + (f"  ({row.rule})" if row.rule else ""))
    if summary.loadgen:
        from agentic_bench.loadgen.text import render_loadgen_lines

        lines += render_loadgen_lines(summary.loadgen)
    return "\n".join(lines) + "\n"
