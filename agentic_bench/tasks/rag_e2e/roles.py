"""LLM roles on their own endpoints: document grading on a second server.

MLPerf's E2E-RAG reference puts decomposition, sufficiency and the answer on one model
(gpt-oss-120b) and document grading on another (gpt-oss-20b). ``--grade-endpoint URL``
(with ``--grade-model`` and ``--grade-api-key-env``) sends every call made while the pipeline's
``grade`` stage runs to that server; the other stages stay on the endpoint under test. The
judge has its own options (:mod:`.judge`).

:class:`RoleTransport` wraps the run's transport: it reads the running stage from
``rag_pipeline.current_stage`` and routes a ``grade`` call to the grade client, with that
role's model in the body. The grade client is opened on first use, inside the run's event loop,
and closed with the run (``ExecContext.closers``). Every LLM record names its ``role``
(``main`` or ``grade``), so the summary's ``roles`` block gives each role's latency and calls.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from agentic_bench.errors import ConfigError
from agentic_bench.transport.base import ChatTransport
from agentic_bench.transport.request import NO_CONTEXT, RequestContext
from agentic_bench.transport.result import ChatResult
from rag_pipeline import current_stage

ROLE_OF_STAGE = {"grade": "grade"}  # every other stage is the main role


@dataclass(frozen=True, slots=True)
class RoleEndpoint:
    """Where one role's calls go (the API key is read from the environment, never stored)."""

    url: str
    model: str | None = None
    api_key_env: str = "GRADE_API_KEY"


def role_of(stage: str | None, routed: frozenset[str]) -> str:
    """``grade`` for a grading call when grading has its own endpoint, else ``main``."""
    role = ROLE_OF_STAGE.get(stage or "", "main")
    return role if role in routed else "main"


class RoleTransport:
    """The run's transport, with some roles' calls sent to their own endpoints."""

    def __init__(self, main: ChatTransport, roles: dict[str, RoleEndpoint],
                 timeout_s: float = 300.0, kind: str | None = None) -> None:
        self.main = main
        self.roles = roles
        self.timeout_s = timeout_s
        self.kind = kind  # the run's --transport, for the roles' own clients
        self._clients: dict[str, Any] = {}
        self._models: dict[str, str] = {}

    @property
    def routed(self) -> frozenset[str]:
        return frozenset(self.roles)

    async def chat(self, body: dict[str, Any], timeout_s: float | None = None, *,
                   context: RequestContext = NO_CONTEXT) -> ChatResult:
        role = role_of(current_stage.get(), self.routed)
        if role == "main":
            return await self.main.chat(body, timeout_s, context=context)
        client = await self._client(role)
        return await client.chat({**body, "model": self._models[role]}, timeout_s,  # type: ignore[no-any-return]
                                 context=context)

    async def _client(self, role: str) -> Any:
        if role not in self._clients:
            from agentic_bench.transport.choose import make_chat_client

            spec = self.roles[role]
            client = make_chat_client(spec.url, os.environ.get(spec.api_key_env) or None,
                                      kind=self.kind, timeout_s=self.timeout_s)
            model = spec.model
            if model is None:  # the first model the server lists, as for the main endpoint
                status, listed = await client.list_models()
                data = listed.get("data", []) if isinstance(listed, dict) else []
                model = next((m.get("id") for m in data if isinstance(m, dict)), None)
                if status != 200 or not model:
                    await client.aclose()
                    raise ConfigError(f"--{role}-endpoint lists no models (HTTP {status}); "
                                      f"name one with --{role}-model")
            self._clients[role], self._models[role] = client, model
        return self._clients[role]

    async def aclose(self) -> None:
        """Close the role clients (the main transport belongs to the run)."""
        clients, self._clients = self._clients, {}
        for client in clients.values():
            await client.aclose()
