"""The fidelity gate's comparison (agentic_bench/trace/fidelity_compare.py): each figure
against its stated tolerance, units that do not match shown but not gated, unknown figures
skipped, and the table and summary line."""

from __future__ import annotations

import pytest

from agentic_bench.trace.fidelity_compare import (
    GAP_ABS_S,
    PREFIX_ABS,
    TOKEN_REL,
    Row,
    compare,
    fidelity_block,
    fidelity_line,
    passed,
    render_table,
)
from agentic_bench.trace.profile import TraceProfile


def profile(**kw: object) -> TraceProfile:
    base: dict[str, object] = {
        "sessions": 2, "trees": 1, "requests": 5, "subagents": 2, "tool_calls": 3,
        "input_tokens": [100, 200, 300, 400, 1000], "output_tokens": [10, 20, 30, 40, 50],
        "gaps_s": [1.0, 2.0, 4.0], "prefix_hit": 0.5, "prefix_basis": "blocks"}
    base.update(kw)
    return TraceProfile(**base)  # type: ignore[arg-type]


def by_figure(rows: list[Row]) -> dict[str, Row]:
    return {r.figure: r for r in rows}


def test_identical_profiles_pass_every_gated_row() -> None:
    rows = compare(profile(), profile())
    assert passed(rows) and all(r.status == "ok" for r in rows)
    assert {"sessions", "ISL p50", "ISL p90", "ISL p99", "OSL n", "gap (s) p99",
            "prefix hit"} <= set(by_figure(rows))


@pytest.mark.parametrize("name", ["sessions", "trees", "requests", "subagents", "tool_calls"])
def test_counts_are_exact(name: str) -> None:
    left = profile()
    rows = by_figure(compare(left, profile(**{name: getattr(left, name) + 1})))
    assert rows[name.replace("_", " ")].status == "FAIL"


def test_a_figure_one_side_cannot_count_is_skipped_not_zero() -> None:
    rows = by_figure(compare(profile(), profile(tool_calls=0, unknown=["tool_calls"])))
    assert rows["tool calls"].status == "skipped" and rows["tool calls"].right is None
    assert passed(list(rows.values()))


def test_token_percentiles_within_ten_percent() -> None:
    inside = [v * (1 + TOKEN_REL * 0.9) for v in (100, 200, 300, 400, 1000)]
    outside = [v * (1 + TOKEN_REL * 1.2) for v in (100, 200, 300, 400, 1000)]
    assert passed(compare(profile(), profile(input_tokens=inside)))
    rows = by_figure(compare(profile(), profile(input_tokens=outside)))
    assert rows["ISL p50"].status == "FAIL" and rows["OSL p50"].status == "ok"


def test_small_token_counts_get_one_token_of_slack() -> None:
    assert passed(compare(profile(output_tokens=[2, 2, 2]), profile(output_tokens=[3, 3, 3])))
    assert not passed(compare(profile(output_tokens=[2, 2, 2]),
                              profile(output_tokens=[4, 4, 4])))


def test_units_decide_whether_tokens_are_gated() -> None:
    far = [1, 1, 1, 1, 1]
    server = by_figure(compare(profile(), profile(input_tokens=far, input_basis="server")))
    assert server["ISL p50"].status == "not gated" and "server" in server["ISL p50"].why
    estimate = by_figure(compare(profile(input_basis="estimate"), profile(input_tokens=far)))
    assert estimate["ISL p50"].status == "not gated"
    # what a replay synthesized, and replies held to their length, are the recorded unit
    synth = compare(profile(), profile(input_tokens=far, input_basis="synthesized",
                                       output_tokens=far, output_basis="held"))
    assert by_figure(synth)["ISL p50"].status == by_figure(synth)["OSL p50"].status == "FAIL"


def test_the_number_of_counted_requests_must_match() -> None:
    rows = by_figure(compare(profile(), profile(input_tokens=[100, 200, 300, 400, None])))
    assert rows["ISL n"].status == "FAIL" and (rows["ISL n"].left, rows["ISL n"].right) == (5, 4)


def test_no_counts_on_a_side_skips_the_distribution() -> None:
    rows = by_figure(compare(profile(input_tokens=[None] * 5), profile()))
    assert rows["ISL"].status == "skipped"


def test_gaps_are_scaled_by_the_runs_think_time_factor() -> None:
    half = [0.5, 1.0, 2.0]
    assert passed(compare(profile(), profile(gaps_s=half, gap_scale=0.5)))
    assert not passed(compare(profile(), profile(gaps_s=half)))
    none = by_figure(compare(profile(), profile(gaps_s=[0.0] * 3, gap_scale=0.0)))
    assert none["gap p50 (s)"].status == "not gated"


def test_gaps_have_an_absolute_floor() -> None:
    small = profile(gaps_s=[0.01, 0.02, 0.03])
    assert passed(compare(small, profile(gaps_s=[0.01 + GAP_ABS_S * 0.9] * 3)))
    assert not passed(compare(small, profile(gaps_s=[0.03 + GAP_ABS_S * 1.1] * 3)))


def test_prefix_hit_within_an_absolute_tolerance() -> None:
    assert passed(compare(profile(), profile(prefix_hit=0.5 + PREFIX_ABS * 0.9)))
    assert not passed(compare(profile(), profile(prefix_hit=0.5 + PREFIX_ABS * 1.5)))
    other = by_figure(compare(profile(), profile(prefix_hit=0.9, prefix_basis="chars")))
    assert other["prefix hit"].status == "not gated"
    unknown = by_figure(compare(profile(), profile(prefix_hit=None)))
    assert unknown["prefix hit"].status == "skipped"


def test_the_table_names_the_failing_figure() -> None:
    rows = compare(profile(), profile(requests=4, unknown=["tool_calls"]))
    text = render_table(rows, "SOURCE", "RUN", ["src note"], ["run note"])
    last = text.splitlines()[-1]
    assert last.startswith("fidelity: FAIL") and "requests 4 vs 5" in last
    assert "note (SOURCE): src note" in text and "note (RUN): run note" in text
    assert "skipped: the RUN side cannot count it" in text
    ok = render_table(compare(profile(), profile()), "SOURCE", "TRACE")
    assert ok.splitlines()[-1].startswith("fidelity: ok")


def test_the_summary_block_and_its_line() -> None:
    rows = compare(profile(), profile(requests=4, input_basis="server"))
    block = fidelity_block(rows, source="otel-genai", planned="2 session(s) issued")
    assert block["ok"] is False and block["failed"] == ["requests"]
    assert block["figures"]["requests"] == {"planned": 5, "sent": 4, "status": "FAIL"}
    line = fidelity_line(block)
    assert line.startswith("Fidelity  : NOT OK (requests)")
    assert "requests 4/5 FAIL" in line and "ISL not gated" in line
    assert fidelity_line({"ok": None, "error": "boom"}) == "Fidelity  : not computed (boom)"


def test_the_waits_alone_are_compared_when_both_sides_give_them() -> None:
    """A gap across a join is the subagents' time (the server's speed): when both sides can
    leave such gaps out, only the waits are gated."""
    left = profile(gaps_s=[1.0, 2.0, 4.0], wait_gaps_s=[1.0, 2.0])
    slow_join = profile(gaps_s=[1.0, 2.0, 9.0], wait_gaps_s=[1.0, 2.0])
    assert passed(compare(left, slow_join))
    assert not passed(compare(left, profile(gaps_s=[1.0, 2.0, 9.0])))  # a side that cannot
