"""Roles on their own endpoints (#20 item 3): which calls go where, and with which model."""

from __future__ import annotations

import asyncio
from typing import Any

from agentic_bench.tasks.rag_e2e import roles as roles_mod
from agentic_bench.tasks.rag_e2e.roles import RoleEndpoint, RoleTransport, role_of
from agentic_bench.transport.result import ChatResult
from rag_pipeline import current_stage


class Recording:
    def __init__(self, name: str) -> None:
        self.name = name
        self.bodies: list[dict[str, Any]] = []
        self.closed = False

    async def chat(self, body: dict[str, Any], timeout_s: float | None = None, *,
                   context: object = None) -> ChatResult:
        self.bodies.append(body)
        return ChatResult(t_sent_ns=0, t_end_ns=1)

    async def list_models(self) -> tuple[int, Any]:
        return 200, {"data": [{"id": "listed-model"}]}

    async def aclose(self) -> None:
        self.closed = True


def test_role_of_stage() -> None:
    routed = frozenset({"grade"})
    assert role_of("grade", routed) == "grade"
    assert [role_of(s, routed) for s in ("decompose", "sufficiency", "generate", None)] == \
        ["main"] * 4
    assert role_of("grade", frozenset()) == "main"  # no grade endpoint: grading is main's


def test_grade_calls_go_to_the_grade_endpoint_with_its_model(monkeypatch: Any) -> None:
    main, grader = Recording("main"), Recording("grader")
    made: list[tuple[str, str | None]] = []

    def make(url: str, api_key: str | None = None, **_: Any) -> Recording:
        made.append((url, api_key))
        return grader

    import agentic_bench.transport.choose as choose

    monkeypatch.setattr(choose, "make_chat_client", make)
    monkeypatch.setenv("G_KEY", "k")
    transport = RoleTransport(main, {"grade": RoleEndpoint("http://g/v1", None, "G_KEY")})

    async def go() -> None:
        for stage in ("decompose", "grade", "grade", "generate"):
            token = current_stage.set(stage)
            try:
                await transport.chat({"model": "big", "messages": []})
            finally:
                current_stage.reset(token)
        await transport.aclose()

    asyncio.run(go())
    assert [b["model"] for b in main.bodies] == ["big", "big"]
    assert [b["model"] for b in grader.bodies] == ["listed-model"] * 2  # first model listed
    assert made == [("http://g/v1", "k")]  # one client, opened once, key from the env
    assert grader.closed and not main.closed  # the run's transport is not ours to close
    assert roles_mod.ROLE_OF_STAGE == {"grade": "grade"}
