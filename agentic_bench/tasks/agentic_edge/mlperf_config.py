"""Does an agentic-edge run use MLPerf v6.1 Edge Agentic's configuration, and where not?

The reference configuration is ``examples/11_Edge_Agentic_Example/online_edge_full_run.yaml``
(mlcommons/endpoints ea332753): the BFCL v4 single-turn gate (995 samples, MLPerf's selection,
native tool calling, temperature 0, seed 42, ``max_completion_tokens`` 1024) and the
performance phase on the recorded coding conversations (``agentic_coding_2.5h.jsonl``), one
conversation in flight (``compliance/checker.py`` 111-153 requires single-stream), 600 s turn
timeout. Every summary carries :func:`mlperf_block`: which configuration ran, and each
departure in words.

agentic-edge has no switch for it: every run is held to that configuration. Its options'
defaults are MLPerf's, with :data:`PRESET` over them (:func:`preset_defaults`, which the task
applies to every run; an option given explicitly wins). The texts below judge the options in
:data:`JUDGED`; every other option whose effective value differs from the configuration's is a
departure by the rule of :mod:`agentic_bench.tasks.mlperf_departures`, unless :data:`FREE` says
why it cannot change the work. The performance file is recognised by its format and counts and
pinned by its SHA-256 (:data:`MLPERF_PERF_SHA256`): an edited file of the same shape departs.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from agentic_bench.tasks.mlperf_departures import COMMON_FREE, rule_departures

MLPERF_NAME = "MLPerf v6.1 Edge Agentic"
TURN_TIMEOUT_S = 600.0
# agentic_coding_2.5h.jsonl (examples/11_Edge_Agentic_Example): 20 conversations, 1,007
# assistant rows (the requests), 987 tool rows
MLPERF_CONVERSATIONS, MLPERF_REQUESTS = 20, 1007
# its SHA-256 (2,038,286 bytes, git blob 8743c11d6c4108d6de8f478668361018feb5c833, unchanged
# since a844430f; computed from the file at ea332753)
MLPERF_PERF_SHA256 = "b7da8c4ffbe1cabd79c4d8169e5201541e006364b4bfc016d01d893e20ee6f70"
# the BFCL data MLPerf's 995 sample ids come from: endpoints ea332753 pyproject.toml 163
BFCL_PIN = "2026.3.23"
# The reference's accuracy phase waits for every reply: no per-request limit in its HTTP client
# (endpoint_client/http.py has none; 572 connects "without timeout"), accuracy drain timeout
# None = "wait indefinitely" (config/schema.py 822-832, commands/benchmark/execute.py 689); the
# yaml's whole-run ``timeout: 21600`` is never applied by execute.py. Ours keeps a limit, set to
# that 6 h: far beyond any real BFCL reply (<= 1024 tokens), so none scores empty by timing out.
BFCL_REQUEST_TIMEOUT_S = 21600.0


def _accuracy_departures(args: Any, bfcl: str | None) -> list[str]:
    out: list[str] = []
    if args.samples == 0:
        return ["no single-turn accuracy samples (MLPerf: the 995-sample BFCL v4 gate)"]
    if bfcl is not None and bfcl != BFCL_PIN:
        out.append(f"bfcl-eval {bfcl} installed (MLPerf: {BFCL_PIN}; another version can "
                   "change the samples, their ids and their answers)")
    if args.samples is not None or args.quick:
        size = args.samples if args.samples is not None else "50 (--quick)"
        out.append(f"{size} single-turn samples (MLPerf: 995)")
    if getattr(args, "sample_selection", "mlperf") != "mlperf":
        out.append("seeded random sample pick (MLPerf: the first n of each subset)")
    if args.tool_mode != "native":
        out.append(f"tool mode {args.tool_mode} (MLPerf: native tool calling)")
    if args.accuracy_target is not None:
        out.append(f"accuracy target {args.accuracy_target} (MLPerf: 0.97 x Qwen3.6-27B's "
                   "86.23 overall and 87.96 normalized)")
    if getattr(args, "multi_turn_samples", 0):
        out.append(f"{args.multi_turn_samples} multi-turn samples added (not in MLPerf's gate; "
                   "scored apart)")
    return out


def file_sha256(path: str | Path) -> str:
    """The SHA-256 of a file's bytes (the performance file's identity)."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _performance_departures(args: Any, mlcommons_trace: bool, perf_file: tuple[int, int] | None,
                            perf_sha256: str | None) -> list[str]:
    if not mlcommons_trace:
        return [f"performance phase on {args.perf_trace} (MLPerf: the recorded coding "
                "conversations, agentic_coding_2.5h.jsonl, in MLCommons' format)"]
    out = []
    if perf_file is not None and perf_file != (MLPERF_CONVERSATIONS, MLPERF_REQUESTS):
        conversations, requests = perf_file
        out.append(f"performance file {args.perf_trace} holds {conversations} conversations and "
                   f"{requests:,} requests (MLPerf's agentic_coding_2.5h.jsonl: "
                   f"{MLPERF_CONVERSATIONS} and {MLPERF_REQUESTS:,})")
    elif perf_sha256 is not None and perf_sha256 != MLPERF_PERF_SHA256:
        out.append(f"performance file {args.perf_trace} is not MLPerf's "
                   f"agentic_coding_2.5h.jsonl: SHA-256 {perf_sha256[:16]}... (MLPerf's, "
                   f"mlcommons/endpoints ea332753: {MLPERF_PERF_SHA256[:16]}...)")
    if args.perf_sessions is not None or args.quick:
        out.append("a subset of the performance conversations (MLPerf: every conversation once)")
    if getattr(args, "tool_delays", False):
        out.append("recorded tool delays injected (MLPerf: inject_tool_delay off)")
    timeout = getattr(args, "turn_timeout", None)
    if timeout is not None and timeout != TURN_TIMEOUT_S:
        out.append(f"turn timeout {timeout} s (MLPerf: {TURN_TIMEOUT_S:g} s)")
    return out


def departures(args: Any, *, mlcommons_trace: bool = False,
               perf_file: tuple[int, int] | None = None, bfcl: str | None = None,
               perf_sha256: str | None = None) -> list[str]:
    """Each point where this run departs from MLPerf's configuration, in words: the texts
    below, then every other option off the configuration (:func:`_rule`).
    ``perf_file``: (conversations, requests) of the MLCommons performance file read;
    ``perf_sha256``: its SHA-256; ``bfcl``: the installed bfcl-eval version (None: not
    consulted, as for the digest)."""
    out: list[str] = []
    if args.mode in ("accuracy", "both"):
        out += _accuracy_departures(args, bfcl)
    else:
        out.append("no accuracy phase (MLPerf: the BFCL v4 gate after the performance phase)")
    if args.mode in ("performance", "both"):
        out += _performance_departures(args, mlcommons_trace, perf_file, perf_sha256)
    else:
        out.append("no performance phase (MLPerf: the coding conversations first)")
    scenario = getattr(args, "scenario", "single-stream")
    if scenario != "single-stream":
        out.append(f"scenario {scenario} (MLPerf: single-stream, one request in flight)")
    if getattr(args, "max_tokens", None) is not None:
        out.append(f"max_tokens {args.max_tokens} added to every request "
                   "(MLPerf: max_completion_tokens 1024)")
    if getattr(args, "temperature", None) not in (None, 0, 0.0):
        out.append(f"temperature {args.temperature} (MLPerf: 0)")
    if getattr(args, "loadgen", None):
        out.append("issued by MLPerf LoadGen (MLPerf Edge Agentic uses the endpoints client)")
    return out + _rule(args)


# What MLPerf's configuration sets where our defaults differ (every agentic-edge run).
PRESET: dict[str, Any] = {
    "stop_after_failures": 0,  # the reference issues every request whatever fails
    "request_timeout": BFCL_REQUEST_TIMEOUT_S,  # the BFCL phase waits for its replies
}
# The options the texts above judge (the rule leaves them to those texts).
JUDGED = frozenset({
    "samples", "quick", "sample_selection", "tool_mode", "accuracy_target",
    "multi_turn_samples",  # _accuracy_departures
    "perf_sessions", "tool_delays", "turn_timeout",  # _performance_departures
    "mode", "scenario", "max_tokens", "temperature", "loadgen",  # departures
})
# The options that cannot change the work of a run on MLPerf's configuration, and why.
FREE: dict[str, str] = {
    **COMMON_FREE,
    "model": "the name the server lists the model under (the reference sends its configured "
             "name); the model is held to MLPerf's accuracy gates, not to a name",
    "perf_trace": "where the performance file is read from; what it holds is judged (MLCommons' "
                  "format, 20 conversations / 1,007 requests, its SHA-256)",
    "agent": "read only by the multi-turn samples, which are not in MLPerf's gate and a "
             "departure themselves (--multi-turn-samples)",
    "max_steps": "read only by the multi-turn samples, which are not in MLPerf's gate and a "
                 "departure themselves (--multi-turn-samples)",
}
NOTES = {
    "seed": "config.yaml's seeds, which the reference's compliance check requires to be 42, "
            "compliance/checker.py 124-141",
    "stop_after_failures": "the reference issues every request whatever fails",
    "retries": "the reference fails a turn at its first failed request",
    "request_timeout": "the BFCL phase's limit per request, where the reference waits for "
                       "every reply (the coding phase's is the turn timeout)",
    "sessions": "sessions issued, cycling through the data, where MLPerf issues each "
                "conversation and sample once",
    "duration": "issuing stops after it, where MLPerf issues every request",
    "perf_max_duration": "the performance phase's safety cap, online_edge_full_run.yaml 95-97 "
                         "and config/rulesets/mlcommons/rules.py 323",
}


def preset_defaults(args: Any) -> dict[str, Any]:
    """The option defaults every agentic-edge run gets (:data:`PRESET`; explicit options win
    and, when they differ, are departures)."""
    return dict(PRESET)


def _rule(args: Any) -> list[str]:
    from agentic_bench.options.common import run_options_model
    from agentic_bench.options.schema import OptionsModel
    from agentic_bench.tasks.agentic_edge.options import AgenticEdgeOptions

    model = type(args) if isinstance(args, OptionsModel) else \
        run_options_model(AgenticEdgeOptions)
    return rule_departures(args, model, PRESET, judged=JUDGED, free=FREE, notes=NOTES)


def mlperf_block(args: Any, *, mlcommons_trace: bool = False,
                 perf_file: tuple[int, int] | None = None, bfcl: str | None = None,
                 perf_sha256: str | None = None) -> dict[str, Any]:
    """``{"configuration", "reference", "departures", "notes"}`` for the summary's workload
    block; ``notes``: the differences by design of the phases this run has
    (:mod:`~agentic_bench.tasks.agentic_edge.reference_notes`; the departures the run's course
    causes are added after it, :func:`~.reference_notes.with_run_state`)."""
    from agentic_bench.tasks.agentic_edge.reference_notes import notes

    gone = departures(args, mlcommons_trace=mlcommons_trace, perf_file=perf_file, bfcl=bfcl,
                      perf_sha256=perf_sha256)
    return {"configuration": MLPERF_NAME if not gone else f"not {MLPERF_NAME}",
            "reference": "mlcommons/endpoints examples/11_Edge_Agentic_Example/"
                         "online_edge_full_run.yaml",
            "departures": gone,
            "notes": notes(args.mode, mlcommons_trace, getattr(args, "samples", None))}
