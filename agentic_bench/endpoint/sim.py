"""Latency simulator: an OpenAI-compatible streaming server with injected, known timings.

Every reply streams ``output_tokens`` chunks (or the request's smaller ``max_tokens``):
the first content chunk ``ttft_ms`` after the request arrived, then one every ``itl_ms``.
Deadlines are absolute ``perf_counter`` instants (no drift; never the event loop's cached,
millisecond-grained clock) counted from the moment the request was complete.
Tokens already due when one is sent (a zero gap, or a loop running late) go out with it, in
one write, each event its own chunk; at TTFT 0 the head goes in that write too.
``jitter_ms`` adds a seeded uniform ±J to each gap, ``ttft_jitter_ms`` a seeded uniform ±J
to each TTFT (a latency of known distribution, for checking confidence intervals).
``precise`` sets each timer :data:`EARLY_S` early and spends the rest yielding to the loop
until the exact instant: timings then hold to tens of microseconds instead of ±1 ms, at the
cost of a busy simulator core (for harness-precision benchmarks; docs/performance.md).
Faults for robustness tests, each a per-request probability: ``fail_rate`` (HTTP 500),
``hang_rate`` (headers, then silence), ``disconnect_rate`` (connection dropped mid-stream),
``malformed_rate`` (a non-JSON chunk mid-stream); ``slow_headers_ms`` delays the headers.
``replay_trace`` (a recorded trace) turns the simulator into an oracle: each reply is the
recorded one that followed the request's history, one streamed chunk per word
(:mod:`agentic_bench.endpoint.oracle`), timed by the same ttft/itl model; ``reply`` answers
every request with one fixed text, streamed the same way (a judge verdict, for instance).
``prefix_cache`` models a server's prefix cache in characters (see :meth:`SimServer.prefix_hit`).
``ttft_per_inflight_ms`` is a load model: a reply that arrives while k others are in flight
(started, last chunk not yet sent) gets TTFT ``ttft_ms + k × ttft_per_inflight_ms``; under a
closed loop of c streams a request meets c − 1 others, so the latency at each load, and the
capacity under a TTFT limit, are known in advance (the capacity-search test relies on it).
``itl_per_inflight_ms`` does the same for the gaps between tokens (ITL ``itl_ms + k ×
itl_per_inflight_ms``), so interactivity falls as load rises. A request with ``ignore_eos``
(or ``min_tokens``) gets exactly its ``max_tokens``, as a real server does.
``context_limit`` answers HTTP 400 "maximum context length" to a request whose prompt words
plus ``max_tokens`` exceed it. ``POST /tokenize`` (llama.cpp's route) counts one
token per whitespace-separated word. ``GET /metrics`` answers Prometheus text with vLLM's
names: requests running (in flight) and waiting (0), and with ``prefix_cache`` the prefix-cache
queries and hits in characters. ``request_log`` appends every chat request (arrival time,
path with its query, the authorization scheme — never its value —, routing headers, body) to a
JSON Lines file. ``timestamps`` adds ``server_timing_ns`` to a streamed reply's usage event:
``perf_counter_ns`` readings (CLOCK_MONOTONIC on Linux: the client's clock on the same host) of
the reads that brought the request's first and last bytes (``body_first``, ``body_last``), of
the reply's head write (``head``) and of its first token's write (``first_token``), so a
client can tell its share of TTFT from the server's (docs/performance.md). ``timing_log``
appends the same readings for every streamed reply, with the request's ``X-Request-ID``, its
body's size (``body_bytes``) and ``wall_minus_perf_ns`` (``time.time_ns() - perf_counter_ns()``
read once at start), for a client that asks for no usage event or keeps wall-clock stamps
(AIPerf).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

import orjson

from agentic_bench.endpoint.sim_http import HttpConnection, Request

if TYPE_CHECKING:
    from agentic_bench.endpoint.oracle import OracleAnswer, ReplayOracle
    from agentic_bench.trace.stats import PrefixCounter


@dataclass
class SimConfig:
    """The simulator's injected behaviour: timings (TTFT, ITL, jitter, per-request load terms),
    reply length and content, injected failures, a prefix cache and a context limit."""

    ttft_ms: float = 100.0
    itl_ms: float = 10.0
    output_tokens: int = 64
    jitter_ms: float = 0.0
    ttft_jitter_ms: float = 0.0
    tool_call: str | None = None
    model: str = "sim"
    seed: int = 0
    fail_rate: float = 0.0
    hang_rate: float = 0.0
    disconnect_rate: float = 0.0
    malformed_rate: float = 0.0
    slow_headers_ms: float = 0.0
    api_key: str | None = None
    precise: bool = False
    replay_trace: str | None = None
    reply: str | None = None  # a fixed reply text for every request
    # prefix-cache model: usage counts prompt characters and reports as cached the ones whose
    # whole prefix (64-character blocks of the rendered request) an earlier request sent
    prefix_cache: bool = False
    # load model: each reply's TTFT grows by this much per other reply in flight when it arrives
    ttft_per_inflight_ms: float = 0.0
    itl_per_inflight_ms: float = 0.0  # and each gap between its tokens
    context_limit: int | None = None  # prompt words + max_tokens beyond it: HTTP 400
    request_log: str | None = None  # every chat request appended here (JSON Lines)
    timestamps: bool = False  # server_timing_ns on the usage event (the module's text)
    timing_log: str | None = None  # every streamed reply's server timing appended (JSON Lines)


ROUTING_HEADERS = ("x-session-id", "x-dynamo-session-id", "x-dynamo-parent-session-id",
                   "x-smg-routing-key", "x-correlation-id", "traceparent")


def prompt_words(body: dict[str, Any]) -> int:
    msgs = body.get("messages")
    return sum(words(str(m.get("content") or ""))
               for m in (msgs if isinstance(msgs, list) else []) if isinstance(m, dict))


# ASCII whitespace that str.split() splits on besides the space (it also splits on \x1c-\x1f)
_OTHER_SPACE = tuple(bytes([c]) for c in b"\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f")
_TO_SPACE = bytes(32 if bytes([c]) in _OTHER_SPACE else c for c in range(256))


def words(text: str) -> int:
    """``len(text.split())`` without building the list: an ASCII text's whitespace runs are
    counted in its bytes (several times faster on a 400 kB agent prompt; the simulator's usage
    count was its largest cost per request), anything else is split."""
    if not text.isascii():
        return len(text.split())
    raw = text.encode("ascii")
    if any(c in raw for c in _OTHER_SPACE):
        raw = raw.translate(_TO_SPACE)
    while b"  " in raw:
        raw = raw.replace(b"  ", b" ")
    if raw in (b"", b" "):
        return 0
    return raw.count(b" ") + 1 - raw.startswith(b" ") - raw.endswith(b" ")


def parse_json(raw: bytes) -> Any:
    """The request body: orjson (3x the stdlib's speed on a 400 kB prompt), the stdlib where
    orjson refuses what it accepts (NaN, integers over 64 bits, lone surrogates)."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return json.loads(raw)


EARLY_S = 0.002  # precise mode: how early a timer fires before its deadline


EMBEDDING_DIM = 32


def fake_embeddings(raw: bytes | None, model: str) -> dict[str, Any]:
    """``/v1/embeddings``: a deterministic vector per input text (from its sha256), so a RAG
    pipeline can run against the simulator end to end; no meaning, only stable geometry."""
    try:
        body = json.loads(raw or b"{}")
    except json.JSONDecodeError:
        body = {}
    texts = body.get("input") or []
    texts = [texts] if isinstance(texts, str) else [str(t) for t in texts]
    data = []
    for i, text in enumerate(texts):
        digest = hashlib.sha256(text.encode()).digest()
        data.append({"object": "embedding", "index": i,
                     "embedding": [b / 255.0 - 0.5 for b in digest[:EMBEDDING_DIM]]})
    return {"object": "list", "model": model, "data": data,
            "usage": {"prompt_tokens": sum(len(t.split()) for t in texts)}}


class SimServer:
    """The latency simulator: an OpenAI-compatible HTTP server that streams replies with the
    injected timings of its :class:`SimConfig` (``agentic-bench sim``; the truth the harness's
    precision is measured against)."""
    def __init__(self, config: SimConfig) -> None:
        self.config = config
        self.rng = random.Random(config.seed)
        self.requests = 0
        self.in_flight = 0  # replies started and not finished (the load model's input)
        self.prompt_chars_total = 0  # the prefix-cache model's lookups and hits (/metrics)
        self.cached_chars_total = 0
        self.loop: asyncio.AbstractEventLoop | None = None
        self.server: asyncio.Server | None = None
        self.oracle: ReplayOracle | None = None
        if config.replay_trace:
            from agentic_bench.endpoint.oracle import ReplayOracle

            self.oracle = ReplayOracle.from_file(config.replay_trace)
        self.prefix_cache: PrefixCounter | None = None  # the prefix-cache model's memory
        if config.prefix_cache:
            from agentic_bench.trace.stats import PrefixCounter

            self.prefix_cache = PrefixCounter()
        self.fixed_reply: OracleAnswer | None = None
        if config.reply is not None:
            from agentic_bench.endpoint.oracle import script

            self.fixed_reply = script(config.reply, None)
        self.timing_log: TextIO | None = None  # config.timing_log, open for appending
        if config.timing_log:
            self.timing_log = open(config.timing_log, "a", encoding="utf-8", buffering=1)
        self.wall_minus_perf_ns = time.time_ns() - time.perf_counter_ns()

    def log_timing(self, request_id: str | None, timing_ns: dict[str, int],
                   body_bytes: int) -> None:
        """One streamed reply's server timing on the timing log (``timing_log``)."""
        assert self.timing_log is not None
        self.timing_log.write(json.dumps(
            {"x_request_id": request_id, **timing_ns, "body_bytes": body_bytes,
             "wall_minus_perf_ns": self.wall_minus_perf_ns}) + "\n")

    def prefix_hit(self, body: dict[str, Any]) -> tuple[int, int]:
        """(prompt characters, cached characters) of a request under the prefix-cache model:
        the request rendered as ``traces stats`` renders it, cut into 64-character blocks; a
        block is cached when the whole prefix up to it was sent before — the same count as the
        trace's prefix ceiling, so a single-stream replay's hit rate equals the ceiling."""
        from agentic_bench.trace.stats import DEFAULT_BLOCK_CHARS, render_request

        assert self.prefix_cache is not None
        messages = body.get("messages")
        text = render_request(body.get("tools") or [],
                              messages if isinstance(messages, list) else [])
        before = self.prefix_cache.shared
        self.prefix_cache.add((text[i:i + DEFAULT_BLOCK_CHARS]
                               for i in range(0, len(text), DEFAULT_BLOCK_CHARS)), len)
        self.prompt_chars_total += len(text)
        self.cached_chars_total += self.prefix_cache.shared - before
        return len(text), self.prefix_cache.shared - before

    def metrics_text(self) -> str:
        """``GET /metrics``: this server's state in Prometheus text, with vLLM's names."""
        label = f'{{model_name="{self.config.model}"}}'
        lines = ["# TYPE vllm:num_requests_running gauge",
                 f"vllm:num_requests_running{label} {self.in_flight}",
                 "# TYPE vllm:num_requests_waiting gauge",
                 f"vllm:num_requests_waiting{label} 0"]
        if self.prefix_cache is not None:
            lines += ["# TYPE vllm:prefix_cache_queries counter",
                      f"vllm:prefix_cache_queries_total{label} {self.prompt_chars_total}",
                      "# TYPE vllm:prefix_cache_hits counter",
                      f"vllm:prefix_cache_hits_total{label} {self.cached_chars_total}"]
        return "\n".join(lines) + "\n"

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> int:
        self.loop = asyncio.get_running_loop()
        self.server = await self.loop.create_server(
            lambda: HttpConnection(self.handle), host, port, backlog=4096)
        return int(self.server.sockets[0].getsockname()[1])

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()
        if self.timing_log is not None:
            self.timing_log.close()
            self.timing_log = None

    def handle(self, conn: HttpConnection, req: Request) -> None:
        cfg = self.config
        if cfg.api_key and req.headers.get("authorization") != f"Bearer {cfg.api_key}":
            conn.send_json(401, b'{"error":{"message":"invalid api key"}}')
            return
        if req.method == "GET" and req.path.endswith("/models"):
            body = {"object": "list", "data": [{"id": cfg.model, "object": "model"}]}
            conn.send_json(200, json.dumps(body).encode())
            return
        if req.method == "GET" and req.path.rstrip("/").endswith("/metrics"):
            conn.send_json(200, self.metrics_text().encode(),
                           content_type="text/plain; version=0.0.4")
            return
        if req.method == "POST" and req.path.endswith("/embeddings"):
            conn.send_json(200, json.dumps(fake_embeddings(req.body, cfg.model)).encode())
            return
        if req.method == "POST" and req.path.endswith("/tokenize"):
            try:
                text = str(json.loads(req.body or b"{}").get("content") or "")
            except (json.JSONDecodeError, AttributeError):
                text = ""
            conn.send_json(200, json.dumps({"tokens": list(range(len(text.split())))}).encode())
            return
        if req.method != "POST" or not req.path.endswith("/chat/completions"):
            conn.send_json(404, b'{"error":{"message":"not found"}}')
            return
        try:
            body = parse_json(req.body or b"{}")
        except json.JSONDecodeError:
            conn.send_json(400, b'{"error":{"message":"body is not JSON"}}')
            return
        if body.get("model") not in (None, cfg.model):
            conn.send_json(404, json.dumps(
                {"error": {"message": f"model {body.get('model')!r} not found"}}).encode())
            return
        self.requests += 1
        if cfg.request_log:
            scheme = req.headers.get("authorization", "").split(" ", 1)[0]
            path = f"{req.path}?{req.query}" if req.query else req.path
            entry = {"t": time.perf_counter(), "n": self.requests, "path": path,
                     "auth": scheme or None, "body": body,
                     "headers": {k: v for k, v in req.headers.items() if k in ROUTING_HEADERS}}
            with open(cfg.request_log, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(entry) + "\n")
        if cfg.context_limit is not None:
            need = prompt_words(body) + int(body.get("max_tokens")
                                            or body.get("max_completion_tokens") or 0)
            if need > cfg.context_limit:
                conn.send_json(400, json.dumps({"error": {
                    "message": f"This model's maximum context length is {cfg.context_limit} "
                               f"tokens; the request needs {need}"}}).encode())
                return
        Reply(self, conn, body, req).start()


class Reply:
    """One streamed (or plain JSON) chat completion driven by event-loop timers."""

    def __init__(self, server: SimServer, conn: HttpConnection, body: dict[str, Any],
                 req: Request | None = None) -> None:
        self.s = server
        self.req = req
        self.t_head_ns = 0  # perf_counter_ns of the head's write, of the first token's
        self.t_first_token_ns = 0
        self.conn = conn
        self.body = body
        cfg = server.config
        self.script = (server.oracle.answer(body) if server.oracle else
                       server.fixed_reply if server.fixed_reply else None)
        wanted = int(body.get("max_tokens") or body.get("max_completion_tokens")
                     or cfg.output_tokens)
        self.n = (len(self.script.deltas) if self.script else
                  max(1, wanted) if body.get("ignore_eos") or body.get("min_tokens") else
                  max(1, min(cfg.output_tokens, wanted)))
        self.id = f"chatcmpl-sim{server.requests}"
        assert server.loop is not None
        self.loop = server.loop
        self.t0 = time.perf_counter()  # the request is complete now (handler runs in the read)
        self.prompt_chars: int | None = None
        self.cached_chars: int | None = None
        if cfg.prefix_cache:
            self.prompt_chars, self.cached_chars = server.prefix_hit(body)
        server.in_flight += 1
        self.others = server.in_flight - 1  # replies already in flight when this one arrived
        self.finished = False
        self.k = 0
        self.head = b""  # the head, when it goes out with the first tokens
        rng = server.rng
        self.fault = None
        for name in ("fail", "hang", "disconnect", "malformed"):
            if rng.random() < getattr(cfg, f"{name}_rate"):
                self.fault = name
                break
        self.fault_at = rng.randrange(1, self.n + 1) if self.fault else 0
        itl = cfg.itl_ms + cfg.itl_per_inflight_ms * self.others
        self.gaps = [itl + (rng.uniform(-cfg.jitter_ms, cfg.jitter_ms)
                            if cfg.jitter_ms else 0.0) for _ in range(self.n)]
        self.ttft_noise = (rng.uniform(-cfg.ttft_jitter_ms, cfg.ttft_jitter_ms)
                           if cfg.ttft_jitter_ms else 0.0)

    def _at(self, deadline: float, fn: Callable[[], None]) -> None:
        """Call ``fn`` at the ``perf_counter`` instant ``deadline``."""
        if self.s.config.precise:
            delay = deadline - EARLY_S - time.perf_counter()
            if delay > 0:
                self.loop.call_later(delay, self._spin, deadline, fn)
            else:
                self._spin(deadline, fn)
        else:
            self.loop.call_later(max(0.0, deadline - time.perf_counter()), fn)

    def _spin(self, deadline: float, fn: Callable[[], None]) -> None:
        if time.perf_counter() >= deadline:
            fn()
        else:  # yield: other connections' reads and writes go on meanwhile
            self.loop.call_soon(self._spin, deadline, fn)

    def _finish(self) -> None:
        if not self.finished:
            self.finished = True
            self.s.in_flight -= 1

    @property
    def ttft_ms(self) -> float:
        cfg = self.s.config
        return max(0.0, cfg.ttft_ms + cfg.ttft_per_inflight_ms * self.others + self.ttft_noise)

    def start(self) -> None:
        cfg = self.s.config
        if self.fault == "fail":
            self._finish()
            self.conn.send_json(500, b'{"error":{"message":"injected failure"}}')
            return
        if not self.body.get("stream"):
            total = self.ttft_ms + sum(self.gaps[1:])
            self._at(self.t0 + total / 1000, self._send_whole)
            return
        if cfg.slow_headers_ms:
            self._at(self.t0 + cfg.slow_headers_ms / 1000, self._headers)
        else:
            self._headers()

    def _headers(self) -> None:
        self.next_at = self.t0 + self.ttft_ms / 1000
        if self.fault != "hang" and self.next_at <= time.perf_counter():
            self.head = self.conn.start_chunked(send=False)  # the first token is due: together
            self._token()
            return
        self.t_head_ns = time.perf_counter_ns()
        self.conn.start_chunked()
        if self.fault == "hang":
            self._finish()  # not computing anything: out of the load model
            return  # never send anything else; the client's timeout must fire
        self._at(self.next_at, self._token)

    def _event(self, payload: dict[str, Any]) -> bytes:
        try:
            data = orjson.dumps(payload)  # compact; text as UTF-8, not escaped
        except TypeError:  # what orjson refuses (integers over 64 bits) the stdlib writes
            data = json.dumps(payload, separators=(",", ":")).encode()
        return b"data: " + data + b"\n\n"

    def _delta(self, delta: dict[str, Any], finish: str | None = None) -> bytes:
        return self._event({"id": self.id, "object": "chat.completion.chunk",
                            "created": int(time.time()), "model": self.s.config.model,
                            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    def _token_delta(self, k: int) -> dict[str, Any]:
        if self.script:
            return self.script.deltas[k]
        name = self.s.config.tool_call
        if not name:
            return {"content": f"tok{k} "} if k else {"role": "assistant", "content": "tok0 "}
        if k == 0:
            return {"tool_calls": [{"index": 0, "id": f"call_{self.id}", "type": "function",
                                    "function": {"name": name, "arguments": "{"}}]}
        piece = '"x":0}' if k == self.n - 1 else " "
        return {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}

    def _token(self) -> None:
        """Send token ``k`` and every later one already due (a zero or overrun gap): in one
        write, each event its own chunk, rather than a write and a turn of the loop each."""
        if self.conn.closed:
            self._finish()
            return
        if not self.t_first_token_ns:
            self.t_first_token_ns = time.perf_counter_ns()
            self.t_head_ns = self.t_head_ns or self.t_first_token_ns  # (sent together)
        out: list[bytes] = []
        while True:
            k = self.k
            if self.fault == "disconnect" and k == self.fault_at:
                self.conn.chunks(out, head=self._take_head())
                self._finish()
                self.conn.abort()
                return
            if self.fault == "malformed" and k == self.fault_at:
                out.append(b"data: {not json\n\n")
            out.append(self._delta(self._token_delta(k)))
            self.k += 1
            if self.k >= self.n:
                break
            self.next_at += self.gaps[self.k] / 1000
            if self.next_at > time.perf_counter():
                self.conn.chunks(out, head=self._take_head())
                self._at(self.next_at, self._token)
                return
        finish = "tool_calls" if self.s.config.tool_call else "stop"
        if self.script:
            finish = self.script.finish_reason
        tail = self._delta({}, finish)
        opts = self.body.get("stream_options") or {}
        if opts.get("include_usage"):
            event: dict[str, Any] = {"id": self.id, "object": "chat.completion.chunk",
                                     "model": self.s.config.model, "choices": [],
                                     "usage": self._usage()}
            if self.s.config.timestamps and self.req is not None:
                event["server_timing_ns"] = self.timing_ns()
            tail += self._event(event)
        if self.s.timing_log is not None and self.req is not None:
            self.s.log_timing(self.req.headers.get("x-request-id"), self.timing_ns(),
                              len(self.req.body or b""))
        self._finish()
        out.append(tail + b"data: [DONE]\n\n")
        self.conn.chunks(out, end=True, head=self._take_head())

    def timing_ns(self) -> dict[str, int]:
        """The request's reads and the reply's writes, ``perf_counter_ns`` (module text)."""
        assert self.req is not None
        return {"body_first": self.req.t_first_byte_ns, "body_last": self.req.t_last_byte_ns,
                "head": self.t_head_ns, "first_token": self.t_first_token_ns}

    def _take_head(self) -> bytes:
        """The reply's head when it waits to go with the first tokens (TTFT 0), once."""
        head, self.head = self.head, b""
        return head

    def _usage(self) -> dict[str, Any]:
        if self.prompt_chars is not None:  # the prefix-cache model counts characters
            return {"prompt_tokens": self.prompt_chars, "completion_tokens": self.n,
                    "total_tokens": self.prompt_chars + self.n,
                    "prompt_tokens_details": {"cached_tokens": self.cached_chars}}
        words = prompt_words(self.body)
        return {"prompt_tokens": words, "completion_tokens": self.n,
                "total_tokens": words + self.n}

    def _send_whole(self) -> None:
        name = self.s.config.tool_call
        msg: dict[str, Any] = {"role": "assistant",
                     "content": None if name else "".join(f"tok{k} " for k in range(self.n))}
        if name:
            msg["tool_calls"] = [{"id": f"call_{self.id}", "type": "function",
                                  "function": {"name": name, "arguments": '{"x":0}'}}]
        finish = "tool_calls" if name else "stop"
        if self.script:
            msg, finish = self.script.message, self.script.finish_reason
        self._finish()
        body = {"id": self.id, "object": "chat.completion", "model": self.s.config.model,
                "choices": [{"index": 0, "message": msg, "finish_reason": finish}],
                "usage": self._usage()}
        self.conn.send_json(200, json.dumps(body).encode())
