"""Scenario/option mapping to LoadGen TestSettings (planning is pure; applying needs LoadGen)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from agentic_bench.errors import ConfigError
from agentic_bench.loadgen.settings import build_test_settings, plan_settings
from agentic_bench.options.load import LoadSpec
from agentic_bench.options.loadgen import SCENARIO_MAP, LoadgenOptions

needs_lg = pytest.mark.skipif(importlib.util.find_spec("mlperf_loadgen") is None,
                              reason="mlperf_loadgen (mlcommons-loadgen) not installed")


def plan(scenario: str, load: LoadSpec | None = None, slos: dict[str, float] | None = None,
         size: int = 10, **kw: object):
    return plan_settings(LoadgenOptions(scenario=scenario, **kw),  # type: ignore[arg-type]
                         load or LoadSpec(scenario=scenario), slos or {}, size, "bench")


def test_scenario_names_map_to_loadgen() -> None:
    assert SCENARIO_MAP == {"offline": "Offline", "server": "Server",
                            "single-stream": "SingleStream", "multi-stream": "MultiStream",
                            "interactive": "Server"}
    assert plan("offline").scenario == "Offline"
    assert plan("single-stream").scenario == "SingleStream"
    assert plan("server", target_qps=3).scenario == "Server"


def test_defaults_are_one_quick_pass() -> None:
    p = plan("offline", size=7)
    values = p.merged()
    assert values["min_query_count"] == 7 and values["min_duration_ms"] == 0
    assert values["max_query_count"] == 0 and values["use_token_latencies"] is True
    assert p.mode == "PerformanceOnly" and p.model == "bench" and p.conf is None


def test_explicit_flags_become_overrides() -> None:
    load = LoadSpec(scenario="server", sessions=12, duration_s=2.5, seed=7)
    p = plan("server", load, {"ttft_p99_ms": 300, "tpot_p99_ms": 20}, target_qps=4.5)
    assert p.overrides == {"server_target_qps": 4.5, "min_query_count": 12,
                           "max_query_count": 12, "min_duration_ms": 2500,
                           "ttft_latency": 300_000_000, "tpot_latency": 20_000_000}
    assert p.defaults["schedule_rng_seed"] == 7


def test_server_rate_stands_in_for_target_qps() -> None:
    p = plan("server", LoadSpec(scenario="server", rate=2.0))
    assert p.overrides["server_target_qps"] == 2.0


def test_interactive_is_server_with_tight_token_limits_and_its_own_model_key() -> None:
    p = plan("interactive", target_qps=1, model="llama2-70b")
    assert p.scenario == "Server" and p.model == "llama2-70b-interactive"
    assert p.defaults["ttft_latency"] == 450_000_000 and p.defaults["tpot_latency"] == 40_000_000
    server = plan("server", target_qps=1)
    assert server.defaults["ttft_latency"] == 2_000_000_000


def test_multi_stream_counts_queries_of_n_sessions() -> None:
    p = plan("multi-stream", LoadSpec(scenario="multi-stream", concurrency=4, sessions=10),
             size=10)
    assert p.defaults["multi_stream_samples_per_query"] == 4
    assert p.defaults["min_query_count"] == 3  # one pass: ceil(10 / 4)
    assert p.overrides["min_query_count"] == 3 and p.overrides["max_query_count"] == 3


def test_duration_without_sessions_lets_the_duration_rule() -> None:
    p = plan("server", LoadSpec(scenario="server", duration_s=5), target_qps=2)
    assert p.merged()["min_query_count"] == 1 and p.merged()["min_duration_ms"] == 5000


def test_accuracy_mode() -> None:
    assert plan("offline", mode="accuracy").mode == "AccuracyOnly"


@pytest.mark.parametrize(("scenario", "kw", "message"), [
    ("concurrency", {}, "closed-loop"),
    ("trace-timed", {}, "recorded start times"),
    ("bogus", {}, "expected one of"),
    ("server", {}, "needs --target-qps"),
    ("offline", {"mode": "fast"}, "--loadgen-mode"),
    ("offline", {"target_qps": -1.0}, "must be > 0"),
    ("offline", {"conf": Path("/no/such/user.conf")}, "no such file"),
])
def test_bad_options_are_config_errors(scenario: str, kw: dict[str, object],
                                       message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        plan(scenario, LoadSpec(scenario="offline"), **kw)


def test_offline_duration_needs_a_target_qps() -> None:
    with pytest.raises(ConfigError, match="target_qps × duration"):
        plan("offline", LoadSpec(scenario="offline", duration_s=3))


def test_max_errors_is_refused() -> None:
    with pytest.raises(ConfigError, match="--max-errors"):
        plan("offline", LoadSpec(scenario="offline", max_errors=3))


@needs_lg
def test_build_applies_defaults_then_conf_then_explicit_flags(tmp_path: Path) -> None:
    import mlperf_loadgen as lg

    conf = tmp_path / "user.conf"
    conf.write_text("*.Server.target_qps = 7\n*.Server.min_query_count = 33\n"
                    "bench.Server.min_duration = 1234\n")
    load = LoadSpec(scenario="server", sessions=5)
    ts = build_test_settings(lg, plan("server", load, conf=conf))
    assert ts.server_target_qps == 7.0  # from the file
    assert ts.min_duration_ms == 1234  # model-specific key
    assert ts.min_query_count == 5 and ts.max_query_count == 5  # --sessions wins
    assert ts.scenario == lg.TestScenario.Server and ts.mode == lg.TestMode.PerformanceOnly
    ts = build_test_settings(lg, plan("server", load, conf=conf, target_qps=2.0))
    assert ts.server_target_qps == 2.0


@needs_lg
def test_conf_reads_mlperf_conf_first(tmp_path: Path) -> None:
    import mlperf_loadgen as lg

    conf = tmp_path / "user.conf"
    conf.write_text("*.Server.target_qps = 3\n")
    ts = build_test_settings(lg, plan("interactive", conf=conf, model="llama2-70b"))
    assert ts.ttft_latency == 450_000_000  # llama2-70b-interactive in mlperf.conf
    assert ts.min_duration_ms == 600_000  # *.Server.min_duration in mlperf.conf


@needs_lg
def test_unreadable_conf_is_a_config_error(tmp_path: Path) -> None:
    import mlperf_loadgen as lg

    conf = tmp_path / "user.conf"
    conf.write_text("this is not a config line\n")
    with pytest.raises(ConfigError, match="could not read"):
        build_test_settings(lg, plan("offline", conf=conf))


@needs_lg
def test_offline_never_gets_zero_queries() -> None:
    import mlperf_loadgen as lg

    p = plan("offline", size=1)
    p.overrides["min_query_count"] = 0
    assert build_test_settings(lg, p).min_query_count == 1


def test_missing_loadgen_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    from agentic_bench.loadgen import run
    from agentic_bench.options import loadgen as options

    monkeypatch.setattr(options.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ConfigError, match=r"agentic-serving-bench\[loadgen\]"):
        options.require_loadgen()
    real_import = builtins.__import__

    def no_loadgen(name: str, *args: object, **kw: object) -> object:
        if name == "mlperf_loadgen":
            raise ImportError(name)
        return real_import(name, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_loadgen)
    with pytest.raises(ConfigError, match="mlcommons-loadgen"):
        run.import_loadgen()


def test_core_modules_do_not_import_loadgen() -> None:
    import subprocess
    import sys

    code = ("import sys, agentic_bench.run.benchmark, agentic_bench.cli.main, "
            "agentic_bench.loadgen; print('mlperf_loadgen' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
