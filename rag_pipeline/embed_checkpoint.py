"""Resumable passage embedding: vectors are saved block by block while they are computed.

Embedding the full corpus takes over an hour on a small CPU; an interrupted build keeps the
blocks it finished and the next build with the same cache key continues after them. Blocks
are whole multiples of the batch size, so every batch holds the same passages as in an
uninterrupted build and the vectors are the same.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from rag_pipeline.embedders.base import Embedder

ProgressFn = Callable[[int, int], None]

META_FILE = "checkpoint.json"
BATCHES_PER_BLOCK = 16


class EmbeddingCheckpoint:
    """Blocks of embedded passages under ``directory`` for one cache ``key``."""

    def __init__(self, directory: Path, key: str, total: int, block_size: int) -> None:
        self.directory = directory
        self.key = key
        self.total = total
        self.block_size = block_size

    def _block_path(self, n: int) -> Path:
        return self.directory / f"block-{n:06d}.npy"

    def _rows(self, n: int) -> int:
        return min(self.block_size, self.total - n * self.block_size)

    def load(self) -> list[np.ndarray]:
        """The saved blocks from the start, in order, up to the first missing or bad one."""
        meta = {"key": self.key, "total": self.total, "block_size": self.block_size}
        try:
            found = json.loads((self.directory / META_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            found = None
        if found != meta:
            self.clear()
            self.directory.mkdir(parents=True, exist_ok=True)
            (self.directory / META_FILE).write_text(json.dumps(meta), encoding="utf-8")
            return []
        blocks: list[np.ndarray] = []
        n = 0
        while n * self.block_size < self.total:
            try:
                block = np.load(self._block_path(n), allow_pickle=False)
            except (OSError, ValueError):
                break
            if block.ndim != 2 or block.shape[0] != self._rows(n) or block.dtype != np.float32:
                break
            blocks.append(block)
            n += 1
        return blocks

    def save(self, n: int, block: np.ndarray) -> None:
        """Write block ``n`` atomically (a partly written file is never read back)."""
        path = self._block_path(n)
        scratch = path.with_suffix(".tmp")
        with open(scratch, "wb") as fh:
            np.save(fh, np.ascontiguousarray(block, dtype=np.float32), allow_pickle=False)
        os.replace(scratch, path)

    def clear(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)


def embed_with_checkpoint(
    embedder: Embedder,
    texts: Sequence[str],
    checkpoint_dir: Path,
    key: str,
    batch_size: int = 256,
    progress: ProgressFn | None = None,
) -> tuple[np.ndarray, int]:
    """Embed ``texts`` in batches, saving every ``BATCHES_PER_BLOCK`` batches under
    ``checkpoint_dir``; returns the vectors and how many passages came from saved blocks.
    The caller removes ``checkpoint_dir`` once the index is saved."""
    total = len(texts)
    block_size = batch_size * BATCHES_PER_BLOCK
    checkpoint = EmbeddingCheckpoint(checkpoint_dir, key, total, block_size)
    parts = checkpoint.load()
    resumed = sum(len(p) for p in parts)
    if progress is not None:
        progress(resumed, total)
    for n in range(len(parts), -(-total // block_size)):
        start = n * block_size
        stop = min(start + block_size, total)
        batches: list[np.ndarray] = []
        for b in range(start, stop, batch_size):
            batches.append(embedder.embed_passages(list(texts[b : min(b + batch_size, stop)])))
            if progress is not None:
                progress(min(b + batch_size, stop), total)
        block = np.concatenate(batches).astype(np.float32, copy=False)
        checkpoint.save(n, block)
        parts.append(block)
    if not parts:
        return np.zeros((0, embedder.dim), dtype=np.float32), 0
    return np.ascontiguousarray(np.concatenate(parts), dtype=np.float32), resumed
