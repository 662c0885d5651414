"""The ``rag-e2e`` benchmark: MLPerf-style End-to-End RAG over HotpotQA (or FRAMES).

Each question is one session: the rag_pipeline multi-hop (or single-shot) graph runs in the
harness, every stage (embed, retrieve, rerank, grade, decompose, sufficiency, generate) becomes
a step record, and the answer and retrieval are scored per question. See docs/rag-e2e.md.
"""

# The task registers through the agentic_bench.plugins entry point (task.py); nothing is
# re-exported here, so importing the package stays free of the RAG stack.
__all__: list[str] = []
