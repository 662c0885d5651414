"""The public task interface: what a benchmark (built-in or plugin) provides.

A task is an object with a ``name``, a one-line ``summary``, a ``default_scenario``, ``options``
(an :class:`~agentic_bench.options.schema.OptionsModel` declaring its own options: flags,
``--help``, configuration-file keys, resume identity and the ``run`` record all come from it)
and ``workload(options) -> Workload``, which loads its sessions and returns the executor and
scorer the harness runs. ``workload`` receives the validated, frozen options — the task's own
and the common run options (``endpoint``, ``scenario``, ``out``, ...) — as attributes.

Optionally, for ``agentic-bench report DIR``: ``rescore(records, previous_accuracy)`` recomputes
the accuracy block from the records and ``write_artifacts(out, summary, records)`` writes the
benchmark's own files again; declare them with :func:`agentic_bench.tasks.lazy_method.lazy` so
the heavy module loads only when called. Optionally ``preset_defaults(options) -> dict`` names
option defaults that a preset option (rag-e2e's ``--mlperf``) sets; options given on the command
line or in a file still win. Register it in the ``agentic_bench.plugins`` entry-point group
(built-ins do the same, in this project's pyproject.toml).

A task written before option models (``add_arguments(parser)`` instead of ``options``) still
runs: :func:`agentic_bench.tasks.registry.task_options` derives a model from its parser.
"""

from __future__ import annotations

from typing import Protocol, TypeVar, runtime_checkable

from agentic_bench.contracts import Workload
from agentic_bench.options.schema import OptionsModel

OptionsT = TypeVar("OptionsT", bound=OptionsModel)


@runtime_checkable
class Task(Protocol[OptionsT]):
    """What a benchmark provides (see the module's text): its name, summary, default scenario,
    option model (``options``, an ``OptionsT``) and ``workload(options)``, which gets an
    ``OptionsT`` — the task's own model combined with the common run options
    (:func:`agentic_bench.options.common.common` gives that part, typed)."""
    name: str
    summary: str
    default_scenario: str
    options: type[OptionsT]

    def workload(self, options: OptionsT) -> Workload: ...
