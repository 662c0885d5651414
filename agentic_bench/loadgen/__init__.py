"""Official MLPerf LoadGen mode (``--loadgen mlperf``): LoadGen issues the sessions.

Optional: needs ``pip install 'agentic-serving-bench[loadgen]'`` (``mlcommons-loadgen``). Nothing
here imports ``mlperf_loadgen`` at import time; :func:`agentic_bench.loadgen.run.run_with_loadgen`
imports it when a run starts. See docs/loadgen.md. Public names: :class:`LoadgenOptions` (the
``--loadgen`` flags) and :data:`SCENARIO_MAP` (our scenario names → LoadGen's).
"""

from agentic_bench.options.loadgen import SCENARIO_MAP, LoadgenOptions

__all__ = ["SCENARIO_MAP", "LoadgenOptions"]
