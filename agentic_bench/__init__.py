"""agentic-bench: benchmark agent serving stacks on multi-turn agent and RAG workloads."""

__version__ = "0.1.0"
