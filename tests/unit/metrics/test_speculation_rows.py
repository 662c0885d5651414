"""--spec-decode-policy under --agentx, checked both ways against what the server reported
(metrics/speculation_rows.py). The rule: InferenceX 843c6254 golden_al_distribution/README.md
23-25 ("Fairness Guidelines for AgentX": synthetic acceptance at the golden acceptance length)
and .github/codeowner-signoff-verify-prompt.md 316-343 (Check 11: real acceptance fails)."""

from __future__ import annotations

from typing import Any

import pytest

from agentic_bench.cli.replay_cmd import parse_replay_args
from agentic_bench.metrics.aggregate import RunInfo, summarize
from agentic_bench.metrics.speculation_rows import spec_rows
from agentic_bench.options.agentx import scenario_rules


def scraped(*drafting: bool) -> dict[str, Any]:
    return {"server_metrics": {"sources": {
        f"http://s{i}/metrics": {"speculation": {"reported": True, "drafting": d}}
        for i, d in enumerate(drafting)}}}


def rows(summary: dict[str, Any], policy: str | None) -> dict[str, bool]:
    return {r["name"]: r["ok"] for r in spec_rows(summary, policy)}


def test_policy_off_and_the_server_drafts_is_flagged() -> None:
    assert rows(scraped(True), "off") == {"spec_decode_policy": True,
                                          "spec_decode_reported": False}
    assert rows(scraped(False), "off") == {"spec_decode_policy": True,
                                           "spec_decode_reported": True}
    assert rows(scraped(False, True), "off")["spec_decode_reported"] is False  # any source


def test_policy_synthetic_or_real_without_drafts_is_flagged() -> None:
    assert rows(scraped(False), "synthetic-golden") == {"spec_decode_policy": True,
                                                        "spec_decode_reported": False}
    assert rows(scraped(True), "synthetic-golden") == {"spec_decode_policy": True,
                                                       "spec_decode_reported": True}
    # real acceptance breaks the golden-AL rule, whatever the server reports
    assert rows(scraped(True), "real") == {"spec_decode_policy": False,
                                           "spec_decode_reported": True}
    assert rows(scraped(False), "real")["spec_decode_reported"] is False


def test_undeclared_and_unreported() -> None:
    assert rows({}, None) == {}  # nothing declared, nothing reported: no row
    assert rows({}, "synthetic-golden") == {"spec_decode_policy": True}  # cannot be checked
    flagged = spec_rows(scraped(True), None)
    assert [(r["name"], r["ok"]) for r in flagged] == [("spec_decode_reported", False)]
    assert "declare --spec-decode-policy" in flagged[0]["rule"]


def test_the_policy_is_recorded_and_judged_in_the_verdict() -> None:
    rules = scenario_rules(parse_replay_args(
        ["cc-traces-weka-062126/traces.jsonl", "--agentx", "--concurrency", "8",
         "--duration", "3600", "--spec-decode-policy", "off"]))
    assert rules["spec_decode_policy"] == "off" and rules["violations"] == []
    lanes = {"type": "lanes", "lanes": 1, "measured_s": 3600.0, "starved": 0, "unfilled": 0}

    def result(drafting: bool) -> tuple[str, dict[str, bool]]:
        summary = summarize([lanes], RunInfo(benchmark="replay", complete=True,
                                             duration_s=3600.0,
                                             extra={"agentx": rules, **scraped(drafting)}))
        return summary["result"], {r["name"]: r["ok"] for r in summary["constraints"]}

    _, ok_rows = result(False)
    bad, bad_rows = result(True)
    assert ok_rows["spec_decode_reported"] and not bad_rows["spec_decode_reported"]
    assert ok_rows["spec_decode_policy"] and bad == "INVALID"


def test_the_option_refuses_other_values() -> None:
    with pytest.raises(SystemExit):
        parse_replay_args(["t.json", "--spec-decode-policy", "maybe"])
    assert parse_replay_args(["t.json"]).spec_decode_policy is None
