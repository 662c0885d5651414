"""Benchmark definitions and their registry (entry-point group ``agentic_bench.plugins``)."""

from agentic_bench.tasks.base import Task
from agentic_bench.tasks.registry import GROUP, TaskRef, discover, load_task

__all__ = ["GROUP", "Task", "TaskRef", "discover", "load_task"]
