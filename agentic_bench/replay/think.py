"""Think-time policy (defined in :mod:`agentic_bench.run_options`, re-exported here)."""

from agentic_bench.run_options import ThinkPolicy

__all__ = ["ThinkPolicy"]
