"""agentic-bench: benchmark agent serving stacks on multi-turn agent and RAG workloads.

The package face holds only ``__version__`` (the harness's version, written into every run);
the public API for plugins is :mod:`agentic_bench.api`, and the command line is
:mod:`agentic_bench.cli`. docs/architecture.md maps the packages.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]  # the public API is agentic_bench.api (plugins import it)
