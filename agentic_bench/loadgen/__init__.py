"""Official MLPerf LoadGen mode (``--loadgen mlperf``): LoadGen issues the sessions.

Optional: needs ``pip install 'agentic-bench[loadgen]'`` (``mlcommons-loadgen``). Nothing here
imports ``mlperf_loadgen`` at import time; :func:`agentic_bench.loadgen.run.run_with_loadgen`
imports it when a run starts. See docs/loadgen.md.
"""

from agentic_bench.options.loadgen import SCENARIO_MAP, LoadgenOptions

__all__ = ["SCENARIO_MAP", "LoadgenOptions"]
