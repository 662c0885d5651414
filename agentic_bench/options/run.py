"""A run's resolved configuration, below ``run/`` and ``loadgen/run``, which both run one."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agentic_bench.options.load import LaneSpec, LoadSpec
from agentic_bench.options.loadgen import LoadgenOptions
from agentic_bench.options.replay import ReplayOptions
from agentic_bench.transport.url import redact_url


@dataclass(frozen=True)
class RunConfig:
    endpoint: str = "embedded"
    model: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    api_key_header: str | None = None  # the key as this header's bare value (Azure: api-key)
    load: LoadSpec = field(default_factory=LoadSpec)
    options: ReplayOptions = field(default_factory=lambda: ReplayOptions(model=""))
    slos: dict[str, float] = field(default_factory=dict)
    out: Path | None = None
    resume: bool = False
    retry_errors: bool = False  # with resume: sessions that ended in error run again
    overwrite: bool = False  # an --out that holds a run: move that run aside and start anew
    quiet: bool = False
    workers: int = 1
    stop_after_failures: int = 8  # stop when the first N requests all failed (0: never)
    ray_address: str | None = None
    workers_per_node: int | None = None
    loadgen: LoadgenOptions | None = None  # --loadgen mlperf: LoadGen issues the sessions
    transport: str | None = None  # --transport raw|aiohttp (None: env variable, then raw)
    # the validated options as the schema shows them (URLs redacted; the run record's
    # ``options``) and the part of them that identifies the run (``--resume`` compares it)
    options_shown: dict[str, Any] = field(default_factory=dict)
    identity: dict[str, Any] = field(default_factory=dict)
    command: str | None = None  # what a saved config.yaml names: the benchmark, or "replay"
    command_line: str = ""  # the shell command that runs these options again (URLs redacted)
    lanes: LaneSpec | None = None  # agent trees (Weka): lanes instead of the session scheduler
    gpus: int = 1  # GPUs behind the endpoint (throughput per GPU)
    server_metrics: tuple[str, ...] = ()  # --server-metrics: Prometheus URLs scraped in the run
    server_metrics_interval_s: float = 1.0
    # --agentx: the InferenceX AgentX scenario's broken rules and departures (tasks/agentx.py)
    agentx: dict[str, Any] | None = None

    def public(self) -> dict[str, Any]:
        """The resolved config as stored in summary.json: no secret values, only names."""
        return {
            "endpoint": redact_url(self.endpoint),
            "model": self.model, "api_key_env": self.api_key_env,
            **({"api_key_header": self.api_key_header} if self.api_key_header else {}),
            "load": asdict(self.load),
            "history": self.options.history, "think_time": str(self.options.think),
            "overrides": self.options.overrides,
            "request_timeout_s": self.options.request_timeout_s,
            "turn_timeout_s": self.options.turn_timeout_s,
            "salt": bool(self.options.salt), "slos": self.slos,
            "retries": self.options.retries,
            # only when set: a resume of a run made before the option keeps its identity
            **({"retry_on": self.options.retry_rule}
               if self.options.retry_rule != "any" else {}),
            **({"session_headers": list(self.options.session_headers)}
               if self.options.session_headers else {}),
            **({"session_user": True} if self.options.session_user else {}),
            **({"transport": self.transport} if self.transport else {}),
            "loadgen": self.loadgen.public() if self.loadgen is not None else None,
            **({"lanes": asdict(self.lanes), "gpus": self.gpus}
               if self.lanes is not None else {}),
            **({"agentx": True} if self.agentx is not None else {}),
        }


__all__ = ["RunConfig"]
