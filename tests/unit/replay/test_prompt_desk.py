"""#46 item 2: prompts are written one at a time, the earliest due first, and a writer hands
the desk over between slices to a request due before its own."""

from __future__ import annotations

import asyncio

from agentic_bench.replay.prompt_desk import PromptDesk


def test_waiters_get_the_desk_in_the_order_they_are_due() -> None:
    order: list[int] = []

    async def go() -> None:
        desk = PromptDesk()

        async def writer(due: int) -> None:
            async with desk.turn(due):
                order.append(due)
                while due == 50 and desk.waiting < 3:  # the first holds until all queue
                    await asyncio.sleep(0)

        first = asyncio.ensure_future(writer(50))
        await asyncio.sleep(0)  # it holds the desk
        await asyncio.gather(first, *(writer(d) for d in (30, 10, 20)))

    asyncio.run(go())
    assert order == [50, 10, 20, 30]


def test_a_writer_pauses_for_a_request_due_earlier_and_not_for_one_due_later() -> None:
    order: list[str] = []

    async def go() -> None:
        desk = PromptDesk()

        async def slices(name: str, due: int, n: int) -> None:
            async with desk.turn(due):
                for i in range(n):
                    order.append(f"{name}{i}")
                    while name == "ahead" and desk.waiting < 2 and i == 0:
                        await asyncio.sleep(0)  # until the two others queue
                    await desk.pause(due)

        ahead = asyncio.ensure_future(slices("ahead", 100, 3))
        await asyncio.sleep(0)
        later = asyncio.ensure_future(slices("later", 200, 1))
        now = asyncio.ensure_future(slices("now", 5, 2))
        await asyncio.gather(ahead, later, now)

    asyncio.run(go())
    assert order == ["ahead0", "now0", "now1", "ahead1", "ahead2", "later0"]


def test_a_cancelled_waiter_is_skipped() -> None:
    order: list[int] = []

    async def go() -> None:
        desk = PromptDesk()
        release = asyncio.Event()

        async def writer(due: int, hold: bool = False) -> None:
            async with desk.turn(due):
                order.append(due)
                if hold:
                    await release.wait()

        holder = asyncio.ensure_future(writer(1, hold=True))
        await asyncio.sleep(0)
        doomed = asyncio.ensure_future(writer(2))
        other = asyncio.ensure_future(writer(3))
        await asyncio.sleep(0)
        doomed.cancel()
        release.set()
        await asyncio.gather(holder, other)
        assert doomed.cancelled() and desk.waiting == 0

    asyncio.run(go())
    assert order == [1, 3]
