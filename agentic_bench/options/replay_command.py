"""``agentic-bench replay TRACE``'s options: the trace and its format, the agent-tree options
(Weka traces, InferenceX AgentX), then every run's (:class:`~agentic_bench.options.common.
CommonOptions`); and the lanes a run over agent trees goes in (:meth:`ReplayCommandOptions.
lane_spec`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import field_validator

from agentic_bench.errors import ConfigError
from agentic_bench.options.common import CommonOptions
from agentic_bench.options.load import LaneSpec
from agentic_bench.options.replay import SynthesisOptions
from agentic_bench.options.schema import checked, option

TREES = "agent trees (Weka traces, InferenceX AgentX; docs/agentx.md)"


class ReplayCommandOptions(CommonOptions):
    """``agentic-bench replay TRACE``: a trace file and its format, then the common options."""

    option_group: ClassVar[str] = "trace"

    trace: Path = option(..., positional=True, identity=True,
                         help="trace file (JSONL, see docs/trace-format.md), or a Weka trace "
                         "file, directory or JSONL corpus")
    format: str = option("native", metavar="FORMAT", identity=True,
                         help="native (default: a Weka trace is recognised), auto, weka, "
                         "mlcommons-agentic, mooncake, otel-genai, sglang-agentic, sharegpt — "
                         "foreign formats are imported on the fly (docs/importers.md)")

    agentx: bool = option(False, group=TREES, identity=True,
                          help="InferenceX AgentX as AIPerf's agentx preset runs it (the "
                          "inferencex-agentx-mvp rules): lanes (--concurrency), trajectory "
                          "start 0.25:0.75, 10 warm-up requests per lane, idle-gap cap 10 s, a "
                          "measured phase of --duration (3600 s; at least 900), first-user "
                          "cache bust, replies "
                          "held to their recorded length; every departure is named and the "
                          "verdict follows the scenario's validity rules")
    tokenizer: str = option("server", metavar="DIR|server", group=TREES, identity=True,
                            help="tokenizer that writes prompts given as blocks: a local Hugging "
                            "Face folder or tokenizer.json (never downloaded), or 'server' "
                            "(default: the endpoint's tokenize route, the served model's own)")
    trajectory_start: str = option("0:0", metavar="MIN:MAX", group=TREES, identity=True,
                                   example="0.25:0.75",
                                   help="each lane's first tree starts at t* drawn in "
                                   "[MIN, MAX] of its recorded span (0:0 = from its first "
                                   "request; --agentx: 0.25:0.75)")
    warmup_requests_per_lane: int = option(
        1, metavar="N", group=TREES, identity=True,
        help="mid-trajectory warm-up: each conversation live at t* first sends its last N "
        "requests before t* (recorded as warm-up, never counted; --agentx: 10)")
    allow_dataset_wrap: bool = option(False, group=TREES, identity=True,
                                      help="a lane that drains when no tree is left replays "
                                      "one again from its first request (new cache-bust "
                                      "marker); without it the lane stays empty and the run "
                                      "says so")
    idle_gap_cap: float | None = option(None, metavar="S", group=TREES, identity=True,
                                        help="when no request is in flight anywhere, move every "
                                        "pending wait earlier so the run idles at most S "
                                        "seconds (--agentx: 10)")
    trace_idle_gap_cap: float | None = option(
        None, metavar="S", group=TREES, identity=True,
        help="per tree: when none of a tree's requests (its subagents' included) has been in "
        "flight for S seconds, move that tree's pending waits earlier so its next request goes "
        "now; other trees are untouched (InferenceX --trace-idle-gap-cap-seconds; --agentx: 300)")
    failed_request_threshold: float | None = option(
        None, metavar="RATIO", group=TREES, identity=True, example=0.05,
        help="stop the measured phase early once failed / (ok + failed) requests exceed RATIO, "
        "counted from max(--concurrency, 10) measured responses on, context overflows left out "
        "(AIPerf --failed-request-threshold; --agentx: 0.10, the run then reads INVALID)")
    cache_bust: Literal["first-user", "none"] = option(
        "first-user", group=TREES, identity=True,
        help="first-user (default): each tree's first user messages start with a marker "
        "unique to the run and pass, so no earlier run's cache serves it; none")
    honor_eos: bool = option(False, group=TREES, identity=True,
                             help="let the model stop before the recorded reply length (no "
                             "ignore_eos); by default replies are held to it")
    min_tokens: bool = option(False, group=TREES, identity=True,
                              help="also send min_tokens = the recorded reply length (vLLM and "
                              "others that take it)")
    max_context: int | None = option(None, metavar="N", group=TREES, identity=True,
                                     help="drop every request whose input + output exceeds N "
                                     "tokens (the rule of SemiAnalysis' -256k corpus; a subagent "
                                     "left without requests goes too)")
    parent_session_header: tuple[str, ...] = option(
        (), metavar="NAME", group=TREES, example=("X-Dynamo-Parent-Session-ID",),
        help="on a subagent's requests, its parent's session id in this header (repeatable); "
        "--session-header carries the subagent's own id")
    spec_decode_policy: Literal["off", "synthetic-golden", "real"] | None = option(
        None, group=TREES, identity=True,
        help="the server's speculative decoding, declared: off, synthetic-golden (synthetic "
        "acceptance at InferenceX's golden acceptance length: vLLM synthetic_acceptance_length, "
        "SGLang SGLANG_SIMULATE_ACC_LEN, TensorRT-LLM TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS) "
        "or real; recorded, and with --agentx checked against the drafts the server reports "
        "(--server-metrics); real fails AgentX's golden-acceptance rule")
    cache_capacity: tuple[str, ...] = option(
        (), metavar="TOKENS", group=TREES, example=("1000000",),
        help="after the run, add the theoretical prefix hit of a finite KV cache of TOKENS "
        "tokens (block-level LRU, every lane sharing it, requests in the order they were sent) "
        "beside the unbounded per-tree one (a list A,B,C or repeated)")
    gpus: int = option(1, metavar="N", group=TREES,
                       help="GPUs serving the endpoint, for throughput per GPU (default 1)")

    @property
    def synthesis(self) -> SynthesisOptions:
        return SynthesisOptions(tokenizer=self.tokenizer, seed=self.seed,
                                ignore_eos=not self.honor_eos, min_tokens=self.min_tokens)

    @property
    def scenario_rules(self) -> dict[str, Any] | None:
        from agentic_bench.options.agentx import scenario_rules

        return scenario_rules(self) if self.agentx else None

    @property
    def gpus_behind(self) -> int:
        return self.gpus

    @property
    def parent_headers(self) -> tuple[str, ...]:
        return self.parent_session_header

    def lane_spec(self) -> LaneSpec:
        """The lanes of a run over agent trees: ``--concurrency`` lanes (1 without it), the
        trajectory start, warm-up, wrap, idle cap and duration; the options that do not apply
        to lanes are refused here, once the trace is known to hold trees (``--workers N``
        splits whole lanes over N workers, so it needs N lanes or more)."""
        if self.scenario not in ("single-stream", "concurrency"):
            raise ConfigError(f"--scenario {self.scenario}: agent trees (Weka traces) run in "
                              "lanes as AgentX does: --scenario concurrency --concurrency N (or "
                              "the default single-stream, one lane)")
        if self.rate is not None or self.max_errors is not None:
            raise ConfigError("--rate and --max-errors do not apply to lanes of agent trees")
        lanes = (self.concurrency or 1) if self.scenario == "concurrency" else 1
        if self.workers > lanes:
            raise ConfigError(f"--workers {self.workers}: agent trees split over workers by "
                              f"whole lanes, and this run has {lanes} (a lane holds a whole "
                              f"tree and its subagents): --concurrency {self.workers} or more, "
                              "or fewer --workers")
        return LaneSpec(lanes=lanes, trajectory=parse_trajectory(self.trajectory_start),
                        warmup_requests=self.warmup_requests_per_lane,
                        duration_s=self.duration, cut=self.agentx,
                        allow_wrap=self.allow_dataset_wrap, idle_gap_cap_s=self.idle_gap_cap,
                        trace_idle_gap_cap_s=self.trace_idle_gap_cap,
                        cache_bust=self.cache_bust != "none", seed=self.seed,
                        grace_s=self.grace, sessions=self.sessions)

    @field_validator("cache_capacity")
    @classmethod
    def _capacity(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        from agentic_bench.options.capacity import parse_capacities

        checked(parse_capacities, value)
        return value

    @property
    def cache_capacities(self) -> tuple[int, ...]:
        """``--cache-capacity`` in tokens."""
        from agentic_bench.options.capacity import parse_capacities

        return parse_capacities(self.cache_capacity)

    @field_validator("failed_request_threshold")
    @classmethod
    def _ratio(cls, value: float | None) -> float | None:
        if value is not None and not 0 <= value <= 1:
            raise ValueError(f"{value:g}: a ratio in [0, 1]")
        return value

    @field_validator("trajectory_start")
    @classmethod
    def _trajectory(cls, value: str) -> str:
        checked(parse_trajectory, value)
        return value


def parse_trajectory(text: str) -> tuple[float, float]:
    """``MIN:MAX`` fractions with 0 <= MIN <= MAX <= 1."""
    lo, sep, hi = text.partition(":")
    try:
        low, high = float(lo), float(hi)
    except ValueError:
        low = high = -1.0
    if not sep or not (0.0 <= low <= high <= 1.0):
        raise ConfigError(f"--trajectory-start {text!r}: expected MIN:MAX with "
                          "0 <= MIN <= MAX <= 1 (e.g. 0.25:0.75; 0:0 starts every tree at its "
                          "first request)")
    return low, high


__all__ = ["TREES", "ReplayCommandOptions", "parse_trajectory"]
