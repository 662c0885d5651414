"""``--perf-cache FILE``: MLPerf E2E-RAG's cached-response performance mode, keyed as the
reference keys it, and ``llm_logs.json``, the file a ``--flow mlperf`` run leaves to feed it.

The reference (mlcommons/inference b66003e1 ``e2e-rag/``) runs its performance test on the
replies of an earlier run: ``reference_mlperf_perf.sh`` 38 and 88-92 pass
``--perf-test-mode logs_result.json``; ``perf_test_cache.py`` 62-90 indexes that file by
(sample, component, hop) and ``multi_shot_retrieval.py`` (msr) 321-395 still sends every call
and times it, then hands the pipeline the cached reply when there is one, the live one when
there is none (a warning only, 330-332). So rounds, queries and kept pages follow the
recording; the calls are the system's own.

The index (:meth:`PerfCache.from_log`, a transcription of ``perf_test_cache.py`` 56-57 and
70-88): the file must hold ``queries``; a query without a true ``query_id`` is skipped; a call
without ``component`` or ``hop_count`` is skipped; the key is (``str(query_id)``, component,
hop_count) and the value ``output.response`` when it is true (an empty one is skipped); a later
call with the same key overwrites an earlier one.

What the reference's own logger writes does not match what this reads: ``llm_logger.py``
101-106 stores the reply under ``output.actual_output`` (and the replayed one under
``output.cached_output``), never ``output.response``, so a file written by the reference's
accuracy run indexes to nothing and its performance run goes live on every call.
:meth:`PerfCache.from_log` counts such calls (``logger_only_calls``) and the workload refuses a
file that yields no reply. Our ``llm_logs.json`` (:func:`llm_logs`) writes both fields: the
reference's reader and ours find the replies.

The sample: the reference keys a query by its LoadGen sample index, the row of
frames_dataset.tsv (``reference_SUT.py`` 216-231), as its accuracy run does (msr 1745-1751).
A question read from a ``.tsv`` has that row number as its id (``rag_pipeline/frames_tsv.py``),
so the keys agree; other question sets key by their own ids.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# our stage -> the reference's component name (msr 521, 637, 769, 862)
COMPONENTS: Mapping[str, str] = {
    "decompose": "generate_search_queries",
    "grade": "evaluate_document_relevance",
    "sufficiency": "check_sufficiency",
    "generate": "answer_generator",
}
LOG_FILE = "llm_logs.json"
CALLS_FIELD = "reference_llm_calls"  # a sample record's calls, in the reference's shape
COUNTS_FIELD = "perf_cache"  # a sample record's hits and misses under --perf-cache


class PerfCacheError(ValueError):
    """A ``--perf-cache`` file that is not an LLM log of the reference's shape."""


@dataclass(frozen=True)
class PerfCache:
    """The replies of a reference-shaped LLM log, by (sample, component, hop)."""

    path: str
    replies: dict[tuple[str, Any, Any], str]
    logger_only_calls: int = 0  # calls holding llm_logger.py's actual_output, no response

    @classmethod
    def load(cls, path: Path | str) -> PerfCache:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise PerfCacheError(f"--perf-cache {path}: cannot read it as JSON ({exc})") from exc
        return cls.from_log(data, str(path))

    @classmethod
    def from_log(cls, data: Any, path: str = "") -> PerfCache:
        """The index of ``perf_test_cache.py`` 56-57, 70-88 (see the module's text)."""
        if not isinstance(data, dict) or "queries" not in data:
            raise PerfCacheError(f"--perf-cache {path}: no 'queries' field (expected an LLM "
                                 "log: {'queries': [{'query_id', 'llm_calls': [{'component', "
                                 "'hop_count', 'output': {'response'}}]}]})")
        replies: dict[tuple[str, Any, Any], str] = {}
        logger_only = 0
        for query in data["queries"]:
            query_id = query.get("query_id")
            if not query_id:
                continue
            for call in query.get("llm_calls", []):
                component, hop = call.get("component"), call.get("hop_count")
                if component is None or hop is None:
                    continue
                output = call.get("output", {})
                response = output.get("response")
                if response and isinstance(response, str):
                    replies[(str(query_id), component, hop)] = response
                elif response is None and output.get("actual_output"):
                    logger_only += 1
        return cls(path, replies, logger_only)

    def reply(self, sample: str, component: str, hop: int) -> str | None:
        return self.replies.get((str(sample), component, hop))

    def stats(self) -> dict[str, Any]:
        return {"file": self.path, "replies": len(self.replies),
                "samples": len({key[0] for key in self.replies}),
                "logger_only_calls": self.logger_only_calls}

    def for_question(self, sample: str) -> QuestionCalls:
        return QuestionCalls(sample, self)


@dataclass
class QuestionCalls:
    """One question's LLM calls under the reference's keys: the cached reply each call
    continues with (``--perf-cache``), the hits and misses, and the calls as the reference's
    logger lists them."""

    sample: str
    cache: PerfCache | None = None
    hits: int = 0
    misses: int = 0
    calls: list[dict[str, Any]] = field(default_factory=list)

    def cached(self, stage: str, hop: int | None) -> str | None:
        """The cached reply for this call, or ``None`` (then the live reply goes on, msr
        330-332). Only calls of the reference loop carry a hop (msr 323)."""
        component = COMPONENTS.get(stage)
        if self.cache is None or component is None or hop is None:
            return None
        reply = self.cache.reply(self.sample, component, hop)
        if reply:
            self.hits += 1
            return reply
        self.misses += 1
        return None

    def log(self, stage: str, hop: int | None, live: str, cached: str | None) -> None:
        """One answered call: ``response`` is the text the loop went on with (what
        ``perf_test_cache.py`` 83-84 reads), ``actual_output`` / ``cached_output`` as
        ``llm_logger.py`` 101-103 names the live and the replayed reply."""
        component = COMPONENTS.get(stage)
        if component is None or hop is None:
            return
        self.calls.append({"component": component, "hop_count": hop,
                           "output": {"response": cached or live, "actual_output": live,
                                      "cached_output": cached}})

    def counts(self) -> dict[str, int]:
        return {"hits": self.hits, "misses": self.misses}


def _samples(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in records if r.get("type") == "sample" and r.get("task") == "rag-e2e"]


def cache_totals(records: Iterable[dict[str, Any]], cache: PerfCache) -> dict[str, Any]:
    """The run's ``perf_cache`` block: the file's index and the calls that hit or missed it."""
    counts = [s[COUNTS_FIELD] for s in _samples(records) if s.get(COUNTS_FIELD)]
    return {**cache.stats(), "hits": sum(c["hits"] for c in counts),
            "misses": sum(c["misses"] for c in counts)}


def llm_logs(records: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """The run's calls as the reference's LLM log (``llm_logger.py`` 149-160: metadata,
    ``queries`` with ``query_id`` and ``llm_calls``), one query per answered or failed
    question in the order they ended; ``None`` when no sample carries calls (not the mlperf
    flow)."""
    samples = [s for s in _samples(records) if CALLS_FIELD in s]
    if not samples:
        return None
    queries = [{"query_id": str(s["question_id"]), "llm_calls": s[CALLS_FIELD]}
               for s in samples]
    return {"experiment_metadata": {"writer": "agentic-bench run rag-e2e --flow mlperf"},
            "queries": queries, "experiment_summary": {}}


def write_artifacts(out_dir: Path, summary: dict[str, Any],
                    records: list[dict[str, Any]]) -> list[Path]:
    """The judge's files (:func:`.loadgen_files.write_artifacts`) and ``llm_logs.json``."""
    from agentic_bench.tasks.rag_e2e.loadgen_files import write_artifacts as judge_artifacts

    written = judge_artifacts(out_dir, summary, records)
    log = llm_logs(records)
    if log is not None:
        path = Path(out_dir) / LOG_FILE
        path.write_text(json.dumps(log, ensure_ascii=False, indent=1), encoding="utf-8")
        written.append(path)
    return written
