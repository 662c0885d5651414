"""``--spec-decode-policy`` under ``--agentx``: the declared policy and what the server reported.

InferenceX's rule for AgentX (SemiAnalysisAI/InferenceX 843c6254, ``golden_al_distribution/
README.md`` lines 23-25, "Fairness Guidelines for AgentX"; the sign-off's "Check 11 — Agentic
spec-decode configs use the golden simulated acceptance length",
``.github/codeowner-signoff-verify-prompt.md`` lines 316-343): a speculative-decoding submission
runs **synthetic acceptance at the committed golden acceptance length** (vLLM
``synthetic_acceptance_length``, SGLang ``SGLANG_SIMULATE_ACC_LEN``, TensorRT-LLM
``TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS`` = AL − 1); real (unsimulated) acceptance fails.

Rows (each with the rule it checks):

* ``spec_decode_policy`` — the declared policy: ``off`` or ``synthetic-golden`` pass, ``real``
  fails (the rule above). No row when none was declared.
* ``spec_decode_reported`` — only where a scraped server exports a speculation family
  (server_metrics/speculation.py): ``off`` (or none declared) while the server drafted fails;
  ``synthetic-golden``/``real`` while it drafted nothing fails. A server that exports no such
  family (llama.cpp, no ``--server-metrics``) cannot be checked: no row.

Whether the server's acceptance length equals the golden value is not checked: the golden
curves live in InferenceX's YAMLs, per model, mode and draft length; the summary's
``server_metrics.sources[URL].speculation.mean_acceptance_length`` is there to compare.
"""

from __future__ import annotations

from typing import Any

from agentic_bench.metrics.summary_model import Summary

POLICIES = ("off", "synthetic-golden", "real")
GOLDEN_RULE = ("InferenceX AgentX: speculative decoding at the golden acceptance length by "
               "synthetic acceptance, never real acceptance (golden_al_distribution/README.md "
               "23-25; codeowner sign-off Check 11)")


def _row(name: str, value: Any, limit: Any, op: str, ok: bool, rule: str) -> dict[str, Any]:
    return {"name": name, "value": value, "limit": limit, "op": op, "ok": bool(ok),
            "rule": rule}


def reported_drafting(summary: Summary | dict[str, Any]) -> dict[str, bool]:
    """Per scraped source that exports a speculation family: did it draft during the run?"""
    sources = (Summary.of(summary).server_metrics or {}).get("sources") or {}
    return {url: bool(block["speculation"].get("drafting"))
            for url, block in sources.items()
            if isinstance(block, dict) and isinstance(block.get("speculation"), dict)}


def spec_rows(summary: Summary | dict[str, Any], policy: str | None) -> list[dict[str, Any]]:
    """The speculation rows of an ``--agentx`` run's verdict (module doc)."""
    rows: list[dict[str, Any]] = []
    if policy is not None:
        rows.append(_row("spec_decode_policy", policy, "off|synthetic-golden", "in",
                         policy in ("off", "synthetic-golden"), GOLDEN_RULE))
    drafting = reported_drafting(summary)
    if not drafting:
        return rows
    drafted = sorted(url for url, d in drafting.items() if d)
    if policy in (None, "off"):
        ok = not drafted
        value = f"drafts reported by {', '.join(drafted)}" if drafted else "no drafts"
        limit = "no drafts"
        rule = ("the server must not draft under --spec-decode-policy off" if policy else
                "the server drafted: declare --spec-decode-policy (synthetic-golden)")
    else:
        ok = bool(drafted)
        value = f"drafts reported by {', '.join(drafted)}" if drafted else "no drafts reported"
        limit = "drafts"
        rule = f"--spec-decode-policy {policy}: the server must report drafts"
    rows.append(_row("spec_decode_reported", value, limit, "==", ok, rule))
    return rows


__all__ = ["GOLDEN_RULE", "POLICIES", "reported_drafting", "spec_rows"]
