"""The ``rag-e2e`` benchmark: MLPerf-style End-to-End RAG over HotpotQA (or FRAMES).

Each question is one session: the rag_pipeline multi-hop (or single-shot) graph runs in the
harness, every stage (embed, retrieve, rerank, grade, decompose, sufficiency, generate) becomes
a step record, and the answer and retrieval are scored per question. See docs/rag-e2e.md.
"""
