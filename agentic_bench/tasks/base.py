"""The public task interface: what a benchmark (built-in or plugin) provides.

A task is an object with a ``name``, a one-line ``summary``, ``add_arguments(parser)`` for
its own options, and ``workload(args) -> Workload`` which loads its sessions and returns the
executor and scorer the harness runs. Optionally, for ``agentic-bench report DIR``:
``rescore(records, previous_accuracy)`` recomputes the accuracy block from the records and
``write_artifacts(out, summary, records)`` writes the benchmark's own files again; declare
them with :func:`agentic_bench.tasks.lazy_method.lazy` so the heavy module loads only when
called. Optionally ``preset_defaults(args) -> dict`` names option defaults that a preset flag
(rag-e2e's ``--mlperf``) sets; ``agentic-bench run`` parses again with them, so options given on
the command line still win. Register it in the ``agentic_bench.plugins`` entry-point group
(built-ins do the same, in this project's pyproject.toml).
"""

from __future__ import annotations

import argparse
from typing import Protocol, runtime_checkable

from agentic_bench.contracts import Workload


@runtime_checkable
class Task(Protocol):
    name: str
    summary: str
    default_scenario: str

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def workload(self, args: argparse.Namespace) -> Workload: ...

