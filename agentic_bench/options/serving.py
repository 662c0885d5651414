"""The options of the commands that serve an endpoint: ``sim``, ``record`` and ``serve``.

Each is an options model like a run's (:mod:`agentic_bench.options.schema`), so each takes
``--config FILE``, ``config schema|show|check`` covers it, and its flags and ``--help`` are
generated from these declarations. :class:`EndpointOptions` — where the served endpoint listens
— is declared once and shared.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, ClassVar

from pydantic import AfterValidator, field_validator

from agentic_bench.options.schema import OptionsModel, option

FAULTS = "faults (per-request probabilities, for robustness tests)"


class EndpointOptions(OptionsModel):
    """Where a served endpoint listens (``sim``, ``record``, ``serve``)."""

    option_group: ClassVar[str] = "endpoint"
    identity_default: ClassVar[bool] = False
    description: ClassVar[str] = ""  # the command's --help text

    host: str = option("127.0.0.1", metavar="ADDR",
                       help="address to listen on (default 127.0.0.1: loopback only)")
    port: int | None = option(None, metavar="PORT", help="port (default: a free one)")

    @field_validator("port")
    @classmethod
    def _port(cls, value: int | None) -> int | None:
        if value is not None and not 0 <= value < 65536:
            raise ValueError(f"{value}: expected a port in 0..65535 (0: a free one)")
        return value


def _rate(value: float) -> float:
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{value}: expected a probability in [0, 1]")
    return value


def _not_negative(value: float) -> float:
    if value < 0:
        raise ValueError(f"{value}: must be ≥ 0")
    return value


Millis = Annotated[float, AfterValidator(_not_negative)]  # a duration in ms, never negative


class SimOptions(EndpointOptions):
    """``agentic-bench sim``: the latency simulator's timings, replies and faults."""

    option_group: ClassVar[str] = "simulator"
    description: ClassVar[str] = (
        "Serve /v1/chat/completions (streaming) and /v1/models with injected timings: first "
        "token after --ttft-ms, then one token every --itl-ms.")

    port: int | None = option(8900, metavar="PORT", help="port (default 8900; 0 = a free one)")
    ttft_ms: Millis = option(100.0, metavar="MS",
                            help="time from the complete request to the first token "
                            "(default 100)")
    itl_ms: Millis = option(10.0, metavar="MS", help="gap between consecutive tokens (default 10)")
    output_tokens: int = option(64, metavar="N",
                                help="tokens per reply, or the request's smaller max_tokens "
                                "(default 64)")
    jitter: Millis = option(0.0, metavar="MS",
                           help="uniform ±MS added to each inter-token gap (seeded)")
    ttft_jitter: Millis = option(0.0, metavar="MS",
                                 help="uniform ±MS added to each TTFT (seeded): latencies of a "
                                 "known distribution")
    tool_call: str | None = option(None, metavar="NAME",
                                   help="stream a call to tool NAME instead of text")
    model: str = option("sim", metavar="MODEL", help="model id to serve (default sim)")
    seed: int = option(0, metavar="N", help="seed for --jitter, --ttft-jitter and the fault "
                       "draws (default 0)")
    replay_trace: Path | None = option(
        None, metavar="FILE",
        help="oracle mode: answer each request with the recorded reply that followed its "
        "history in FILE (MLCommons agentic JSONL), streamed one word per chunk; an unknown "
        "history gets a short text reply")
    reply: str | None = option(
        None, metavar="TEXT", example='{"correct": true}',
        help="answer every request with TEXT (streamed one word per chunk), e.g. a judge "
        "verdict '{\"correct\": true}' for rag-e2e's --judge-endpoint")
    prefix_cache: bool = option(
        False, help="prefix-cache model: usage counts prompt characters and reports as cached "
        "(prompt_tokens_details.cached_tokens) those whose whole prefix an earlier request "
        "sent, in 64-character blocks — the trace's prefix ceiling, so a single-stream "
        "replay's hit rate equals it")
    precise: bool = option(
        False, help="hold every injected time to tens of microseconds (the last 2 ms before "
        "each deadline are spent polling: one busy core); for measuring a client's own timing "
        "error")
    ttft_per_inflight_ms: Millis = option(
        0.0, metavar="MS",
        help="load model: add MS to a reply's TTFT for every other reply in flight when it "
        "arrives (TTFT = --ttft-ms + MS x others), so latency grows with load and a capacity "
        "search has a known answer (default 0: no load model)")
    itl_per_inflight_ms: Millis = option(
        0.0, metavar="MS",
        help="load model: add MS to each gap between a reply's tokens for every other reply in "
        "flight when it arrives (default 0)")
    context_limit: int | None = option(
        None, metavar="N",
        help="answer HTTP 400 'maximum context length' when prompt words + max_tokens exceed "
        "N (a model's context window, for overflow handling)")
    request_log: Path | None = option(
        None, metavar="FILE",
        help="append every chat request (arrival time, routing headers, body) to FILE as JSON "
        "Lines")
    timestamps: bool = option(
        False, help="add server_timing_ns to each streamed reply's usage event: when the "
        "request's first and last bytes were read and the head and first token written "
        "(perf_counter_ns), so the client's share of TTFT is told from the server's "
        "(docs/performance.md)")
    timing_log: Path | None = option(
        None, metavar="FILE",
        help="append each streamed reply's server_timing_ns (as --timestamps gives it) with the "
        "request's X-Request-ID and the host's wall-minus-perf_counter offset to FILE as JSON "
        "Lines: the server's side for a client that reads no usage event (AIPerf beside us in "
        "benchmarks/agentx_scale.py)")
    api_key_env: str | None = option(None, metavar="VAR",
                                     help="require 'Bearer $VAR' (to test key handling)")
    fail_rate: float = option(0.0, metavar="P", group=FAULTS, example=0.25,
                              help="probability to answer HTTP 500 (default 0)")
    hang_rate: float = option(0.0, metavar="P", group=FAULTS, example=0.25,
                              help="probability to send headers, then nothing (default 0)")
    disconnect_rate: float = option(0.0, metavar="P", group=FAULTS, example=0.25,
                                    help="probability to drop the connection mid-stream "
                                    "(default 0)")
    malformed_rate: float = option(0.0, metavar="P", group=FAULTS, example=0.25,
                                   help="probability to send a non-JSON chunk mid-stream "
                                   "(default 0)")
    slow_headers_ms: Millis = option(0.0, metavar="MS", group=FAULTS,
                                    help="delay the response headers by MS (default 0)")

    @field_validator("fail_rate", "hang_rate", "disconnect_rate", "malformed_rate")
    @classmethod
    def _probability(cls, value: float) -> float:
        return _rate(value)


class RecordOptions(EndpointOptions):
    """``agentic-bench record``: the recording proxy."""

    option_group: ClassVar[str] = "proxy"
    description: ClassVar[str] = (
        "Serve an OpenAI-compatible pass-through on --port that forwards to --upstream "
        "(streams relayed chunk by chunk) and writes the chat sessions it sees to --out as a "
        "trace: messages, tools, replies, usage, timings, think and tool time. Sessions are "
        "grouped by the X-Session-ID header, else by conversation prefix (docs/recording.md); "
        "they are written after --idle-timeout seconds without a request and on "
        "SIGINT/SIGTERM. Authorization headers are forwarded, never written.")

    upstream: str = option(..., metavar="URL", redact=True, example="http://127.0.0.1:8000/v1",
                           help="the real endpoint (http://host:port/v1)")
    port: int | None = option(8901, metavar="PORT", help="port to listen on (8901; 0 = any)")
    out: Path = option(..., metavar="FILE", help="trace to write")
    idle_timeout: float = option(60.0, metavar="S",
                                 help="write a session after S seconds without a request "
                                 "(default 60)")
    upstream_timeout: float = option(600.0, metavar="S",
                                     help="give up on an upstream read after S seconds of "
                                     "silence (600)")
    dump_requests: Path | None = option(None, metavar="FILE",
                                        help="also write each chat request body (no headers) "
                                        "as JSONL, for debugging")

    @field_validator("upstream")
    @classmethod
    def _upstream(cls, value: str) -> str:
        from agentic_bench.errors import ConfigError
        from agentic_bench.transport.url import normalize_base_url

        try:
            normalize_base_url(value)
        except ConfigError as exc:
            raise ValueError(str(exc)) from None
        return value

    @field_validator("idle_timeout", "upstream_timeout")
    @classmethod
    def _positive(cls, value: float) -> float:
        if not value > 0:
            raise ValueError(f"{value}: must be > 0 seconds")
        return value


# ``serve`` flags that are gone (with llama-cpp-python's server), refused by name
REMOVED_SERVE_FLAGS = ("--server", "--chat-format")
REMOVED_SERVER = (
    "was removed on 2026-12-06 with llama-cpp-python's server and our chat-format shim for it "
    "(BFCL, 50 samples: 8/50 right, llama-server with our tool-call routing 9/50): `agentic-bench "
    "serve` runs llama.cpp's llama-server, with our tool-call routing in front "
    "(--no-tool-routing: llama-server alone); drop the flag")


class ServeOptions(EndpointOptions):
    """``agentic-bench serve``: the packaged model on llama.cpp's ``llama-server``, with our
    tool-call routing in front."""

    option_group: ClassVar[str] = "server"
    description: ClassVar[str] = (
        "Start llama.cpp's llama-server with the packaged SmolLM2-135M-Instruct GGUF (--slots "
        "parallel slots, /metrics) behind our tool-call routing proxy (requests with tools get "
        "a message or a named call, grammar-chosen; every other request passes through) — "
        "print its base URL, and serve until SIGINT/SIGTERM (docs/embedded-endpoint.md).")

    no_tool_routing: bool = option(
        False, help="serve llama-server alone, without our tool-call routing in front (its own "
        "tool calling: 1 call in 50 BFCL replies of this model)")
    slots: int = option(1, metavar="N",
                        help="parallel slots, each with the whole --ctx (default 1)")
    ctx: int | None = option(None, metavar="N",
                             help="context size per slot (default: the model's 8192)")
    threads: int | None = option(None, metavar="N", help="threads (default: min(4, CPUs))")
    log: Path | None = option(None, metavar="FILE",
                              help="also keep the server's output in this file")

    @field_validator("ctx", "threads", "slots")
    @classmethod
    def _positive(cls, value: int | None) -> int | None:
        if value is not None and value <= 0:
            raise ValueError(f"{value}: expected a positive integer")
        return value


__all__ = ["EndpointOptions", "RecordOptions", "ServeOptions", "SimOptions"]
