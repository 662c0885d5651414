"""Does an agentic-edge run use MLPerf v6.1 Edge Agentic's configuration, and where not?

The reference configuration is ``examples/11_Edge_Agentic_Example/online_edge_full_run.yaml``
(mlcommons/endpoints ea332753): the BFCL v4 single-turn gate (995 samples, MLPerf's selection,
native tool calling, temperature 0, seed 42, ``max_completion_tokens`` 1024) and the
performance phase on the recorded coding conversations (``agentic_coding_2.5h.jsonl``), one
conversation in flight (``compliance/checker.py`` 111-153 requires single-stream), 600 s turn
timeout. Every summary carries :func:`mlperf_block`: which configuration ran, and each
departure in words.
"""

from __future__ import annotations

from typing import Any

MLPERF_NAME = "MLPerf v6.1 Edge Agentic"
TURN_TIMEOUT_S = 600.0
# agentic_coding_2.5h.jsonl (examples/11_Edge_Agentic_Example): 20 conversations, 1,007
# assistant rows (the requests), 987 tool rows
MLPERF_CONVERSATIONS, MLPERF_REQUESTS = 20, 1007
# the BFCL data MLPerf's 995 sample ids come from: endpoints ea332753 pyproject.toml 163
BFCL_PIN = "2026.3.23"


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


def _performance_departures(args: Any, mlcommons_trace: bool,
                            perf_file: tuple[int, int] | None) -> list[str]:
    if not mlcommons_trace:
        return [f"performance phase on {args.perf_trace} (MLPerf: the recorded coding "
                "conversations, agentic_coding_2.5h.jsonl, in MLCommons' format)"]
    out = []
    if perf_file is not None and perf_file != (MLPERF_CONVERSATIONS, MLPERF_REQUESTS):
        conversations, requests = perf_file
        out.append(f"performance file {args.perf_trace} holds {conversations} conversations and "
                   f"{requests:,} requests (MLPerf's agentic_coding_2.5h.jsonl: "
                   f"{MLPERF_CONVERSATIONS} and {MLPERF_REQUESTS:,})")
    if args.perf_sessions is not None or args.quick:
        out.append("a subset of the performance conversations (MLPerf: every conversation once)")
    if getattr(args, "tool_delays", False):
        out.append("recorded tool delays injected (MLPerf: inject_tool_delay off)")
    timeout = getattr(args, "turn_timeout", None)
    if timeout is not None and timeout != TURN_TIMEOUT_S:
        out.append(f"turn timeout {timeout} s (MLPerf: {TURN_TIMEOUT_S:g} s)")
    return out


def departures(args: Any, *, mlcommons_trace: bool = False,
               perf_file: tuple[int, int] | None = None, bfcl: str | None = None) -> list[str]:
    """Each point where this run departs from MLPerf's configuration, in words.
    ``perf_file``: (conversations, requests) of the MLCommons performance file read;
    ``bfcl``: the installed bfcl-eval version (None: not consulted)."""
    out: list[str] = []
    if args.mode in ("accuracy", "both"):
        out += _accuracy_departures(args, bfcl)
    else:
        out.append("no accuracy phase (MLPerf: the BFCL v4 gate after the performance phase)")
    if args.mode in ("performance", "both"):
        out += _performance_departures(args, mlcommons_trace, perf_file)
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
    return out


def mlperf_block(args: Any, *, mlcommons_trace: bool = False,
                 perf_file: tuple[int, int] | None = None,
                 bfcl: str | None = None) -> dict[str, Any]:
    """``{"configuration", "departures"}`` for the summary's workload block."""
    gone = departures(args, mlcommons_trace=mlcommons_trace, perf_file=perf_file, bfcl=bfcl)
    return {"configuration": MLPERF_NAME if not gone else f"not {MLPERF_NAME}",
            "reference": "mlcommons/endpoints examples/11_Edge_Agentic_Example/"
                         "online_edge_full_run.yaml",
            "departures": gone}
