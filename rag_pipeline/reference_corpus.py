"""MLPerf E2E-RAG's frozen Wikipedia corpus: HTML pages + ``url_mapping.json`` → documents.

Reference: mlcommons/inference b66003e1, ``e2e-rag/read_docs.py`` 434-542
(``process_documents``) with ``utils.py`` 30-43 and ``download_docs.py`` 95-110, 186-188:

* the pages are every ``*.html`` / ``*.htm`` file of one folder (``*.pdf`` too there — PyMuPDF —
  which we refuse with a clear error: the official corpus is HTML), processed in sorted path order;
* ``url_mapping.json`` in that folder maps a file's name without its last extension to the page's
  URL (``""`` when absent); the file name is the URL without ``https://`` and with ``/`` and ``:``
  as ``_`` (cut to 200 characters);
* each page is extracted (:mod:`rag_pipeline.html_extract`) and cut into fixed passages
  (:mod:`rag_pipeline.reference_splitter`); a page with no text gives no passage;
* passages are numbered over the whole corpus in that order — the ``passages.json`` that
  ``read_docs.py --json`` writes: ``{"base_dir", "passages": [{"index", "base_filename",
  "original_url", "passage"}]}``.

``--corpus`` accepts the folder, a ``.tar.gz`` of it, or such a ``passages.json``. A document's
id is its URL (``file:<name>`` when the mapping has none: ``read_docs.py`` 425-427 gives such a
page the URL ``""``, and the reference loop drops every result without one,
``multi_shot_retrieval.py`` 1549-1556, as :mod:`rag_pipeline.reference_loop` does); its title is
the article title from the URL. The stats count those pages (``unmapped_pages``), so a run can
flag a ``url_mapping.json`` that does not cover the corpus.
"""

from __future__ import annotations

import hashlib
import json
import os
import tarfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rag_pipeline.corpus import CorpusError, title_from_url
from rag_pipeline.documents import Document
from rag_pipeline.html_extract import MLPERF_BOUNDARY, extract_page_text, parser_name
from rag_pipeline.reference_splitter import (
    MLPERF_PASSAGE_LENGTH,
    MLPERF_PASSAGE_OVERLAP,
    fixed_windows,
)

PAGE_SUFFIXES = (".html", ".htm")
URL_MAPPING = "url_mapping.json"
EXTRACTION_VERSION = 1  # bump when an extraction rule changes (invalidates cached passages)
ProgressFn = Callable[[int, int], None]


@dataclass(slots=True)
class ReferenceCorpus:
    """The documents (pre-cut) and how they were obtained."""

    documents: list[Document]
    stats: dict[str, Any] = field(default_factory=dict)


def base_filename(name: str) -> str:
    """utils.py 39-43: the name without its last extension."""
    return name.rsplit(".", 1)[0] if "." in name else name


def page_filename(url: str) -> str:
    """download_docs.py 95-110: the page file's name for ``url`` (without the extension)."""
    return url.replace("https://", "").replace("/", "_").replace(":", "_")[:200]


def doc_id_for(url: str, name: str) -> str:
    return url or f"file:{name}"


def reference_url(doc_id: str) -> str:
    """The URL the reference would report for a document (``""`` for an unmapped page)."""
    return "" if doc_id.startswith("file:") else doc_id


def _page_files(folder: Path) -> list[Path]:
    pdfs = sorted(folder.glob("*.pdf"))
    if pdfs:
        raise CorpusError(f"{folder}: {len(pdfs)} PDF page(s), e.g. {pdfs[0].name}; only HTML "
                          "pages are supported (the official corpus is doc_html/)")
    return sorted(p for suffix in PAGE_SUFFIXES for p in folder.glob(f"*{suffix}"))


def load_url_mapping(folder: Path) -> dict[str, str]:
    """``url_mapping.json`` of a page folder: file name without extension → URL ({} if none)."""
    path = folder / URL_MAPPING
    if not path.is_file():
        return {}
    try:
        mapping = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise CorpusError(f"{path}: invalid JSON: {exc}") from exc
    if not isinstance(mapping, dict):
        raise CorpusError(f"{path}: expected an object of file name → URL")
    return {str(k): str(v) for k, v in mapping.items()}


def _extract(job: tuple[str, str, int, int]) -> list[tuple[int, str]]:
    path, boundary, length, overlap = job
    text = Path(path).read_text(encoding="utf-8")
    return fixed_windows(extract_page_text(text, boundary), length, overlap)


def _corpus_key(files: Sequence[Path], mapping: dict[str, str], settings: dict[str, Any]) -> str:
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode())
    digest.update(json.dumps(mapping, sort_keys=True).encode())
    for path in files:
        stat = path.stat()
        digest.update(f"{path.name}\0{stat.st_size}\0{stat.st_mtime_ns}\1".encode())
    return digest.hexdigest()


def passages_payload(pages: Sequence[tuple[str, str, list[tuple[int, str]]]],
                     base_dir: str) -> dict[str, Any]:
    """The ``read_docs.py --json`` file for ``(name, url, windows)`` pages, in order (each row also
    carries the passage's ``start`` in its page's text, which the reference file lacks)."""
    rows: list[dict[str, Any]] = []
    for name, url, windows in pages:
        for start, passage in windows:
            rows.append({"index": len(rows), "base_filename": name, "original_url": url,
                         "passage": passage, "start": start})
    return {"base_dir": base_dir, "passages": rows}


def documents_from_passages(payload: dict[str, Any], origin: str) -> list[Document]:
    """Documents from a ``passages.json``: the passages of one URL (or unmapped file) form one
    document, in first-seen order."""
    rows = payload.get("passages") if isinstance(payload, dict) else None
    if not isinstance(rows, list):
        raise CorpusError(f"{origin}: expected {{'passages': [...]}} as read_docs.py --json writes")
    grouped: dict[str, tuple[str, list[tuple[int, str]]]] = {}
    for n, row in enumerate(rows):
        if not isinstance(row, dict) or not isinstance(row.get("passage"), str):
            raise CorpusError(f"{origin}: passages[{n}]: expected an object with 'passage'")
        name = str(row.get("base_filename", ""))
        doc_id = doc_id_for(str(row.get("original_url") or ""), name)
        start = row.get("start")
        grouped.setdefault(doc_id, (name, []))[1].append(
            (start if isinstance(start, int) else -1, row["passage"]))
    return [Document(doc_id=doc_id, title=name if doc_id.startswith("file:")
                     else title_from_url(doc_id), text="", passages=tuple(passages))
            for doc_id, (name, passages) in grouped.items()]


MAX_MEMBER_BYTES = 512 * 1024 * 1024  # one page; a corpus page is a few hundred kB
MAX_ARCHIVE_BYTES = 32 * 1024 * 1024 * 1024  # everything unpacked


def check_members(archive: Path, members: list[tarfile.TarInfo]) -> None:
    """Refuse an archive with any member that could leave the folder or is not a plain file
    or folder: an absolute path, a ``..`` part, a link (symbolic or hard), a device, FIFO or
    other special file, or sizes over the caps — checked here for every member before
    anything is written (not left to the ``data`` filter alone: Python 3.11 before 3.11.13
    has published bypasses of it, CVE-2025-4517)."""
    total = 0
    for member in members:
        name = member.name
        parts = Path(name).parts
        where = f"{archive}: member {name!r}"
        if name.startswith(("/", "\\")) or (parts and ":" in parts[0]) or Path(name).is_absolute():
            raise CorpusError(f"{where}: an absolute path")
        if ".." in parts:
            raise CorpusError(f"{where}: a '..' path leaves the folder")
        if member.issym() or member.islnk():
            raise CorpusError(f"{where}: a link (to {member.linkname!r})")
        if not (member.isfile() or member.isdir()):
            raise CorpusError(f"{where}: not a plain file or folder")
        if member.size > MAX_MEMBER_BYTES:
            raise CorpusError(f"{where}: {member.size:,} bytes, over {MAX_MEMBER_BYTES:,}")
        total += member.size
        if total > MAX_ARCHIVE_BYTES:
            raise CorpusError(f"{archive}: over {MAX_ARCHIVE_BYTES:,} bytes unpacked")


def _unpack(archive: Path, cache_dir: Path) -> Path:
    target = cache_dir / f"pages-{hashlib.sha256(str(archive.resolve()).encode()).hexdigest()[:12]}"
    stamp = target / ".unpacked"
    signature = f"{archive.stat().st_size}:{archive.stat().st_mtime_ns}"
    if not (stamp.is_file() and stamp.read_text() == signature):
        try:
            with tarfile.open(archive) as tar:
                members = tar.getmembers()
                check_members(archive, members)
                target.mkdir(parents=True, exist_ok=True)
                tar.extractall(target, members=members, filter="data")
        except tarfile.TarError as exc:
            raise CorpusError(f"{archive}: not a readable tar archive: {exc}") from None
        stamp.write_text(signature)
    folders = {p.parent for suffix in PAGE_SUFFIXES for p in target.rglob(f"*{suffix}")}
    if len(folders) != 1:
        raise CorpusError(f"{archive}: expected the pages in one folder, found {len(folders)}")
    return folders.pop()


def load_reference_corpus(path: str | Path, *, cache_dir: Path | None = None,
                          boundary: str = MLPERF_BOUNDARY, length: int = MLPERF_PASSAGE_LENGTH,
                          overlap: int = MLPERF_PASSAGE_OVERLAP, processes: int | None = None,
                          progress: ProgressFn | None = None) -> ReferenceCorpus:
    """The corpus at ``path`` (folder, ``.tar.gz`` or ``passages.json``), extracted and cut; with
    ``cache_dir`` the passages are kept there and reused while no page changes."""
    source = Path(path)
    if source.is_file() and source.suffix == ".json":
        try:
            payload = json.loads(source.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise CorpusError(f"{source}: invalid JSON: {exc}") from exc
        docs = documents_from_passages(payload, str(source))
        return ReferenceCorpus(docs, {"source": "passages.json", "pages": len(docs),
                                      "passages": sum(len(d.passages) for d in docs),
                                      "unmapped_pages": sum(1 for d in docs
                                                            if not reference_url(d.doc_id))})
    if source.is_file() and source.name.endswith((".tar.gz", ".tgz", ".tar")):
        if cache_dir is None:
            raise CorpusError(f"{source}: an archive needs a cache folder to unpack into")
        source = _unpack(source, cache_dir)
    if not source.is_dir():
        raise CorpusError(f"{source}: not a folder of HTML pages, a .tar.gz of one, "
                          "or a passages.json")
    files = _page_files(source)
    if not files:
        raise CorpusError(f"{source}: no *.html pages")
    mapping = load_url_mapping(source)
    settings = {"version": EXTRACTION_VERSION, "parser": parser_name(), "boundary": boundary,
                "length": length, "overlap": overlap}
    key = _corpus_key(files, mapping, settings)
    cached = cache_dir / f"passages-{key[:16]}.json" if cache_dir is not None else None
    names = [base_filename(p.name) for p in files]
    stats: dict[str, Any] = {"source": str(source), "pages": len(files), **settings,
                             "url_mapping_entries": len(mapping),
                             "unmapped_pages": sum(1 for n in names if not mapping.get(n))}
    if cached is not None and cached.is_file():
        docs = documents_from_passages(json.loads(cached.read_text(encoding="utf-8")),
                                       str(cached))
        return ReferenceCorpus(docs, {**stats, "passages": sum(len(d.passages) for d in docs),
                                      "from_cache": True})
    started = time.perf_counter()
    jobs = [(str(p), boundary, length, overlap) for p in files]
    workers = max(1, min(processes or os.cpu_count() or 1, len(files)))
    results: list[list[tuple[int, str]]] = []
    if progress is not None:
        progress(0, len(files))
    if workers == 1 or len(files) < 32:
        mapper: Any = map(_extract, jobs)
    else:
        from multiprocessing import get_context

        pool = get_context("spawn").Pool(workers)
        mapper = pool.imap(_extract, jobs, chunksize=8)
    try:
        for windows in mapper:
            results.append(windows)
            if progress is not None:
                progress(len(results), len(files))
    finally:
        if workers > 1 and len(files) >= 32:
            pool.close()
            pool.join()
    elapsed = time.perf_counter() - started
    pages = [(name, mapping.get(name, ""), windows) for name, windows in zip(names, results,
                                                                            strict=True)]
    payload = passages_payload(pages, str(source.resolve()))
    docs = documents_from_passages(payload, str(source))
    total = len(payload["passages"])
    stats |= {"passages": total, "pages_with_text": sum(1 for *_, w in pages if w),
              "extract_s": elapsed,
              "pages_per_s": len(files) / elapsed if elapsed > 0 else 0.0,
              "passages_per_s": total / elapsed if elapsed > 0 else 0.0, "from_cache": False}
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        scratch = cached.with_suffix(".tmp")
        scratch.write_text(json.dumps(payload, ensure_ascii=False), encoding="utf-8")
        scratch.replace(cached)
    return ReferenceCorpus(docs, stats)
