"""A rich progress bar for embedding passages (stderr), usable as a ``ProgressFn``."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def embedding_progress(label: str = "embedding", enabled: bool = True
                       ) -> Iterator[Callable[[int, int], None]]:
    """Yields ``progress(done, total)``; draws a bar on stderr when ``enabled`` and a terminal
    or rich is available, otherwise prints a line every 2%."""
    if not enabled:
        yield lambda done, total: None
        return
    try:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
    except ImportError:  # pragma: no cover - rich is a dependency
        yield _plain(label)
        return
    console = Console(stderr=True)
    if not console.is_terminal:
        yield _plain(label)
        return
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=False) as bar:
        task_id = bar.add_task(label, total=None)
        first = [True]

        def update(done: int, total: int) -> None:
            if first[0]:  # a resumed build starts part-way: no speed sample for that jump
                first[0] = False
                bar.reset(task_id, total=total, completed=done)
                return
            bar.update(task_id, completed=done, total=total)

        yield update


def _plain(label: str) -> Callable[[int, int], None]:
    state = {"last": -1}

    def update(done: int, total: int) -> None:
        step = (50 * done // total) if total else 50
        if step != state["last"]:
            state["last"] = step
            print(f"{label}: {done}/{total} passages", file=sys.stderr, flush=True)

    return update
