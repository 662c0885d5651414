"""#43 E2E-RAG item 3: ``--device auto|cpu|cuda|cuda:N``.

``auto`` is a transcription of the reference rule, mlcommons/inference b66003e1
``e2e-rag/utils.py`` 452-479 (``detect_device``: no torch → cpu; ``torch.cuda.is_available()``
→ cuda; else ``torch.xpu.is_available()`` → xpu; else Habana's module importable and
``torch.hpu.is_available()`` → hpu; else cpu), used for the embedder (``retrieve/vectordb.py``
171-173 via ``retrieve/ragdb.py`` 45-56) and the reranker (``ragdb.py`` 28-31,
``reranker_worker.py`` 79-86).
"""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest

from agentic_bench.errors import ConfigError
from rag_pipeline import devices
from rag_pipeline.devices import (
    DeviceError,
    DevicePlacement,
    check_device_text,
    detect_device,
    resolve_device,
)


def fake_torch(cuda: bool = False, xpu: bool | None = False, hpu: bool | None = None,
               gpus: int = 1) -> Any:
    """A torch stand-in: ``xpu=None`` / ``hpu=None`` leave that attribute out."""
    torch = types.SimpleNamespace(cuda=types.SimpleNamespace(
        is_available=lambda: cuda, device_count=lambda: gpus if cuda else 0))
    if xpu is not None:
        torch.xpu = types.SimpleNamespace(is_available=lambda: xpu)
    if hpu is not None:
        torch.hpu = types.SimpleNamespace(is_available=lambda: hpu)
    return torch


def reference_detect_device(torch: Any, habana_importable: bool) -> str:
    """utils.py 452-479 as a table of its branches, in its order."""
    if torch is None:  # 454-455
        return "cpu"
    if torch.cuda.is_available():  # 457-463
        return "cuda"
    if hasattr(torch, "xpu") and torch.xpu.is_available():  # 465-467
        return "xpu"
    if habana_importable and torch.hpu.is_available():  # 469-476
        return "hpu"
    return "cpu"  # 478-479


@pytest.mark.parametrize("cuda", [True, False])
@pytest.mark.parametrize("xpu", [True, False, None])
@pytest.mark.parametrize("hpu", [True, False])
def test_auto_follows_the_reference_rule(cuda: bool, xpu: bool | None, hpu: bool,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    torch = fake_torch(cuda=cuda, xpu=xpu, hpu=hpu)
    core = types.ModuleType("habana_frameworks.torch.core")
    for name, module in (("habana_frameworks", types.ModuleType("habana_frameworks")),
                         ("habana_frameworks.torch", types.ModuleType("habana_frameworks.torch")),
                         ("habana_frameworks.torch.core", core)):
        monkeypatch.setitem(sys.modules, name, module)
    assert detect_device(torch) == reference_detect_device(torch, habana_importable=True)
    assert resolve_device("auto", torch) == detect_device(torch)


def test_without_habana_or_torch_auto_is_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "habana_frameworks", None)  # not importable
    assert detect_device(fake_torch(hpu=True)) == "cpu"
    monkeypatch.setattr(devices, "_torch", lambda: None)
    assert detect_device() == "cpu" == resolve_device("auto")


def test_the_real_torch_with_its_availability_patched(monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert detect_device() == "cuda" == resolve_device("auto")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    if hasattr(torch, "xpu"):
        monkeypatch.setattr(torch.xpu, "is_available", lambda: True)
        assert detect_device() == "xpu"
        monkeypatch.setattr(torch.xpu, "is_available", lambda: False)
    monkeypatch.setitem(sys.modules, "habana_frameworks", None)
    assert detect_device() == "cpu"


@pytest.mark.parametrize("text", ["auto", "cpu", "cuda", "cuda:0", "cuda:12"])
def test_accepted_texts(text: str) -> None:
    assert check_device_text(text) == text


@pytest.mark.parametrize("text", ["gpu", "CPU", "cuda:", "cuda:x", "cuda:-1", "xpu", "cuda 1", ""])
def test_other_texts_are_refused_naming_the_choices(text: str) -> None:
    with pytest.raises(DeviceError, match=r"auto\|cpu\|cuda\|cuda:N"):
        check_device_text(text)


def test_an_explicit_gpu_must_exist() -> None:
    with pytest.raises(DeviceError, match="no CUDA GPU"):
        resolve_device("cuda", fake_torch(cuda=False))
    with pytest.raises(DeviceError, match="2 CUDA GPU"):
        resolve_device("cuda:2", fake_torch(cuda=True, gpus=2))
    assert resolve_device("cuda:1", fake_torch(cuda=True, gpus=2)) == "cuda:1"
    assert resolve_device("cuda", fake_torch(cuda=True)) == "cuda"
    assert resolve_device("cpu", fake_torch(cuda=True)) == "cpu"  # asked: never overridden


def test_the_option_on_both_commands() -> None:
    from agentic_bench.tasks.rag_e2e.options import BuildIndexOptions, RagE2eOptions

    assert RagE2eOptions().device == "auto" == BuildIndexOptions().device
    assert BuildIndexOptions(device="cuda:1").device == "cuda:1"
    for model in (RagE2eOptions, BuildIndexOptions):
        with pytest.raises((ValueError, ConfigError), match="cuda:N"):
            model(device="gpu")


def test_the_device_reaches_the_embedder_and_the_rerankers(tmp_path: Any) -> None:
    import argparse

    from agentic_bench.tasks.rag_e2e import rag_workload
    from agentic_bench.tasks.rag_e2e.index_cache import make_embedder
    from rag_pipeline.embedders.local import packaged_minilm_path

    embedder = make_embedder("minilm", device="cuda:1")  # nothing loads until first use
    assert getattr(embedder, "device", None) == "cuda:1"
    weights = str(packaged_minilm_path())
    for name in ("late-interaction", "cross-encoder"):
        args = argparse.Namespace(reranker=name, reranker_model=weights)
        assert rag_workload.make_reranker(args, embedder, "cuda:1").device == "cuda:1"
    placement = DevicePlacement.of("auto", "cuda", make_embedder("minilm", device="cuda"),
                                   rag_workload.make_reranker(argparse.Namespace(
                                       reranker="late-interaction", reranker_model=weights),
                                       embedder, "cuda")).to_dict()
    assert placement["requested"] == "auto" and placement["embedder"] == "cuda"
    assert placement["reranker"] == "cuda" and "own empty GPU" in placement["note"]
    assert DevicePlacement.of("auto", "cpu", embedder).to_dict() == {
        "requested": "auto", "resolved": "cpu", "embedder": "cuda:1", "reranker": None}


def test_the_late_interaction_model_runs_on_its_device() -> None:
    """reranker_worker.py 83-86, 113, 122: the model and its inputs are moved to the device."""
    pytest.importorskip("transformers")
    from rag_pipeline.embedders.local import packaged_minilm_path
    from rag_pipeline.late_interaction import LateInteractionReranker

    reranker = LateInteractionReranker(packaged_minilm_path(), device="cpu")
    scores = reranker.scores("capital of France", ["Paris is the capital", "bananas"])
    assert next(reranker._model.parameters()).device.type == "cpu"
    assert scores[0] > scores[1] and all(isinstance(s, float) for s in scores)
