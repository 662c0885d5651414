"""Weka traces (a ``.json`` trace, a directory of them, or a JSONL corpus) → session trees
(:func:`agentic_bench.trace.weka.weka_session`; docs/agentx.md). ``agentic-bench import weka``
writes them as a native trace whose prompts stay blocks (no text), replayable as is."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from agentic_bench.trace.model import Session


def import_weka(path: Path) -> Iterator[Session]:
    from agentic_bench.trace.weka import WekaCorpus, weka_session

    for trace in WekaCorpus(path):  # every trace checked first (TraceError, exit 2)
        yield weka_session(trace)


def detect(head: str) -> bool:
    return '"block_size"' in head and '"requests"' in head and '"hash_id_scope"' in head


__all__ = ["detect", "import_weka"]
