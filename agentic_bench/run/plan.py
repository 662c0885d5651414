"""One run as it will go: the validated options — the run's configuration, read where they are
used and never copied into fields of another object — and the little a run adds to them.

:class:`Run` pairs the options (:class:`~agentic_bench.options.common.CommonOptions`, frozen
once validated) with the command that runs them (for ``config.yaml`` and the line that reruns
them), the lanes of a run over agent trees, and what the run decides once its endpoint is open:
the :class:`~agentic_bench.options.replay.ReplayOptions` its requests are made with (the model
the endpoint serves, the benchmark's body defaults under ``--max-tokens``/``--temperature``,
the salt of ``--salt``). :func:`lanes_of` is the one place a run's lanes are worked out, and
:attr:`Run.load` the run's load (the tagged union of the load specs, from which
``run/segments.py`` makes its scheduler). :func:`check_plan` refuses, before anything is sent
or written, what only the workload can tell (the lanes rules of agent trees) or only the
network (a Ray address).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from agentic_bench.contracts import Workload
from agentic_bench.options.common import CommonOptions
from agentic_bench.options.load import LaneSpec, LoadShape
from agentic_bench.options.replay import ReplayOptions
from agentic_bench.options.schema import command_line, identity, public_options
from agentic_bench.transport.url import redact_url


@dataclass(frozen=True)
class Run:
    """A run's options and what the command and the run add (see the module's text)."""

    options: CommonOptions
    command: str | None  # the benchmark's name or "replay"; None: a run built in code
    lanes: LaneSpec | None  # agent trees go in lanes (replay of Weka traces)
    replay: ReplayOptions

    @property
    def load(self) -> LoadShape:
        """The run's load: its lanes of agent trees, else the sessions load of its options."""
        return self.lanes if self.lanes is not None else self.options.load

    @property
    def out(self) -> Path | None:
        """Where the run goes: ``--resume DIR``, else ``--out`` (None: a dated default)."""
        return self.options.resume or self.options.out

    @property
    def resume(self) -> bool:
        return self.options.resume is not None

    @property
    def agentx(self) -> dict[str, Any] | None:
        """The AgentX scenario's broken rules and departures (``replay --agentx`` of trees)."""
        return self.options.scenario_rules if self.lanes is not None else None

    @property
    def shown(self) -> dict[str, Any]:
        """The options as the schema shows them (URLs redacted): the run record's
        ``options`` and ``config.yaml``."""
        return public_options(self.options)

    @property
    def identity(self) -> dict[str, Any]:
        """The options that identify the run (``--resume`` compares them)."""
        return identity(self.options)

    @property
    def command_line(self) -> str:
        """The shell command that runs these options again ("" for a run built in code)."""
        if self.command is None:
            return ""
        prefix = ["replay"] if self.command == "replay" else ["run", self.command]
        return command_line(["agentic-bench", *prefix], self.options)

    def public(self) -> dict[str, Any]:
        """The resolved run as ``summary.json``'s ``config`` stores it: no secret values, only
        names."""
        o, r = self.options, self.replay
        loadgen = o.loadgen_options
        return {
            "endpoint": redact_url(o.endpoint),
            "model": o.model, "api_key_env": o.api_key_env,
            **({"api_key_header": o.api_key_header} if o.api_key_header else {}),
            "load": asdict(o.load),
            "history": r.history, "think_time": str(r.think),
            "overrides": r.overrides,
            "request_timeout_s": r.request_timeout_s,
            "turn_timeout_s": r.turn_timeout_s,
            "salt": bool(r.salt), "slos": o.slos,
            "retries": r.retries,
            # only when set: a resume of a run made before the option keeps its identity
            **({"retry_on": r.retry_rule} if r.retry_rule != "any" else {}),
            **({"session_headers": list(r.session_headers)} if r.session_headers else {}),
            **({"session_user": True} if r.session_user else {}),
            **({"transport": o.transport} if o.transport else {}),
            "loadgen": loadgen.public() if loadgen is not None else None,
            **({"lanes": asdict(self.lanes), "gpus": o.gpus_behind}
               if self.lanes is not None else {}),
            **({"agentx": True} if self.agentx is not None else {}),
        }


def lanes_of(workload: Workload, options: CommonOptions) -> LaneSpec | None:
    """The lanes of a run over agent trees (their rules checked:
    :meth:`~agentic_bench.options.common.CommonOptions.lane_spec`); None for sessions."""
    return options.lane_spec() if workload.trees else None


def check_plan(workload: Workload, options: CommonOptions) -> LaneSpec | None:
    """What the options cannot check alone, before anything is sent or written: agent trees
    run in lanes (their rules, :meth:`~agentic_bench.options.common.CommonOptions.lane_spec`)
    and a Ray address must answer. Returns the lanes (None: not a run of agent trees)."""
    lanes = lanes_of(workload, options)
    if options.ray_address:
        from agentic_bench.load.ray_executor import check_ray_address

        check_ray_address(options.ray_address)
    return lanes


__all__ = ["Run", "check_plan", "lanes_of"]
