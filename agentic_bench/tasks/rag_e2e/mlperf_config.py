"""``--mlperf``: MLPerf v6.1 E2E-RAG's configuration at once, and every point a run departs from it.

Reference (mlcommons/inference b66003e1, ``e2e-rag/``): ``reference_mlperf_perf.sh`` 24-63 and
``user.conf`` (824 questions, Offline, min query count 824, 10 queries in flight, 5 iterations,
3 sub-queries, top-10 retrieval, e5-base-v2, ColBERTv2; decomposition and sufficiency on
gpt-oss-120b, grading on gpt-oss-20b, the judge Llama-3.1-8B-Instruct); ``multi_shot_retrieval.py``
273-309 / 479-518 / 600-634 / 724-766 / 812-859 (every call: temperature 1.0, top_p 1.0,
top_k -1, reasoning_effort medium; max_tokens 4096 for grading, 10240 otherwise);
``scripts/run_ingestion.sh`` (768/32 passages, HNSW M=32, efConstruction 200, efSearch 100);
the 33.95 gate and "Tasks/s" (``tools/submission/submission_checker/constants.py`` 156, 1995).

:func:`preset_defaults` is what ``--mlperf`` sets where the command line is silent (an option
given explicitly wins and, when it differs, is reported as a departure). :func:`mlperf_block` goes
into the summary: the configuration's name, each departure in words, and notes that do not
change the configuration. The texts below judge the options in :data:`JUDGED`; every other
option whose effective value differs from the preset's (or the default's) is a departure by the
rule of :mod:`agentic_bench.tasks.mlperf_departures`, unless :data:`FREE` says why it cannot
change the work. :func:`db_departures` does the same for e2e-rag-db. With ``--mlperf`` a
``mlperf_configuration`` constraint row fails while any departure remains, so such a run reads
INVALID with its reasons.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from agentic_bench.tasks.mlperf_departures import COMMON_FREE, rule_departures

MLPERF_NAME = "MLPerf v6.1 E2E-RAG"
REFERENCE = "mlcommons/inference e2e-rag/ (reference_mlperf_perf.sh, user.conf)"
QUESTIONS = 824
PAGES = 2515
PASSAGES = 107_484
MAX_ROUNDS, MAX_SUBQUERIES, RETRIEVE_K, RERANK_K = 5, 3, 10, 3
OFFLINE_IN_FLIGHT = 10  # user.conf max_async_queries, reference_mlperf_perf.sh MAX_WORKERS
MODELS = {"main": "gpt-oss-120b", "grade": "gpt-oss-20b", "judge": "llama-3.1-8b-instruct"}
EMBEDDER, RERANKER = "e5-base-v2", "colbertv2"
RESULT_UNIT = "Tasks/s"
# call_chat_completions: 5 attempts (max_retries, multi_shot_retrieval.py 284, 334), each with
# a 120 s timeout (337-341); what is retried and after how long: replay/timed_call.py
RETRIES, REQUEST_TIMEOUT_S = 4, 120.0


def loadgen_available() -> bool:
    return importlib.util.find_spec("mlperf_loadgen") is not None


def preset_defaults(args: Any) -> dict[str, Any]:
    """The option defaults ``--mlperf`` sets (nothing without it)."""
    if not getattr(args, "mlperf", False):
        return {}
    out: dict[str, Any] = {
        "sampling": "mlperf", "accuracy_metric": "judge", "max_rounds": MAX_ROUNDS,
        "max_subqueries": MAX_SUBQUERIES, "retrieve_k": RETRIEVE_K, "kind": "hnsw",
        "flow": "mlperf", "scenario": "offline", "concurrency": OFFLINE_IN_FLIGHT,
        "embed_prefixes": "none", "rerank_depth": "mlperf",
        "retries": RETRIES, "retry_on": "mlperf", "request_timeout": REQUEST_TIMEOUT_S,
        # the reference asks every question whatever fails (LoadGen, which issues an official
        # run, never stops early either: run/benchmark.py)
        "stop_after_failures": 0,
    }
    if loadgen_available():
        out["loadgen"] = "mlperf"
    return out


def _model(name: str | None, role: str) -> bool:
    return bool(name) and MODELS[role] in str(name).lower()


def _data(args: Any, questions: int, corpus: dict[str, Any]) -> list[str]:
    out: list[str] = []
    if not (str(args.frames or "").endswith(".tsv") and corpus):
        out.append("questions and corpus not MLPerf's (MLPerf: FRAMES frames_dataset.tsv and its "
                   f"{PAGES:,} Wikipedia pages; --frames FILE.tsv --corpus doc_html/)")
    if questions != QUESTIONS:
        out.append(f"{questions} questions (MLPerf: all {QUESTIONS})")
    if corpus and corpus.get("pages") != PAGES:
        out.append(f"a corpus of {corpus.get('pages')} pages (MLPerf: {PAGES:,})")
    if corpus and corpus.get("unmapped_pages"):
        out.append(unmapped_pages_text(int(corpus["unmapped_pages"]), corpus.get("pages")))
    return out


def unmapped_pages_text(unmapped: int, pages: Any) -> str:
    """The departure of a ``url_mapping.json`` that does not cover the corpus."""
    return (f"url_mapping.json names no URL for {unmapped} of {pages} pages: never retrieved, "
            "as the reference drops every result without a URL (multi_shot_retrieval.py "
            "1549-1556, read_docs.py 425-427; MLPerf: the corpus's own url_mapping.json)")


def _pipeline(args: Any) -> list[str]:
    out: list[str] = []
    if EMBEDDER not in str(args.embedder).lower():
        out.append(f"embedder {args.embedder} (MLPerf: {EMBEDDER})")
    elif getattr(args, "embed_prefixes", "auto") != "none":
        out.append("e5 'query: ' / 'passage: ' prefixes (MLPerf embeds the raw text; "
                   "--embed-prefixes none)")
    colbert = RERANKER in str(args.reranker_model or "").lower().replace("-", "").replace("_", "")
    if args.reranker != "late-interaction" or not colbert:
        named = f"{args.reranker} {args.reranker_model}" if args.reranker_model else args.reranker
        out.append(f"reranker {named} (MLPerf: ColBERTv2 MaxSim in-process, reranker_worker.py; "
                   "--reranker late-interaction --reranker-model DIR/colbertv2.0)")
    backend = getattr(args, "embed_backend", "torch")
    # the reference loads its embedder with model_kwargs {device, local_files_only} only: the
    # model's own fp32 weights (mlcommons/inference b66003e1 e2e-rag/retrieve/vectordb.py
    # 198-207)
    if backend != "torch":
        out.append(f"embedding backend {backend} (MLPerf: fp32 weights; --embed-backend torch)")
    if args.kind != "hnsw":
        out.append(f"index {args.kind} (MLPerf: FAISS HNSW M=32, efConstruction 200, "
                   "efSearch 100)")
    if args.bm25:
        out.append("BM25 fused with dense retrieval (MLPerf: dense only)")
    if args.flow != "mlperf":
        out.append(f"flow {args.flow}: agentic-bench's own graph, a failed call abandoning its "
                   "question (MLPerf: the reference's loop, multi_shot_retrieval.py 1181-1612; "
                   "--flow mlperf)")
    for flag, value, want in (("max-rounds", args.max_rounds, MAX_ROUNDS),
                              ("max-subqueries", args.max_subqueries, MAX_SUBQUERIES),
                              ("retrieve-k", args.retrieve_k, RETRIEVE_K)):
        if value != want:
            out.append(f"--{flag} {value} (MLPerf: {want})")
    depth = "mlperf" if args.flow == "mlperf" else getattr(args, "rerank_depth", "fixed")
    if depth != "mlperf" or args.rerank_k != RERANK_K:
        out.append(f"rerank depth {depth}, --rerank-k "
                   f"{args.rerank_k} (MLPerf: max({RERANK_K}, 10 // the round's queries) per "
                   "query, multi_shot_retrieval.py 1493; --rerank-depth mlperf)")
    if args.no_grade:
        out.append("no document grading (MLPerf: every retrieved page graded)")
    if getattr(args, "sampling", "ours") != "mlperf":
        out.append("agentic-bench's sampling (MLPerf: temperature 1.0, top_p 1.0, top_k -1, "
                   "reasoning_effort medium, max_tokens 4096 grading / 10240 otherwise)")
    retries = (getattr(args, "retries", 0), getattr(args, "retry_on", "any"),
               getattr(args, "request_timeout", None))
    if retries != (RETRIES, "mlperf", REQUEST_TIMEOUT_S):
        out.append(f"failed calls: --retries {retries[0]} --retry-on {retries[1]} "
                   f"--request-timeout {retries[2]:g} (MLPerf: 5 attempts of 120 s, retrying "
                   "timeouts and HTTP 429/502/503/504 after Retry-After or 1, 2, 4, 8 s; "
                   f"multi_shot_retrieval.py 334-465; --retries {RETRIES} --retry-on mlperf "
                   f"--request-timeout {REQUEST_TIMEOUT_S:g})")
    return out


def _roles(args: Any) -> list[str]:
    out: list[str] = []
    if not _model(getattr(args, "model", None), "main"):
        name = getattr(args, "model", None) or "the endpoint's default"
        out.append(f"main model {name} (MLPerf: gpt-oss-120b for decomposition, sufficiency "
                   "and answer)")
    if not args.no_grade and not args.grade_endpoint:
        out.append("grading on the main endpoint (MLPerf: gpt-oss-20b on its own server; "
                   "--grade-endpoint, --grade-model)")
    elif not args.no_grade and not _model(args.grade_model, "grade"):
        out.append(f"grading model {args.grade_model or 'the default'} (MLPerf: gpt-oss-20b)")
    if not args.judge_endpoint:
        out.append("no judge (MLPerf: Llama-3.1-8B-Instruct judges every answer; "
                   "--judge-endpoint, --judge-model)")
    elif not _model(args.judge_model, "judge"):
        out.append(f"judge model {args.judge_model or 'the default'} "
                   "(MLPerf: Llama-3.1-8B-Instruct)")
    if args.accuracy_metric != "judge":
        out.append(f"headline {args.accuracy_metric} (MLPerf: the judge's accuracy, gate 33.95)")
    if args.accuracy_target is not None:
        out.append(f"accuracy target {args.accuracy_target} (MLPerf: 33.95, absolute %)")
    return out


def _load(args: Any) -> list[str]:
    out: list[str] = []
    if getattr(args, "loadgen", None) != "mlperf":
        out.append("issued by agentic-bench's scheduler (MLPerf: LoadGen"
                   + ("" if loadgen_available()
                      else "; pip install 'agentic-serving-bench[loadgen]'")
                   + ")")
    else:
        from agentic_bench.tasks.rag_e2e.loadgen_files import CONF_MODEL, USER_CONF

        model, conf = getattr(args, "loadgen_model", None), getattr(args, "loadgen_conf", None)
        if model != CONF_MODEL:
            out.append(f"LoadGen model key {model or 'the default'} (MLPerf: {CONF_MODEL})")
        if conf is None or Path(conf).resolve() != USER_CONF:
            out.append(f"LoadGen settings {conf or 'none'} (MLPerf: e2e-rag/user.conf, "
                       "bundled as mlperf_user.conf, over LoadGen's mlperf.conf and its seeds)")
        if getattr(args, "loadgen_layout", "flat") != "submission":
            out.append("LoadGen logs in the run folder itself (MLPerf: performance/run_1/, "
                       "accuracy/, TEST09/ as the submission checker reads them; "
                       "--loadgen-layout submission)")
    if getattr(args, "scenario", None) != "offline":
        out.append(f"scenario {args.scenario} (MLPerf: Offline)")
    elif getattr(args, "concurrency", None) != OFFLINE_IN_FLIGHT:
        out.append(f"{args.concurrency} questions in flight (MLPerf: {OFFLINE_IN_FLIGHT})")
    return out


# The reference's performance run continues with the accuracy run's replies (--perf-cache).
LIVE_PERFORMANCE = ("performance run on live replies, where the reference continues with the "
                    "accuracy run's cached replies, reference_mlperf_perf.sh 38, 89-92 "
                    "(--perf-cache FILE: an accuracy run's llm_logs.json)")
CACHED_ACCURACY = ("accuracy scored on cached replies (MLPerf: the accuracy run answers live, "
                   "never with --perf-test-mode, ACCURACY_VS_PERFORMANCE_TESTS.md 5-11)")


def _replies(args: Any) -> list[str]:
    """Whose replies the loop goes on with: the performance run's cached ones, the scored
    run's live ones (a TEST09 run may take either, run_compliance_test09.sh 76-77)."""
    loadgen, mode = getattr(args, "loadgen", None), getattr(args, "loadgen_mode", None)
    cached = bool(getattr(args, "perf_cache", None))
    if loadgen == "mlperf" and mode == "performance" and not cached:
        return [LIVE_PERFORMANCE]
    if cached and (loadgen != "mlperf" or mode == "accuracy"):
        return [CACHED_ACCURACY]
    return []


# Named in every run that does not read the reference's own prompts (--reference-dir).
PROMPTS = ("prompts in agentic-bench's own wording of each step of the reference flow "
           "(MLPerf: multi_shot_retrieval.py's and accuracy_eval.py's text; --reference-dir "
           "DIR reads them from a checkout of mlcommons/inference)")


# The options the texts above judge (the rule leaves them to those texts, which cite the
# reference and may accept several values: any embedder path naming e5-base-v2, ...).
JUDGED = frozenset({
    "questions", "frames",  # _data (the count of questions asked)
    "embedder", "embed_prefixes", "embed_backend", "kind", "bm25", "flow", "max_rounds",
    "max_subqueries", "retrieve_k", "rerank_k", "no_grade", "sampling", "reranker",
    "reranker_model", "retries", "retry_on", "request_timeout",  # _pipeline
    "model", "grade_model", "judge_model", "accuracy_metric", "accuracy_target",  # _roles
    "scenario", "concurrency", "loadgen", "loadgen_model", "loadgen_conf",
    "loadgen_layout",  # _load
})
# The options that cannot change the work of a run on MLPerf's configuration, and why.
FREE: dict[str, str] = {
    **COMMON_FREE,
    "mlperf": "the preset switch itself: what it sets is judged option by option",
    "grade_endpoint": "where the grading model is served (unset: a departure; the model is "
                      "judged by --grade-model)",
    "judge_endpoint": "where the judge is served (unset: a departure; the model is judged by "
                      "--judge-model)",
    "corpus": "where the corpus is read from; what it holds is judged (its page count)",
    "reference_dir": "where the reference checkout is read from (unset: our prompt wording, a "
                     "departure); the summary names its prompt files with their SHA-256",
    "cache_dir": "where the index cache is kept: a cached index is keyed by the corpus, the "
                 "embedder and the index parameters",
    "record_trace": "a copy of every call's request and reply written beside the run",
    "replay_responses": "agentic-bench's replay matched on each exact request, named in the "
                        "notes; it is not the reference's keyed mode, --perf-cache, whose "
                        "absence from a performance run is a departure",
    "perf_cache": "which accuracy run's replies feed the loop (any run's llm_logs.json); its "
                  "absence from a LoadGen performance run, or its use in a scored one, is a "
                  "departure (_replies)",
    "embedder_api_key_env": "the name of a variable holding an API key: credentials only",
    "reranker_api_key_env": "the name of a variable holding an API key: credentials only",
    "grade_api_key_env": "the name of a variable holding an API key: credentials only",
    "judge_api_key_env": "the name of a variable holding an API key: credentials only",
    "loadgen_mode": "which run of a submission this is (performance, accuracy, TEST09); the "
                    "preset follows it (TEST09's audit.config)",
    "rerank_depth": "the reference loop (--flow mlperf) keeps the reference's depth whatever "
                    "it says; under another flow (a departure) the rerank text judges it",
    "reranker_url": "read only by --reranker remote, which the reranker text names",
    "device": "where the in-process embedder and reranker run: the system under test's "
              "hardware, which the submitter picks (the reference's --device, auto by default "
              "as ours, utils.py 452-479); the summary's device block records it",
    "index_from": "which database the questions search: an e2e-rag-db build's, as the "
                  "reference's README runs QnA, or one built here by read_docs.py's rules "
                  "(named in the notes); its embedder and pages are judged as any index's",
}
NOTES = {
    "max_tokens": "it rewrites every call's, where MLPerf sends 4096 for grading and 10240 "
                  "otherwise",
    "temperature": "it rewrites every call's, where MLPerf sends 1.0",
    "embedder_url": "an embedder behind a server, where MLPerf loads e5-base-v2 in-process "
                    "with its fp32 weights, retrieve/vectordb.py 198-207",
    "sessions": "under LoadGen a query-count override of user.conf's 824",
    "duration": "under LoadGen a duration override of user.conf's",
    "stop_after_failures": "the reference asks every question whatever fails",
}


class _AsMlperf:
    """``args`` as ``--mlperf`` reads it (the preset functions read only that switch)."""

    mlperf = True

    def __init__(self, args: Any) -> None:
        self._args = args

    def __getattr__(self, name: str) -> Any:
        return getattr(self._args, name)


def mlperf_values(args: Any) -> dict[str, Any]:
    """What the ``--mlperf`` preset sets for these options, given or not (LoadGen's part
    included: it follows ``--loadgen`` and ``--loadgen-mode``)."""
    from agentic_bench.tasks.rag_e2e.loadgen_files import loadgen_preset

    view = _AsMlperf(args)
    preset = preset_defaults(view)
    return {**preset, **loadgen_preset(view, preset)}


def _rule(args: Any) -> list[str]:
    from agentic_bench.options.common import run_options_model
    from agentic_bench.options.schema import OptionsModel
    from agentic_bench.tasks.rag_e2e.options import RagE2eOptions

    model = type(args) if isinstance(args, OptionsModel) else run_options_model(RagE2eOptions)
    return rule_departures(args, model, mlperf_values(args), judged=JUDGED, free=FREE,
                           notes=NOTES)


def departures(args: Any, questions: int,
               corpus: dict[str, Any] | None = None) -> list[str]:
    """Each point where this run departs from MLPerf E2E-RAG's configuration, in words: the
    texts above, then every other option off the ``--mlperf`` preset (the rule of
    :mod:`agentic_bench.tasks.mlperf_departures`)."""
    corpus = corpus or {}
    prompts = [] if getattr(args, "reference_dir", None) else [PROMPTS]
    return [*_data(args, questions, corpus), *_pipeline(args), *prompts, *_roles(args),
            *_load(args), *_replies(args), *_rule(args)]


def notes(args: Any, corpus: dict[str, Any] | None = None) -> list[str]:
    out: list[str] = []
    if corpus and corpus.get("passages") not in (None, PASSAGES) and corpus.get("pages") == PAGES:
        out.append(f"{corpus['passages']:,} passages (the reference's ingestion reports "
                   f"{PASSAGES:,}; parser {corpus.get('parser')})")
    if getattr(args, "replay_responses", None):
        out.append("LLM replies fed from a recording matched on the exact request "
                   "(agentic-bench's; the reference keys by sample, component and hop: "
                   "--perf-cache)")
    if getattr(args, "perf_cache", None):
        out.append("every call sent and timed, the loop going on with the cached reply of its "
                   "sample, component and hop (the reference's --perf-test-mode, "
                   "perf_test_cache.py, multi_shot_retrieval.py 321-395); hits and misses in "
                   "the accuracy block's perf_cache")
    if getattr(args, "flow", None) == "mlperf":
        out.extend(LOOP_NOTES)
    if getattr(args, "corpus", None) and not getattr(args, "index_from", None):
        from agentic_bench.tasks.rag_e2e.db_index import INDEX_FROM_NOTE

        out.append(INDEX_FROM_NOTE)
    return out


# What the mlperf loop does otherwise than multi_shot_retrieval.py by design, without changing
# a decision of the loop (docs/rag-e2e.md "The reference loop").
LOOP_NOTES = (
    "requests streamed to time TTFT/TPOT (the reference posts without stream and reads the "
    "whole reply, multi_shot_retrieval.py 337-341: the same tokens)",
    "a failed query call's feedback line carries agentic-bench's error text (the reference's: "
    "the requests exception's, 914)",
    "a malformed reply the reference loses the question on goes on here: a `queries` that is "
    "not a list becomes the question (the reference searches a string letter by letter and "
    "fails on a number, 1293-1295, 1416, 1474-1503), a query that is not text is searched as "
    "its JSON (the reference's lookup fails), a `relevance` object of the right length keeps "
    "nothing (the reference's relevance[i] fails, 1331) and a `feedback` that is not text is "
    "dropped (the reference's .strip() fails, 1427-1429); where the reference fails, its "
    "question ends with the answer Error (reference_SUT.py 294-307)",
)


def mlperf_block(args: Any, questions: int,
                 corpus: dict[str, Any] | None = None) -> dict[str, Any]:
    """``{"configuration", "reference", "departures", "notes", "result_unit"}``."""
    gone = departures(args, questions, corpus)
    return {"configuration": MLPERF_NAME if not gone else f"not {MLPERF_NAME}",
            "reference": REFERENCE, "requested": bool(getattr(args, "mlperf", False)),
            "departures": gone, "notes": notes(args, corpus), "result_unit": RESULT_UNIT}


def configuration_gate(block: dict[str, Any]) -> dict[str, Any]:
    """The ``--mlperf`` constraint row: no departure."""
    count = len(block.get("departures") or [])
    return {"name": "mlperf_configuration", "value": count, "limit": 0, "op": "==",
            "ok": count == 0,
            "rule": f"--mlperf: {MLPERF_NAME}'s configuration; each departure is listed under "
                    "Config"}


# e2e-rag-db (``rag build-index --mlperf-db --corpus DIR --loadgen mlperf``): the reference's
# ingestion issued by LoadGen. The preset is the two switches that run needs; the other defaults
# are the reference's (model key e2e-rag-db, 4 workers as its MAX_WORKERS, fp32 torch, HNSW).
DB_PRESET: dict[str, Any] = {"mlperf_db": True, "loadgen": "mlperf"}
DB_JUDGED = frozenset({"embedder", "limit"})  # db_run.departures: the embedder, the page count
DB_FREE: dict[str, str] = {
    "corpus": "where the corpus is read from; what it holds is judged (its page count)",
    "out": "the run folder", "quiet": "no progress bar", "json_report": "a copy of the report",
    "cache_dir": "where the embedder's converted weights and calibration are cached",
    "embedder_api_key_env": "the name of a variable holding an API key: credentials only",
    "loadgen_mode": "which run of a submission this is (performance or accuracy)",
    "embed_prefixes": "the LoadGen build always embeds the raw text, as the reference does",
    "frames": "read only by --write-manifest, which a LoadGen build refuses",
    "retrieval_threshold": "read only by --verify-manifest, which a LoadGen build refuses",
    "device": "where the embedder runs: the system under test's hardware, which the submitter "
              "picks (the reference's --device, auto by default as ours, utils.py 452-479); "
              "the summary's db.device records it",
}
DB_NOTES = {
    "embed_backend": "MLPerf loads e5-base-v2 with its fp32 weights, retrieve/vectordb.py "
                     "198-207",
    "embedder_url": "an embedder behind a server, where MLPerf's is in-process, fp32",
    "loadgen_conf": "unset: the bundled values of the reference's user.conf",
    "db_workers": "the reference's MAX_WORKERS",
}


def db_departures(options: Any, embedder_name: str, pages: int) -> list[str]:
    """Where an e2e-rag-db run departs from the reference: the embedder's name and the page
    count (:func:`agentic_bench.tasks.rag_e2e.db_run.departures`), then every other option
    of ``rag build-index`` off :data:`DB_PRESET` (not free)."""
    from agentic_bench.tasks.rag_e2e.db_run import departures as named
    from agentic_bench.tasks.rag_e2e.options import BuildIndexOptions

    return [*named(embedder_name, pages),
            *rule_departures(options, BuildIndexOptions, DB_PRESET, judged=DB_JUDGED,
                             free=DB_FREE, notes=DB_NOTES)]
