"""``InprocChatClient``: the embedded model called in-process (no HTTP), as a ``ChatTransport``.

The same GGUF as the embedded ``llama-server``, with our ChatML chat handler
(:mod:`.inproc_chat`: the routing's prompt without tools, and the ``usage`` llama-cpp-python's
stream lacks), to measure generation with no client, HTTP or server in the way: the
client-free floor. It makes no tool calls: a request whose reply may be one (``tools`` given,
``tool_choice`` not ``none``) is answered as a server's HTTP 400 would be, and a run whose
workload needs them is refused (:mod:`.resolve`); our tool-call routing lives in front of
``llama-server`` (``--endpoint embedded``). The chat-format shim that did tool calls here and in
llama-cpp-python's server was removed on 2026-12-06 (docs/embedded-endpoint.md).

``create_chat_completion(stream=True)`` runs in one worker thread; each chunk is stamped with
``perf_counter_ns()`` as it is produced and kept as a dict; after the reply ends the chunks are
serialized and parsed by the very code that parses the HTTP stream
(:func:`agentic_bench.transport.sse.assemble_stream`), so both paths fill ``ChatResult`` the same
way. ``t_first_byte_ns`` is the first chunk (the role chunk), and ``http_status`` stays ``None``
(there is no HTTP). Requests run one at a time (an asyncio lock).
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import Iterator
from time import perf_counter_ns
from typing import Any

from agentic_bench.endpoint.inproc_chat import ChatHandler, TokenTally
from agentic_bench.endpoint.llama_server import (
    CHILD_ENV_DEFAULTS,
    LLAMA_CPP_VERSION,
    default_threads,
)
from agentic_bench.endpoint.model_file import MODEL_ALIAS, locate_model, model_sha256
from agentic_bench.endpoint.tool_routing import needs_routing
from agentic_bench.errors import EndpointStartError
from agentic_bench.transport.request import NO_CONTEXT, RequestContext, ToolDeltaRule
from agentic_bench.transport.result import ChatResult, http_error_type
from agentic_bench.transport.sse import assemble_stream

DEFAULT_N_CTX = 4096
CHAT_FORMAT = "agentic-bench ChatML (endpoint/inproc_chat.py: routing_prompt without tools)"
NO_TOOL_CALLS = ("the in-process model makes no tool calls (llama-cpp-python's chat-format shim "
                 "was removed on 2026-12-06); use --endpoint embedded: llama-server with our "
                 "tool-call routing in front")
INSTALL_HINT = (
    "install it with `make install`, or `scripts/install_llama.sh .venv/bin/pip` (installs the "
    f"llama_cpp_python-{LLAMA_CPP_VERSION} wheel cached in .wheels/llama.cpp-{LLAMA_CPP_VERSION}"
    "-shared/, or builds it with llama-server from one llama.cpp compile)"
)
# llama-cpp-python's server request defaults (server/types.py), kept from when inproc was
# compared with that server: the sampling of every inproc run so far.
SERVER_DEFAULTS: dict[str, Any] = {
    "temperature": 0.8,
    "top_p": 0.95,
    "min_p": 0.05,
    "top_k": 40,
    "repeat_penalty": 1.1,
    "presence_penalty": 0.0,
    "frequency_penalty": 0.0,
}
PASSED_FIELDS = (
    "messages", "tools", "tool_choice", "functions", "function_call", "max_tokens", "stop",
    "seed", "response_format", *SERVER_DEFAULTS,
)  # fmt: skip


def completion_kwargs(body: dict[str, Any]) -> dict[str, Any]:
    """The ``Llama.create_chat_completion`` arguments for an OpenAI request body."""
    kwargs = {k: body[k] for k in PASSED_FIELDS if body.get(k) is not None}
    if "max_tokens" not in kwargs and body.get("max_completion_tokens") is not None:
        kwargs["max_tokens"] = body["max_completion_tokens"]
    for key, value in SERVER_DEFAULTS.items():
        kwargs.setdefault(key, value)
    return kwargs


def sse_bytes(events: list[tuple[int, dict[str, Any]]], t_end: int) -> list[tuple[int, bytes]]:
    """Timed chunk dicts → the timed SSE byte chunks the HTTP client would have read."""
    out = [(t, b"data: " + json.dumps(chunk).encode() + b"\n\n") for t, chunk in events]
    out.append((t_end, b"data: [DONE]\n\n"))
    return out


class InprocChatClient:
    """``async chat(body, timeout_s) -> ChatResult`` against ``llama_cpp.Llama`` in this process."""

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        n_ctx: int = DEFAULT_N_CTX,
        n_threads: int | None = None,
        alias: str = MODEL_ALIAS,
        timeout_s: float = 300.0,
        verbose: bool = False,
    ) -> None:
        self.model_path = locate_model(model_path)
        self.n_ctx = n_ctx
        self.n_threads = n_threads or default_threads()
        self._handler: ChatHandler | None = None
        self.model = alias
        self._timeout_s = timeout_s
        self._verbose = verbose
        self._llama: Any = None
        self._lock = asyncio.Lock()
        self.load_seconds: float | None = None

    def load(self) -> None:
        """Load the model (blocking; ``chat`` does it on first use in a worker thread)."""
        if self._llama is not None:
            return
        for key, value in CHILD_ENV_DEFAULTS.items():  # read when libgomp loads: set it first
            os.environ.setdefault(key, value)
        try:
            import llama_cpp
        except ImportError as exc:
            raise EndpointStartError(
                f"llama-cpp-python is not installed ({exc}); {INSTALL_HINT}"
            ) from None
        t0 = perf_counter_ns()
        self._handler = ChatHandler()
        self._llama = llama_cpp.Llama(
            model_path=str(self.model_path),
            n_ctx=self.n_ctx,
            n_threads=self.n_threads,
            n_threads_batch=self.n_threads,
            chat_handler=self._handler,
            verbose=self._verbose,
        )
        self.load_seconds = (perf_counter_ns() - t0) / 1e9

    def _produce(
        self, kwargs: dict[str, Any], events: list[tuple[int, dict[str, Any]]], stop: Any
    ) -> None:
        handler = self._handler
        if handler is not None:  # the context as it is before this request
            handler.tally = TokenTally([int(t) for t in self._llama._input_ids])
        stream: Iterator[dict[str, Any]] = self._llama.create_chat_completion(
            stream=True, **kwargs
        )
        append = events.append
        try:
            for chunk in stream:
                append((perf_counter_ns(), chunk))
                if stop.is_set():
                    return
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()
        if handler is not None and events:
            finish = next((c["choices"][0].get("finish_reason") for _, c in reversed(events)
                           if c.get("choices")), None)
            usage = handler.tally.usage(finish)
            if usage is not None:  # as a server's last chunk: no choices, the usage
                last = events[-1][1]
                append((perf_counter_ns(), {"id": last.get("id"), "object": last.get("object"),
                                            "created": last.get("created"),
                                            "model": last.get("model"), "choices": [],
                                            "usage": usage}))

    async def chat(self, body: dict[str, Any], timeout_s: float | None = None, *,
                   context: RequestContext = NO_CONTEXT) -> ChatResult:
        """One completion; of ``context`` only the tool-delta rule applies (no HTTP headers;
        chunks are not seen as they arrive, so a LoadGen first token comes from the record)."""
        async with self._lock:
            if self._llama is None:
                await asyncio.to_thread(self.load)
            return await self._chat(body, timeout_s or self._timeout_s, context.tool_deltas)

    async def _chat(self, body: dict[str, Any], timeout_s: float,
                    tool_deltas: ToolDeltaRule) -> ChatResult:
        result = ChatResult()
        if needs_routing(body):  # as a server's HTTP 400: nothing is generated
            result.t_sent_ns = result.t_end_ns = perf_counter_ns()
            return result.fail("http_status", NO_TOOL_CALLS)
        kwargs = completion_kwargs(body)
        kwargs["model"] = self.model
        events: list[tuple[int, dict[str, Any]]] = []
        stop = threading.Event()
        result.t_sent_ns = perf_counter_ns()
        task = asyncio.ensure_future(asyncio.to_thread(self._produce, kwargs, events, stop))
        error: BaseException | None = None
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout_s)
        except TimeoutError:
            stop.set()
            await asyncio.gather(task, return_exceptions=True)  # keep requests serialized
            result.t_end_ns = perf_counter_ns()
            self._fill(result, events, False, tool_deltas)
            return result.fail("timeout", f"no complete reply within {timeout_s} s")
        except asyncio.CancelledError:
            stop.set()
            await asyncio.gather(task, return_exceptions=True)
            raise
        except Exception as exc:  # an error from the model call: like a server's error reply
            error = exc
        result.t_end_ns = perf_counter_ns()
        self._fill(result, events, error is None, tool_deltas)
        if error is not None:
            message = f"in-process model error: {error!r}"
            return result.fail(http_error_type(message), message)
        return result

    @staticmethod
    def _fill(result: ChatResult, events: list[tuple[int, dict[str, Any]]], done: bool,
              tool_deltas: ToolDeltaRule) -> None:
        if events:
            result.t_first_byte_ns = events[0][0]
        chunks = sse_bytes(events, result.t_end_ns)
        if not done:
            chunks.pop()  # no [DONE]
        assemble_stream(result, chunks, tool_deltas)
        result.chunks = len(events)
        if not done:  # keep the caller's error type (assemble_stream marks a missing [DONE])
            result.status, result.error_type, result.error = "ok", None, None

    def info(self) -> dict[str, Any]:
        try:
            import llama_cpp

            version: str | None = llama_cpp.__version__
            raw = llama_cpp.llama_print_system_info()
            system = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        except ImportError:
            version, system = None, ""
        return {
            "kind": "inproc",
            "llama_cpp_python": version,
            "system_info": system.strip(),
            "model": self.model,
            "model_path": str(self.model_path),
            "model_sha256": model_sha256(self.model_path),
            "load_seconds": self.load_seconds,
            "flags": {
                "n_ctx": self.n_ctx,
                "n_threads": self.n_threads,
                "n_threads_batch": self.n_threads,
                "chat_format": CHAT_FORMAT,
                "env": {k: os.environ.get(k) for k in CHILD_ENV_DEFAULTS},
            },
        }

    async def aclose(self) -> None:
        async with self._lock:
            llama, self._llama = self._llama, None
        if llama is not None:
            close = getattr(llama, "close", None)
            if close is not None:
                await asyncio.to_thread(close)
