"""Think-time policy (defined in :mod:`agentic_bench.options.replay`, re-exported here)."""

from agentic_bench.options.replay import ThinkPolicy

__all__ = ["ThinkPolicy"]
