"""Running a benchmark: the composition root (endpoint + workload + load + records + summary).

- ``benchmark`` — :func:`run_workload`: one run of a workload under its validated options,
  everything checked before the first request.
- ``plan`` — :class:`Run`: the options and what the command and the run add to them (the
  command's name, the lanes of agent trees, the replay options once the endpoint is open).
- ``folder`` — the output folder and ``--resume``: claiming it (or moving an earlier run
  aside), reading what a resumed run already did, the command that continues it.
- ``segments`` — the measured segment and its strategy: in process, in lanes of agent trees,
  sharded over worker processes or Ray actors (or LoadGen's).
- ``summary`` — summary assembly: ``summary.json``/``summary.txt``, artifacts and reports from
  the run's tally and what it measured.
- ``sweep`` — :func:`run_sweep`: one run per point of ``--sweep`` (``sweep.json``/``.html``).
- ``search`` — :func:`run_search`: capacity under SLO (``--search``), the largest load at
  which enough sessions meet the SLOs.
- ``command`` — what a command does with its options: :func:`execute` runs it once or per
  sweep or search point and :func:`finish` prints the result and gives the exit code.

Importing this package is cheap: each name loads its module (and the harness) on first use,
so ``agentic-bench --help`` stays fast.
"""

from typing import Any

_HOMES = {
    "run_workload": "benchmark",
    "execute": "command",
    "finish": "command",
    "run_sweep": "sweep",
    "run_search": "search",
}

__all__ = ["execute", "finish", "run_search", "run_sweep", "run_workload"]


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
