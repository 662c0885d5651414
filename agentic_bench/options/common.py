"""The options every run shares (``replay`` and ``run BENCHMARK``), declared once.

:class:`CommonOptions` is the schema of the endpoint, load, LoadGen, replay and output options;
a benchmark's own options model is combined with it by :func:`run_options_model`, and ``replay``
adds its trace and agent-tree options (:class:`~agentic_bench.options.replay_command.
ReplayCommandOptions`). Flags, ``--help``, configuration files, ``config
show``, worker recipes, the ``run`` record's ``options`` and the resume identity all come from
these declarations (:mod:`agentic_bench.options.schema`). Options that identify a run — what is
sent and how it is issued — are ``identity=True``: ``--resume`` refuses to continue a run with
other values for them.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Self

from pydantic import ValidationInfo, create_model, field_validator, model_validator

if TYPE_CHECKING:
    from agentic_bench.options.loadgen import LoadgenOptions

from agentic_bench.errors import ConfigError
from agentic_bench.options.load import LaneSpec, LoadSpec, SearchSpec, SweepSpec
from agentic_bench.options.replay import ReplayOptions, SynthesisOptions, ThinkPolicy
from agentic_bench.options.schema import OptionsModel, checked, option
from agentic_bench.options.slo import SloSet

Scenario = Literal["single-stream", "multi-stream", "server", "offline", "concurrency",
                   "trace-timed", "interactive"]
SCENARIO_CHOICES: tuple[str, ...] = Scenario.__args__  # type: ignore[attr-defined]

ENDPOINT, LOAD, LOADGEN = "endpoint", "load", \
    "MLPerf LoadGen (optional: pip install 'agentic-serving-bench[loadgen]')"
REPLAY, OUTPUT = "replay", "verdict and output"
# --endpoint values that are gone, and what replaces them (also refused by endpoint.resolve)
REMOVED_ENDPOINTS = {
    "llama-cpp-python": (
        "'llama-cpp-python' was removed on 2026-12-06 with llama-cpp-python's server and our "
        "chat-format shim for it (BFCL, 50 samples: 8/50 right, llama-server with our "
        "tool-call routing 9/50); use --endpoint embedded (= llama-server, our routing in front "
        "when the model makes tool calls), --endpoint inproc (the model in-process, no HTTP) "
        "or --endpoint URL"),
}


class CommonOptions(OptionsModel):
    """Endpoint, load, LoadGen, replay and output options (every run)."""

    identity_default: ClassVar[bool] = False

    endpoint: str = option(
        "embedded", metavar="URL|embedded|llama-server|inproc", group=ENDPOINT,
        identity=True, redact=True,
        help="OpenAI-compatible base URL (http://host:port/v1; /v1 is added when missing), "
        "'embedded' (default: the packaged model on llama.cpp's own llama-server, a slot per "
        "stream, /metrics scraped — with our tool-call routing in front when the model is to "
        "make tool calls: agentic-edge's native tool mode), 'llama-server' (the same), or "
        "'inproc' (the model in-process, no HTTP, no tool calls); 'llama-cpp-python' was "
        "removed on 2026-12-06; docs/embedded-endpoint.md")
    model: str | None = option(None, group=ENDPOINT, identity=True,
                               help="model name to request (default: the first one the "
                               "endpoint lists)")
    api_key_env: str = option("OPENAI_API_KEY", metavar="VAR", group=ENDPOINT,
                              help="environment variable holding the API key (never stored)")
    api_key_header: str | None = option(
        None, metavar="NAME", group=ENDPOINT, example="api-key",
        help="send the API key as the bare value of this header (Azure OpenAI: api-key) "
        "instead of 'Authorization: Bearer'; a URL's user:password goes as Basic auth, its "
        "query string (?api-version=...) on every request")
    request_timeout: float = option(300.0, metavar="S", group=ENDPOINT,
                                    help="per-request timeout in seconds (default 300)")
    retries: int = option(0, metavar="N", group=ENDPOINT,
                          help="retry a failed request up to N times (attempts are recorded)")
    retry_on: Literal["any", "mlperf"] = option(
        "any", group=ENDPOINT,
        help="which failed requests --retries retries: any (at once; default) or mlperf (as "
        "MLPerf E2E-RAG's reference: timeouts and HTTP 429/502/503/504 only, after "
        "Retry-After or 1, 2, 4, 8 s)")
    max_tokens: int | None = option(None, metavar="N", group=ENDPOINT, identity=True,
                                    help="max_tokens sent with each call")
    temperature: float | None = option(None, metavar="T", group=ENDPOINT, identity=True,
                                       help="temperature for each call")
    session_header: tuple[str, ...] = option(
        (), metavar="NAME", group=ENDPOINT, example=("X-Session-ID", "X-Conversation"),
        help="send each session's id in this HTTP header on every request of the session "
        "(repeatable; X-Session-ID is the usual name), so a KV-cache-aware router keeps a "
        "conversation on one replica")
    transport: Literal["raw", "aiohttp"] | None = option(
        None, group=ENDPOINT,
        help="HTTP client: raw (default: timestamps in the socket's read callback) or aiohttp "
        "(to compare, or if a server's framing trips the raw client); also "
        "$AGENTIC_BENCH_TRANSPORT. docs/transport.md")
    session_user: bool = option(False, group=ENDPOINT,
                                help="also send each session's id as the request body's OpenAI "
                                "'user' field (for routers that key on it)")
    traceparent: bool = option(False, group=ENDPOINT,
                               help="send a W3C traceparent header on every request, its trace "
                               "the session's (as --otel-endpoint exports it), so a server's own "
                               "traces join the run's; on with --otel-endpoint. docs/interop.md")
    server_metrics: tuple[str, ...] = option(
        (), metavar="URL", group=ENDPOINT, redact=True, identity=False,
        example=("http://gpu-box:8000/metrics",),
        help="scrape this Prometheus endpoint during the run (repeatable: the server, a DCGM "
        "exporter at :9400/metrics, ...): KV-cache use, prefix-cache hits, running and queued "
        "requests, preemptions, GPU power and energy over time in the summary and report "
        "(vLLM, SGLang, llama.cpp, TGI, Dynamo, DCGM names known; others kept raw). "
        "docs/server-metrics.md")
    server_metrics_interval: float = option(
        1.0, metavar="S", group=ENDPOINT, identity=False,
        help="seconds between scrapes of --server-metrics (default 1)")

    scenario: Scenario = option("single-stream", group=LOAD, identity=True,
                                help="load scenario (default: the benchmark's); see "
                                "`agentic-bench list`")
    rate: float | None = option(None, metavar="R", group=LOAD, identity=True,
                                help="server: sessions per second")
    concurrency: int | None = option(None, metavar="N", group=LOAD, identity=True,
                                     help="streams for multi-stream/concurrency; in-flight cap "
                                     "for offline/server")
    sessions: int | None = option(None, metavar="N", group=LOAD, identity=True,
                                  help="sessions to issue (cycling through the trace; default: "
                                  "one pass)")
    duration: float | None = option(None, metavar="S", group=LOAD, identity=True,
                                    help="stop issuing after S seconds")
    max_errors: int | None = option(None, metavar="N", group=LOAD, identity=True,
                                    help="stop issuing after N errors")
    stop_after_failures: int = option(
        8, metavar="N", group=LOAD,
        help="stop issuing when the first N requests have all failed (an endpoint that cannot "
        "serve the run) and say why; 0 = never (default 8; --agentx: 0, AgentX judges "
        "errors by its own rules)")
    seed: int = option(42, metavar="N", group=LOAD, identity=True,
                       help="seed for arrival schedules (42)")
    trials: int = option(1, metavar="K", group=LOAD, identity=True, example=3,
                         help="run each task K times (trial t sends seed --seed+t in every "
                         "request; records carry trial); a scored benchmark then reports "
                         "pass@k and pass^k per task and overall and each task's latency spread "
                         "across trials (docs/scored-load.md)")
    repeat: int = option(1, metavar="N", group=LOAD, identity=False, example=3,
                         help="run the same configuration N times into one folder (rep-1 … "
                         "rep-N) and write repeat.json/repeat.txt: each figure's runs, their "
                         "spread beside each run's own interval, unstable figures flagged "
                         "(docs/metrics.md, 'Repeated runs')")
    sweep: SweepSpec | None = option(
        None, metavar="KEY=V1,V2,...", group=LOAD, example="concurrency=1,2",
        help="run at each point (rate=1,2,4 or concurrency=1,4,16) and write sweep.json/"
        "sweep.html: a throughput-latency curve with the knee marked")
    search: SearchSpec | None = option(
        None, metavar="KEY=LO:HI", group=LOAD, example="concurrency=1:8",
        help="capacity under SLO: find the largest concurrency (or rate) in [LO, HI] at which "
        "the goodput fraction (sessions meeting every --slo) stays >= --search-fraction, "
        "each load decided from the fraction's 95% interval, by doubling from LO then "
        "bisection; answers a capacity, 'at least N' or 'indeterminate between N and M'; "
        "writes search.json and sweep.html. Needs a latency --slo")
    search_fraction: float = option(0.95, metavar="F", group=LOAD, example=0.5,
                                    help="--search: goodput fraction a load must keep (default "
                                    "0.95)")
    search_objective: Literal["goodput", "task-goodput"] = option(
        "goodput", group=LOAD,
        help="--search: what a load must keep at --search-fraction: goodput (sessions meeting "
        "every --slo / sessions, default) or task-goodput (a scored benchmark's tasks scored "
        "correct and meeting every --slo / tasks scored; docs/scored-load.md)")
    search_resolution: float | None = option(
        None, metavar="R", group=LOAD,
        help="--search: stop bisecting when the bracket is this narrow (default 1 for "
        "concurrency, 5% of LO for a rate)")
    search_repeats: int = option(1, metavar="N", group=LOAD,
                                 help="--search: runs per point; a point is decided from the "
                                 "interval of its sessions pooled over its runs (default 1)")
    search_max_runs: int = option(3, metavar="N", group=LOAD,
                                  help="--search: a point whose goodput-fraction interval "
                                  "straddles --search-fraction runs again, up to N runs in all; "
                                  "still undecided, the answer is a range (default 3)")
    workers: int = option(1, metavar="N", group=LOAD,
                          help="shard sessions over N local worker processes (one event loop "
                          "each); agent trees: whole lanes per worker (docs/scale-out.md)")
    ray_address: str | None = option(None, metavar="ADDR", group=LOAD, redact=True,
                                     help="run the shards as Ray actors on this cluster ('auto' "
                                     "= local one); needs `pip install "
                                     "agentic-serving-bench[distributed]`")
    workers_per_node: int | None = option(None, metavar="N", group=LOAD,
                                          help="with --ray-address: at most N shard actors per "
                                          "node")
    grace: float = option(30.0, metavar="S", group=LOAD,
                          help="on Ctrl-C, wait this long for in-flight sessions (default 30)")

    loadgen: Literal["mlperf"] | None = option(
        None, group=LOADGEN, identity=True,
        help="let MLPerf LoadGen issue the sessions (one query = one session) instead of our "
        "scheduler; scenarios offline, server, single-stream, multi-stream, interactive; see "
        "docs/loadgen.md")
    target_qps: float | None = option(None, metavar="Q", group=LOADGEN, identity=True,
                                      help="LoadGen server/interactive: target queries per "
                                      "second (offline: expected QPS)")
    loadgen_conf: Path | None = option(None, metavar="FILE", group=LOADGEN,
                                       help="user.conf-style LoadGen settings (model.scenario.key "
                                       "= value), read over LoadGen's built-in mlperf.conf")
    loadgen_mode: Literal["performance", "accuracy", "TEST09"] = option(
        "performance", group=LOADGEN, identity=True,
        help="performance (default); accuracy: every sample once, mlperf_log_accuracy.json, "
        "scored by the benchmark's scorer; TEST09: the output-length compliance test "
        "(performance with --loadgen-audit, verify_output_len.txt)")
    loadgen_model: str | None = option(None, metavar="NAME", group=LOADGEN,
                                       help="model key for mlperf.conf/user.conf lookups "
                                       "(default: the benchmark name), e.g. llama2-70b")
    loadgen_layout: Literal["flat", "submission"] = option(
        "flat", group=LOADGEN,
        help="where LoadGen's logs go: flat (the run folder, default) or submission "
        "(performance/run_1/, accuracy/ or TEST09/ by mode, as MLCommons' submission checker "
        "reads a scenario folder; a conf asking more queries than the run's samples is cut to "
        "them); see docs/submission.md")
    loadgen_audit: Path | None = option(
        None, metavar="FILE", group=LOADGEN,
        help="LoadGen audit.config of a compliance test (copied into the run folder, read by "
        "LoadGen over the settings), e.g. TEST09's with its output-length bounds")
    loadgen_token_stage: str | None = option(
        None, metavar="STAGE", group=LOADGEN,
        help="count only this stage's LLM calls as a query's output tokens for LoadGen "
        "(default: every call of the session), e.g. generate: rag-e2e's answer")

    history: Literal["recorded", "live"] = option(
        "recorded", group=REPLAY, identity=True,
        help="recorded: send recorded history, score but do not feed back the reply; live: feed "
        "replies back (default recorded)")
    think_time: ThinkPolicy = option(ThinkPolicy(), metavar="POLICY", group=REPLAY, identity=True,
                             example="scaled:0.5",
                             help="recorded | scaled:<factor> | none — user think time and "
                             "recorded tool/retrieve/rerank durations (default recorded)")
    turn_timeout: float | None = option(None, metavar="S", group=REPLAY,
                                        help="per-turn timeout in seconds")
    salt: bool = option(False, group=REPLAY,
                        help="give each session a unique prefix so a server cache cannot serve "
                        "repeats")

    slo: SloSet = option(
        SloSet(), metavar="KEY=VALUE", group=OUTPUT, example=("ttft_p99_ms=2000", "accuracy=0.5"),
        help="constraint, repeatable: ttft_p99_ms, tpot_p99_ms, turn_p90_ms, min_duration_s, "
        "min_sessions, accuracy")
    out: Path | None = option(None, metavar="DIR", group=OUTPUT,
                              help="output directory (default results/<benchmark>-<timestamp>/)")
    resume: Path | None = option(None, metavar="DIR", group=OUTPUT,
                                 help="continue an interrupted run in DIR (same options): "
                                 "sessions already complete are skipped and the summary covers "
                                 "the whole run")
    overwrite: bool = option(False, group=OUTPUT,
                             help="--out already holds a run: move its files into "
                             "DIR/replaced-<time>/ and start anew (without it such a folder is "
                             "refused, so two runs never mix)")
    retry_errors: bool = option(False, group=OUTPUT,
                                help="with --resume: also run again the sessions that ended in "
                                "an error (their old records are kept in "
                                "records.before-resume-N.jsonl)")
    quiet: bool = option(False, group=OUTPUT, help="no progress and no summary on stdout")
    otel_endpoint: str | None = option(
        None, metavar="URL", group=OUTPUT, redact=True, example="http://localhost:4318",
        help="when the run ends, send its spans (session, turn, one GenAI 'chat' span per LLM "
        "call, tool waits, subagents) to this OpenTelemetry collector over OTLP/HTTP (/v1/traces "
        "is added to a bare URL); implies --traceparent. Needs `pip install "
        "'agentic-serving-bench[otel]'`; a failed export is a warning. docs/interop.md")

    @field_validator("api_key_header")
    @classmethod
    def _key_header(cls, value: str | None) -> str | None:
        import re

        if value is not None and not re.fullmatch(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+", value):
            raise ValueError(f"{value!r}: not an HTTP header name")
        return value

    @field_validator("session_header", "parent_session_header", check_fields=False)
    @classmethod
    def _session_header(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        from agentic_bench.transport.session_headers import check_names

        return tuple(checked(check_names, list(value)))

    # (``check_fields=False``: ``replay``'s own counts and caps share these bounds)
    @field_validator("concurrency", "sessions", "max_errors", "search_repeats",
                     "search_max_runs",
                     "warmup_requests_per_lane", "gpus", check_fields=False)
    @classmethod
    def _at_least_one(cls, value: int | None) -> int | None:
        if value is not None and value < 1:
            raise ValueError(f"{value}: must be ≥ 1")
        return value

    @field_validator("rate", "duration")
    @classmethod
    def _positive(cls, value: float | None, info: ValidationInfo) -> float | None:
        import math

        unit = "sessions per second" if info.field_name == "rate" else "seconds"
        if value is not None and (not math.isfinite(value) or value <= 0):
            raise ValueError(f"{value:g}: must be > 0 {unit}")
        return value

    @field_validator("grace", "stop_after_failures", "idle_gap_cap", "trace_idle_gap_cap",
                     check_fields=False)
    @classmethod
    def _not_negative(cls, value: float | None) -> float | None:
        if value is not None and value < 0:
            raise ValueError(f"{value:g}: must be ≥ 0")
        return value

    @field_validator("search_fraction")
    @classmethod
    def _fraction(cls, value: float) -> float:
        if not 0 < value <= 1:
            raise ValueError(f"{value}: expected a fraction in (0, 1]")
        return value

    @field_validator("search_resolution")
    @classmethod
    def _resolution(cls, value: float | None) -> float | None:
        if value is not None and not value > 0:
            raise ValueError(f"{value}: expected > 0")
        return value

    @field_validator("endpoint")
    @classmethod
    def _endpoint(cls, value: str) -> str:
        if value in REMOVED_ENDPOINTS:
            raise ValueError(REMOVED_ENDPOINTS[value])
        return value

    @field_validator("server_metrics")
    @classmethod
    def _server_metrics(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        from urllib.parse import urlsplit

        for url in value:
            parts = urlsplit(url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValueError(f"{url!r}: expected an http(s) URL of a Prometheus endpoint, "
                                 "e.g. http://host:8000/metrics")
        return value

    @field_validator("otel_endpoint")
    @classmethod
    def _otel_endpoint(cls, value: str | None) -> str | None:
        import importlib.util
        from urllib.parse import urlsplit

        if value is None:
            return value
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{value!r}: expected the http(s) URL of an OTLP/HTTP collector, "
                             "e.g. http://localhost:4318")
        if importlib.util.find_spec("opentelemetry.exporter.otlp.proto.http") is None:
            raise ValueError("needs the OpenTelemetry SDK and OTLP/HTTP exporter: pip install "
                             "'agentic-serving-bench[otel]'")
        return value

    @field_validator("server_metrics_interval")
    @classmethod
    def _interval(cls, value: float) -> float:
        if not value > 0:
            raise ValueError(f"{value}: must be more than 0 seconds")
        return value

    @model_validator(mode="after")
    def _combinations(self, info: ValidationInfo) -> CommonOptions:
        """The rules no single option can check, before anything is planned or sent (not
        while a preset is still to complete the options: ``context={"combinations": False}``)."""
        if not (info.context or {}).get("combinations", True):
            return self
        return self.check_combinations()

    def check_combinations(self) -> Self:
        """The rules between options (a :class:`~agentic_bench.errors.ConfigError` for the
        first one broken); the validator runs them, and :func:`~agentic_bench.options.parser.
        resolve` on options a preset left as they were."""
        if self.sweep and self.search:
            raise ConfigError("--search and --sweep: choose one")
        if self.repeat < 1:
            raise ConfigError(f"--repeat {self.repeat}: expected 1 or more")
        if self.trials < 1:
            raise ConfigError(f"--trials {self.trials}: expected 1 or more")
        if self.trials > 1 and (self.loadgen == "mlperf" or self.workers > 1):
            raise ConfigError("--trials runs in the harness's own process and scheduler: drop "
                              "--loadgen mlperf and --workers")
        if self.repeat > 1 and (self.sweep or self.search or self.resume is not None
                                or self.loadgen == "mlperf"):
            raise ConfigError("--repeat runs one configuration N times: drop --sweep, --search, "
                              "--resume and --loadgen mlperf")
        if self.retry_errors and self.resume is None:
            raise ConfigError("--retry-errors goes with --resume DIR (the run whose errors to "
                              "retry)")
        if self.loadgen == "mlperf":
            if self.workers > 1 or self.ray_address or self.resume or self.sweep:
                raise ConfigError("--loadgen mlperf runs once in one process: drop --workers, "
                                  "--ray-address, --resume and --sweep")
            from agentic_bench.options.loadgen import require_loadgen

            require_loadgen()
            self._loadgen().check()
        elif (self.scenario == "interactive" or self.target_qps is not None
              or self.loadgen_conf or self.loadgen_mode != "performance" or self.loadgen_model
              or self.loadgen_layout != "flat" or self.loadgen_audit
              or self.loadgen_token_stage):
            raise ConfigError("--scenario interactive, --target-qps, --loadgen-conf, "
                              "--loadgen-mode, --loadgen-model, --loadgen-layout, "
                              "--loadgen-audit and --loadgen-token-stage need --loadgen mlperf")
        elif (self.scenario == "single-stream" and self.concurrency not in (None, 1)
              and not self.sweep and not self.search):
            raise ConfigError(f"--concurrency {self.concurrency} does nothing with --scenario "
                              "single-stream (one session at a time, the default): add "
                              f"--scenario concurrency for a closed loop of {self.concurrency} "
                              "streams, multi-stream for batches in lockstep, or --agentx for "
                              "lanes of agent trees")
        if self.loadgen is None:  # the one check of the load: the scheduler trusts it
            self._first_load().check()
        return self

    def _first_load(self) -> LoadSpec:
        """The load as validated: a sweep's or a search's first point in place of the options'
        own (each point's options are the same but for the value varied: :meth:`at_point`)."""
        varied = self.sweep or self.search
        if varied is None:
            return self.load
        first = varied.values[0] if isinstance(varied, SweepSpec) else varied.lo
        return self.at_point(varied.key, first, trace_sessions=1).load

    # what the run reads: views of these options, nothing translated or checked again

    @property
    def load(self) -> LoadSpec:
        """The scheduler's load (:class:`~agentic_bench.options.load.LoadSpec`)."""
        return LoadSpec(scenario=self.scenario, rate=self.rate, concurrency=self.concurrency,
                        sessions=self.sessions, duration_s=self.duration,
                        max_errors=self.max_errors, seed=self.seed, grace_s=self.grace)

    @property
    def loadgen_options(self) -> LoadgenOptions | None:
        """What ``--loadgen mlperf`` asks of LoadGen (None: our scheduler issues the load)."""
        return self._loadgen() if self.loadgen == "mlperf" else None

    def _loadgen(self) -> LoadgenOptions:
        from agentic_bench.options.loadgen import LoadgenOptions

        return LoadgenOptions(scenario=self.scenario, mode=self.loadgen_mode,
                              target_qps=self.target_qps, conf=self.loadgen_conf,
                              model=self.loadgen_model, layout=self.loadgen_layout,
                              audit=self.loadgen_audit, token_stage=self.loadgen_token_stage)

    @property
    def search_spec(self) -> SearchSpec | None:
        """``--search`` with its fraction, resolution and repeats."""
        if self.search is None:
            return None
        return self.search.tuned(self.search_fraction, self.search_resolution,
                                 self.search_repeats, self.search_max_runs)

    @property
    def slos(self) -> dict[str, float]:
        """The ``--slo`` limits (the benchmark's defaults are added by the run)."""
        return self.slo.limits

    @property
    def overrides(self) -> dict[str, Any]:
        """What ``--max-tokens`` and ``--temperature`` set in every request body."""
        return {k: v for k, v in (("max_tokens", self.max_tokens),
                                  ("temperature", self.temperature)) if v is not None}

    @property
    def synthesis(self) -> SynthesisOptions:
        """How prompts given as blocks are written (``replay``'s agent-tree options; for
        another command, the defaults with its seed)."""
        return SynthesisOptions(seed=self.seed)

    @property
    def scenario_rules(self) -> dict[str, Any] | None:
        """The AgentX scenario's broken rules and departures (``replay --agentx``), or None."""
        return None

    @property
    def gpus_behind(self) -> int:
        """GPUs serving the endpoint, for throughput per GPU (``replay --gpus``)."""
        return 1

    def lane_spec(self) -> LaneSpec:
        """The lanes of a run over agent trees: only ``replay`` runs those."""
        raise ConfigError("agent trees (Weka traces) replay with `agentic-bench replay TRACE`")

    @property
    def traced(self) -> bool:
        """Whether requests carry ``traceparent`` (``--traceparent`` or ``--otel-endpoint``)."""
        return self.traceparent or self.otel_endpoint is not None

    def replay(self, *, model: str, overrides: dict[str, Any] | None = None,
               salt: str | None = None, trace_key: str | None = None) -> ReplayOptions:
        """How a session's requests are made, with what the run decides: the model the
        endpoint serves, the body overrides (the benchmark's defaults under ``--max-tokens``
        and ``--temperature``), the cache-busting salt of ``--salt`` and the trace key of
        ``--traceparent`` (:mod:`agentic_bench.transport.traceparent`)."""
        return ReplayOptions(
            model=model, history=self.history, think=self.think_time,
            overrides={**(overrides or {}), **self.overrides},
            request_timeout_s=self.request_timeout, turn_timeout_s=self.turn_timeout,
            salt=salt, retries=self.retries, retry_rule=self.retry_on,
            session_headers=self.session_header, session_user=self.session_user,
            parent_session_headers=self.parent_headers, synthesis=self.synthesis,
            trace_key=trace_key)

    @property
    def parent_headers(self) -> tuple[str, ...]:
        """``--parent-session-header`` (``replay`` only)."""
        return ()

    def at_point(self, key: str, value: float, trace_sessions: int,
                 trees: bool = False) -> Self:
        """The options of one sweep or search point, as if typed: the varied value, the
        scenario that applies it (a rate is ``server``; a concurrency of the default
        single-stream is the ``concurrency`` closed loop) and, for a concurrency over session
        traces with neither ``--sessions`` nor ``--duration``, enough sessions — the trace
        cycled to 10 per stream, at least one pass — that the point holds its load rather than
        draining (agent trees keep the lane rule: docs/agentx.md). A copy: its recorded
        options are the load it runs."""
        update: dict[str, Any] = {"sweep": None, "search": None}
        if key == "rate":
            update.update(rate=float(value), scenario="server")
        else:
            update["concurrency"] = int(value)
            if self.scenario == "single-stream":
                update["scenario"] = "concurrency"
            if not trees and self.sessions is None and self.duration is None:
                update["sessions"] = max(trace_sessions, 10 * int(value))
        return self.model_copy(update=update)


def common(options: OptionsModel) -> CommonOptions:
    """The run options every benchmark's options carry (a task's ``workload(options)`` gets its
    own model combined with :class:`CommonOptions`), typed."""
    if not isinstance(options, CommonOptions):
        raise TypeError(f"{type(options).__name__} holds no run options: build it with "
                        "agentic_bench.tasks.registry.task_options(task)")
    return options


@functools.cache
def run_options_model(task_model: type[OptionsModel],
                      default_scenario: str = "single-stream") -> type[OptionsModel]:
    """A benchmark's options and the common ones in one model (its scenario default its own).

    Cached: a worker process that rebuilds the model gets the same class."""
    clash = set(task_model.model_fields) & set(CommonOptions.model_fields)
    if clash:
        raise TypeError(f"{task_model.__name__} redeclares common options: {sorted(clash)}")
    scenario = CommonOptions.model_fields["scenario"]
    changed = type(scenario).merge_field_infos(
        scenario, default=default_scenario,
        description=f"load scenario (default {default_scenario}); see `agentic-bench list`")
    model: type[OptionsModel] = create_model(
        f"{task_model.__name__}Run", __base__=(task_model, CommonOptions),
        __module__=task_model.__module__, scenario=(Scenario, changed))
    return model


__all__ = ["SCENARIO_CHOICES", "CommonOptions", "Scenario", "common", "run_options_model"]
