"""Every option of a run, low in the house: declared once, parsed once, validated once.

- ``schema`` — how an option is declared (``option(...)``, :class:`OptionsModel`): flag, help,
  group, redaction, resume identity; flags, files and records are generated from it.
- ``parser`` — command lines and ``--config`` files into validated option models.
- ``files`` — the ``config.yaml`` a run saves and ``--config`` reads.
- ``common`` — :class:`CommonOptions`, the options of every run (endpoint, load, LoadGen,
  replay, output). The validated model is the run's configuration: the load, LoadGen
  options, SLOs, replay options and sweep or search points are views of it.
- ``replay_command`` — :class:`ReplayCommandOptions`, ``replay TRACE``'s options (the trace,
  the agent-tree options, then the common ones) and the lanes of a run over agent trees.
- ``replay`` — :class:`ReplayOptions` (how sessions are replayed), ``ThinkPolicy``,
  ``SynthesisOptions``.
- ``load`` — :class:`LoadSpec` (scenario, rate, concurrency, stop), :class:`LaneSpec` (lanes
  of agent trees), :class:`SweepSpec` and :class:`SearchSpec` (``--sweep``, ``--search``).
- ``slo`` — :class:`SloSet` (``--slo``, parsed once).
- ``loadgen`` — :class:`LoadgenOptions` (``--loadgen mlperf``).
- ``agentx`` — the InferenceX AgentX scenario's preset and locked rules (``replay --agentx``).

- ``serving`` — the options of ``sim``, ``record`` and ``serve`` (:class:`EndpointOptions`
  declared once).

Submodules are imported where used (``from agentic_bench.options.load import LoadSpec``), so
importing one does not pull in pydantic for the others; ``options.load`` as an attribute
imports its module on first use.
"""

from typing import Any

__all__ = ["agentx", "common", "files", "load", "loadgen", "parser", "replay", "replay_command",
           "schema", "serving", "slo"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
