"""What a LoadGen-driven run asks for: scenario, mode, target QPS, config file (no imports of
``mlperf_loadgen`` here; this module is safe to import from the CLI)."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

from agentic_bench.errors import ConfigError

INSTALL_HINT = ("--loadgen mlperf needs MLPerf LoadGen: "
                "pip install 'agentic-serving-bench[loadgen]' (mlcommons-loadgen==6.0.17)")
# our --scenario name → LoadGen TestScenario name (Interactive is LoadGen's Server scenario
# with the "<model>-interactive" latency constraints, as in mlperf.conf)
SCENARIO_MAP = {
    "offline": "Offline",
    "server": "Server",
    "single-stream": "SingleStream",
    "multi-stream": "MultiStream",
    "interactive": "Server",
}
MODES = ("performance", "accuracy", "TEST09")
# where LoadGen's logs go: "flat" = the run folder itself; "submission" = as MLCommons' submission
# checker lays out one LoadGen benchmark inside a scenario folder (docs/submission.md)
LAYOUTS = ("flat", "submission")
UNSUPPORTED = {
    "concurrency": "LoadGen has no closed-loop-at-N scenario; use our scheduler (the default)",
    "trace-timed": "LoadGen cannot replay recorded start times; use our scheduler (the default)",
}


@dataclass
class LoadgenOptions:
    """``--loadgen mlperf`` and its flags.

    ``model`` is the key LoadGen looks up in mlperf.conf / user.conf (``model.scenario.key``);
    it defaults to the benchmark name. With ``scenario="interactive"`` the key becomes
    ``<model>-interactive`` and LoadGen runs its Server scenario.
    """

    scenario: str = "offline"
    mode: str = "performance"
    target_qps: float | None = None
    conf: Path | None = None
    model: str | None = None
    token_latencies: bool = True
    layout: str = "flat"
    audit: Path | None = None  # LoadGen's audit.config (a compliance test), e.g. TEST09's
    token_stage: str | None = None  # count only this stage's LLM calls as the query's tokens

    def check(self) -> LoadgenOptions:
        if self.scenario in UNSUPPORTED:
            raise ConfigError(f"--loadgen mlperf --scenario {self.scenario}: "
                              f"{UNSUPPORTED[self.scenario]}")
        if self.scenario not in SCENARIO_MAP:
            raise ConfigError(f"--loadgen mlperf --scenario {self.scenario!r}: expected one of "
                              f"{', '.join(SCENARIO_MAP)}")
        if self.mode not in MODES:
            raise ConfigError(f"--loadgen-mode {self.mode!r}: expected one of {', '.join(MODES)}")
        if self.target_qps is not None and self.target_qps <= 0:
            raise ConfigError(f"--target-qps {self.target_qps}: must be > 0")
        if self.conf is not None and not Path(self.conf).is_file():
            raise ConfigError(f"--loadgen-conf {self.conf}: no such file")
        if self.layout not in LAYOUTS:
            raise ConfigError(f"--loadgen-layout {self.layout!r}: expected one of "
                              f"{', '.join(LAYOUTS)}")
        if self.audit is not None and not Path(self.audit).is_file():
            raise ConfigError(f"--loadgen-audit {self.audit}: no such file")
        if self.mode == "TEST09" and self.audit is None:
            raise ConfigError("--loadgen-mode TEST09 needs --loadgen-audit FILE (the benchmark's "
                              "TEST09 audit.config, with test09_min/max_output_tokens)")
        return self

    @property
    def log_dir(self) -> str:
        """Where LoadGen's logs go, relative to the run folder ("" = the folder itself)."""
        if self.layout != "submission":
            return ""
        return {"performance": "performance/run_1", "accuracy": "accuracy",
                "TEST09": "TEST09/performance/run_1"}[self.mode]

    @property
    def lg_scenario(self) -> str:
        return SCENARIO_MAP[self.scenario]

    def conf_model(self, benchmark: str) -> str:
        base = self.model or benchmark
        return f"{base}-interactive" if self.scenario == "interactive" else base

    def public(self) -> dict[str, object]:
        return {"scenario": self.scenario, "loadgen_scenario": self.lg_scenario,
                "mode": self.mode, "target_qps": self.target_qps,
                "conf": str(self.conf) if self.conf else None, "model": self.model,
                "token_latencies": self.token_latencies, "layout": self.layout,
                "audit": str(self.audit) if self.audit else None,
                "token_stage": self.token_stage}


def require_loadgen() -> None:
    """Fail early (before an endpoint starts) when ``mlperf_loadgen`` is not installed."""
    if importlib.util.find_spec("mlperf_loadgen") is None:
        raise ConfigError(INSTALL_HINT)
