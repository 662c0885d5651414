"""A sentence-transformers model run as int8 ONNX through onnxruntime — built here, never fetched.

On first use the local model's transformer is exported to ONNX (``torch.onnx.export``) and its
weights dynamically quantised to int8 (``onnxruntime.quantization.quantize_dynamic``); both files
are cached under ``cache_dir/onnx-int8-<key>/`` keyed by the model's own files, so later runs
load the quantised graph directly. Texts are tokenised by the model's own tokenizer, embedded in
batches of similar length (sorted by length, so padding is small), mean-pooled over the attention
mask and L2-normalised — the model must be a transformer followed by mean pooling (and
optionally ``Normalize``), as all-MiniLM-L6-v2 and the e5 family are; anything else is refused.
It always runs on the CPU (onnxruntime's CPU provider), whatever ``--device`` says.

Calls from several threads run at once (as the reference embeds: the note in
:class:`rag_pipeline.embedders.local.SentenceTransformerEmbedder`): ``InferenceSession.run`` may
be called concurrently, and loading, locked, ends with one tokenisation so the fast tokenizer's
settings are set before any concurrent call only reads them.

The vectors differ slightly from the float model's (int8 weights):
``benchmarks/rag_embed_backends.py`` measures the speed and the retrieval recall@10 of both on
the same queries.
"""

from __future__ import annotations

import hashlib
import os
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rag_pipeline.embedders.base import normalize_rows
from rag_pipeline.embedders.local import EmbedderUnavailableError

EXPORT_VERSION = 1  # bump when the export or quantisation recipe changes
INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def model_key(model_dir: Path) -> str:
    """sha256 over the model's files (names, sizes, contents of the small ones)."""
    digest = hashlib.sha256(f"v{EXPORT_VERSION}".encode())
    for path in sorted(p for p in model_dir.rglob("*") if p.is_file()):
        stat = path.stat()
        digest.update(f"{path.relative_to(model_dir)}\0{stat.st_size}\1".encode())
        if stat.st_size < 4_000_000:
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _check_pipeline(model: Any) -> None:
    names = [type(module).__name__ for module in model]
    pooling = model[1] if len(model) > 1 else None
    getter = getattr(pooling, "get_config_dict", None)
    config: dict[str, Any] = getter() if callable(getter) else {}
    # sentence-transformers >= 5 names the mode; older versions set one flag per mode
    mode = config.get("pooling_mode") == "mean" or bool(config.get("pooling_mode_mean_tokens"))
    if names[:2] != ["Transformer", "Pooling"] or not mode or \
            any(n != "Normalize" for n in names[2:]):
        raise EmbedderUnavailableError(
            f"onnx-int8 handles a transformer + mean pooling (+ Normalize); this model is "
            f"{' → '.join(names)}")


def export_int8(model_dir: Path, target: Path) -> Path:
    """Export ``model_dir``'s transformer to ONNX and quantise it to int8 in ``target``."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from sentence_transformers import SentenceTransformer

    from rag_pipeline.embedders.quiet_loading import silence_loading_bars

    silence_loading_bars()
    model = SentenceTransformer(str(model_dir), device="cpu", local_files_only=True)
    _check_pipeline(model)
    transformer: Any = model[0].auto_model
    transformer.eval()
    sample = model.tokenizer(["warm-up text", "a second, longer warm-up text"], padding=True,
                             return_tensors="pt")
    names = [n for n in INPUTS if n in sample]

    class Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = transformer

        def forward(self, *tensors: Any) -> Any:
            return self.inner(**dict(zip(names, tensors, strict=True))).last_hidden_state

    target.mkdir(parents=True, exist_ok=True)
    fp32, int8 = target / "model-fp32.onnx", target / "model-int8.onnx"
    axes = {n: {0: "batch", 1: "tokens"} for n in [*names, "last_hidden_state"]}
    # The TorchScript exporter traces one sample; transformers warns that shape checks become
    # constants. For this encoder they compare a mask with itself (no padding offset, never
    # causal): tests/unit/rag_pipeline/test_embed_backends.py checks long and short texts.
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Encoder().eval(), tuple(sample[n] for n in names), str(fp32),
                          input_names=names, output_names=["last_hidden_state"],
                          dynamic_axes=axes, opset_version=17, dynamo=False)
    scratch = target / "model-int8.onnx.tmp"
    quantize_dynamic(str(fp32), str(scratch), weight_type=QuantType.QInt8, per_channel=True)
    scratch.replace(int8)
    fp32.unlink()
    return int8


class OnnxInt8Embedder:
    """``model_dir`` (a local sentence-transformers model) as int8 ONNX; see the module doc."""

    def __init__(self, model_dir: str | Path, cache_dir: str | Path, name: str | None = None,
                 query_prefix: str = "", passage_prefix: str = "", batch_size: int = 16,
                 threads: int | None = None) -> None:
        self.model_dir = Path(model_dir)
        self.cache_dir = Path(cache_dir)
        self._name = name or f"onnx-int8:{self.model_dir.name}"
        self.query_prefix = query_prefix
        self.passage_prefix = passage_prefix
        self.batch_size = batch_size
        self.threads = threads
        self._session: Any = None
        self._tokenizer: Any = None
        self._max_length = 512
        self._dim = 0
        self._load_lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._name

    def _load(self) -> Any:
        if self._session is not None:
            return self._session
        with self._load_lock:
            if self._session is None:
                self._open()
        return self._session

    def _open(self) -> None:
        """Export (first time), open the session, warm the tokenizer (under the load lock)."""
        try:
            import onnxruntime as ort
            from transformers import AutoTokenizer
        except ImportError as exc:
            raise EmbedderUnavailableError(f"onnx-int8 needs onnxruntime ({exc}): pip install "
                                           "'agentic-serving-bench[rag]'") from exc
        if not self.model_dir.is_dir():
            raise EmbedderUnavailableError(f"model directory not found: {self.model_dir}")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        target = self.cache_dir / f"onnx-int8-{model_key(self.model_dir)[:16]}"
        graph = target / "model-int8.onnx"
        if not graph.is_file():
            export_int8(self.model_dir, target)
        options = ort.SessionOptions()
        options.intra_op_num_threads = self.threads or (os.cpu_count() or 1)
        session = ort.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])
        self._tokenizer = AutoTokenizer.from_pretrained(str(self.model_dir),
                                                        local_files_only=True)
        self._max_length = _max_seq_length(self.model_dir, self._tokenizer)
        self._inputs = [i.name for i in session.get_inputs()]
        self._dim = int(self._run(["warm-up"], session).shape[1])
        self._session = session  # last: a session set means everything above is ready

    def _run(self, texts: list[str], session: Any = None) -> np.ndarray:
        batch = self._tokenizer(texts, padding=True, truncation=True,
                                max_length=self._max_length, return_tensors="np")
        feeds = {n: np.asarray(batch[n], dtype=np.int64) for n in self._inputs if n in batch}
        if "token_type_ids" in self._inputs and "token_type_ids" not in feeds:
            feeds["token_type_ids"] = np.zeros_like(feeds["input_ids"])
        hidden = (session or self._session).run(None, feeds)[0]
        mask = feeds["attention_mask"][..., None].astype(np.float32)
        pooled = (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
        return normalize_rows(pooled)

    @property
    def dim(self) -> int:
        self._load()
        return self._dim

    def _encode(self, texts: Sequence[str], prefix: str) -> np.ndarray:
        self._load()
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        items = [prefix + t for t in texts]
        order = sorted(range(len(items)), key=lambda i: len(items[i]))
        out = np.zeros((len(items), self._dim), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            rows = order[start:start + self.batch_size]
            out[rows] = self._run([items[i] for i in rows])
        return out

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, self.query_prefix)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, self.passage_prefix)


def _max_seq_length(model_dir: Path, tokenizer: Any) -> int:
    """sentence_bert_config.json's max_seq_length (what sentence-transformers truncates to)."""
    import json

    config = model_dir / "sentence_bert_config.json"
    if config.is_file():
        value = json.loads(config.read_text(encoding="utf-8")).get("max_seq_length")
        if isinstance(value, int) and value > 0:
            return value
    return int(min(getattr(tokenizer, "model_max_length", 512) or 512, 512))
