"""agentic-bench: benchmark agent serving stacks on multi-turn agent and RAG workloads."""

__version__ = "0.1.0"

__all__ = ["__version__"]  # the public API is agentic_bench.api (plugins import it)
