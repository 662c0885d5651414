"""``run rag-e2e --index-from RUN_DIR``: QnA over the database an e2e-rag-db build wrote.

MLPerf E2E-RAG's README (mlcommons/inference b66003e1 ``e2e-rag/README.md`` 47-48, 68-99) runs
the QnA step on the database its DB step built (``DATABASE=...db`` given to both), so the
passages searched are the DB step's: ``*.html`` pages only (``QSL_datasetup.py`` 44-48) and
``Document: <file>`` for a page with no text (``reference_SUT_datasetup.py`` 227-231). Without
``--index-from`` a run builds its own index from ``--corpus`` by ``read_docs.py``'s rules
(``*.htm`` pages too, no passage for an empty page: :mod:`rag_pipeline.reference_corpus`), which
the run's notes name.

The database is the ``db/`` folder of ``rag build-index --mlperf-db --loadgen mlperf --out
RUN_DIR`` (:mod:`agentic_bench.tasks.rag_e2e.db_loadgen`): the FAISS index (``index.faiss``,
``ids.json``, ``manifest.json``, its content hash checked on load) and ``passages.jsonl``, row
*i* the passage of vector *i*. The run's embedder must be the one the build embedded with
(``summary.json`` names it): queries and passages must share one vector space.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from agentic_bench.errors import ConfigError
from agentic_bench.metrics.summary_model import Summary, why_invalid
from agentic_bench.tasks.rag_e2e.db_loadgen import DB_FOLDER, PASSAGES_FILE

if TYPE_CHECKING:
    from rag_pipeline import ChunkIndex, Embedder

INDEX_FROM_NOTE = (
    "index built here by read_docs.py's ingestion rules (*.html and *.htm pages, no passage for "
    "an empty page), where the reference's QnA searches the database its e2e-rag-db step built "
    "(*.html only, 'Document: <file>' for an empty page; e2e-rag/README.md 68-99): "
    "--index-from RUN_DIR searches that build's")


def db_folder(path: Path) -> Path:
    """The database folder of ``path``: a LoadGen build's run folder or its ``db/``."""
    for folder in (path / DB_FOLDER, path):
        if (folder / PASSAGES_FILE).is_file():
            return folder
    raise ConfigError(f"--index-from {path}: no {DB_FOLDER}/{PASSAGES_FILE} there (the --out "
                      "folder of `rag build-index --mlperf-db --loadgen mlperf`, or its db/)")


def build_summary(folder: Path) -> Summary:
    """The build's ``summary.json`` (beside ``db/``), or an empty summary when there is none
    (or it is not a JSON object); a ConfigError names a field of it that is not a summary's."""
    for path in (folder.parent / "summary.json", folder / "summary.json"):
        if path.is_file():
            data = json.loads(path.read_text(encoding="utf-8"))
            try:
                return Summary.model_validate(data if isinstance(data, dict) else {})
            except ValidationError as exc:
                raise ConfigError(f"{path}: {why_invalid(exc)}") from None
    return Summary.model_validate({})


def read_rows(folder: Path) -> list[dict[str, Any]]:
    with (folder / PASSAGES_FILE).open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def load_db_index(path: str | Path, embedder: Embedder) -> tuple[ChunkIndex, dict[str, Any],
                                                                   dict[str, Any]]:
    """The chunk index over the build's database, the run's ``index`` block and its
    ``corpus`` block (pages and passages as the database holds them)."""
    from rag_pipeline import ChunkIndex
    from rag_pipeline.corpus import title_from_url
    from rag_pipeline.documents import Chunk
    from rag_pipeline.index import IndexIntegrityError, load_index, read_manifest
    from rag_pipeline.reference_corpus import doc_id_for

    folder = db_folder(Path(path).expanduser().resolve())
    summary = build_summary(folder)
    built_with = (summary.db or {}).get("embedder")
    if built_with and built_with != embedder.name:
        raise ConfigError(f"--index-from {path}: embedded with {built_with}, this run embeds "
                          f"queries with {embedder.name} (give the build's --embedder; the "
                          "build embeds raw text: --embed-prefixes none)")
    try:
        index = load_index(folder, verify=True)
    except (IndexIntegrityError, OSError, ValueError) as exc:
        raise ConfigError(f"--index-from {path}: {exc}") from exc
    rows = read_rows(folder)
    if len(rows) != index.ntotal:
        raise ConfigError(f"--index-from {path}: {index.ntotal} vectors but {len(rows)} "
                          f"passages in {PASSAGES_FILE}")
    if index.dim != embedder.dim:
        raise ConfigError(f"--index-from {path}: {index.dim}-d vectors, the embedder "
                          f"{embedder.name} gives {embedder.dim}-d")
    chunks = []
    for chunk_id, row in zip(index.ids, rows, strict=True):
        name = str(row.get("source", ""))
        doc_id = doc_id_for(str(row.get("original_url") or ""), name)
        title = name if doc_id.startswith("file:") else title_from_url(doc_id)
        chunks.append(Chunk(doc_id=doc_id, chunk_id=chunk_id, title=title,
                            text=str(row["passage"]), start=-1, embed_title=False))
    starts = Counter(str(row.get("source", "")) for row in rows
                     if row.get("passage_id") == 0)
    db = summary.db or {}
    loadgen = summary.loadgen or {}
    info = {"documents": len(starts), "chunks": len(chunks), "kind": index.kind,
            "embedder": embedder.name, "dim": index.dim, "cache_key": db.get("md5"),
            "content_hash": read_manifest(folder)["content_hash"],
            "index_from": str(folder), "params": index.params,
            "loadgen_mode": (loadgen.get("options") or {}).get("mode"),
            "pages_indexed_twice_or_more": sum(1 for n in starts.values() if n > 1)}
    corpus = {"source": f"e2e-rag-db build {folder}", "pages": len(starts),
              "passages": len(rows), "parser": "e2e-rag-db build"}
    return ChunkIndex(index=index, chunks=chunks), info, corpus


__all__ = ["INDEX_FROM_NOTE", "build_summary", "db_folder", "load_db_index"]
