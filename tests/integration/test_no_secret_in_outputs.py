"""No credential reaches any file a run writes: API key, URL userinfo, URL query tokens."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.integration
SENTINEL = "SENTINEL-7f3a"


def _leaks(out: Path) -> list[str]:
    return [str(p) for p in out.rglob("*") if p.is_file()
            and SENTINEL.encode() in p.read_bytes()]


def _url(sim: Any, userinfo: bool = True) -> str:
    host = sim.url.split("://", 1)[1]
    user = f"user:{SENTINEL}-pw@" if userinfo else ""
    return f"http://{user}{host}?api_key={SENTINEL}-q&token={SENTINEL}-t"


@pytest.mark.parametrize("userinfo", [True, False])
def test_replay_outputs_hold_no_credential(sim_factory: Any, cli: Any, tmp_path: Path,
                                           userinfo: bool) -> None:
    sim = sim_factory("--ttft-ms", "1", "--itl-ms", "0", "--output-tokens", "2")
    out = tmp_path / "replay"
    res = cli("replay", "traces/sample.jsonl", "--endpoint", _url(sim, userinfo), "--out",
              str(out),
              "--quiet", env={"OPENAI_API_KEY": f"{SENTINEL}-key"})
    assert res.returncode == 0, res.stderr
    assert (out / "summary.json").exists() and not _leaks(out)
    assert SENTINEL not in res.stdout + res.stderr


def test_agentic_edge_outputs_and_mlperf_artifacts_hold_no_credential(
        sim_factory: Any, cli: Any, tmp_path: Path) -> None:
    pytest.importorskip("bfcl_eval")
    sim = sim_factory("--ttft-ms", "1", "--itl-ms", "0", "--output-tokens", "2")
    out = tmp_path / "edge"
    trace = ROOT / "tests" / "data" / "mlcommons_edge" / "agentic_coding_excerpt.jsonl"
    res = cli("run", "agentic-edge", "--perf-trace", str(trace), "--perf-sessions", "1",
              "--samples", "2", "--endpoint", _url(sim), "--out", str(out), "--quiet",
              env={"OPENAI_API_KEY": f"{SENTINEL}-key"})
    assert res.returncode in (0, 3), res.stderr
    assert (out / "config.yaml").exists() and (out / "accuracy").is_dir()
    assert not _leaks(out)
