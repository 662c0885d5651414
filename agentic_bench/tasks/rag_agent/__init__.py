"""The ``rag-agent`` benchmark: a tool-calling agent whose tools are the RAG pipeline.

Each HotpotQA question is one session: the model gets ``search(query)`` (our embedder, FAISS
and reranker over the index rag-e2e builds) and ``open(page_id)``, calls them through OpenAI
tool calls, and answers; every LLM call and every retrieval stage inside a tool call (embed,
search, rerank, open) is a step record, and the answer is scored on the gold one (exact match,
token F1, the judge when one is given). See docs/rag-agent.md.
"""

# The task registers through the agentic_bench.plugins entry point (task.py); nothing is
# re-exported here, so importing the package stays free of the RAG stack.
__all__: list[str] = []
