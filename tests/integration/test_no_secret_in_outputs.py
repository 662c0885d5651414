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
    """With user:password in the URL the key goes in its own header (--api-key-header): both
    in Authorization is refused, saying so without either secret (#30 item 2)."""
    sim = sim_factory("--ttft-ms", "1", "--itl-ms", "0", "--output-tokens", "2")
    out = tmp_path / "replay"
    env = {"OPENAI_API_KEY": f"{SENTINEL}-key"}
    header = ["--api-key-header", "api-key"] if userinfo else []
    res = cli("replay", "traces/sample.jsonl", "--endpoint", _url(sim, userinfo), "--out",
              str(out), "--quiet", *header, env=env)
    assert res.returncode == 0, res.stderr
    assert (out / "summary.json").exists() and not _leaks(out)
    assert SENTINEL not in res.stdout + res.stderr
    if userinfo:
        both = cli("replay", "traces/sample.jsonl", "--endpoint", _url(sim), "--out",
                   str(tmp_path / "both"), "--quiet", env=env)
        assert both.returncode == 2 and "Basic auth" in both.stderr
        assert SENTINEL not in both.stdout + both.stderr


def test_rag_outputs_hold_no_credential_from_any_url(sim_factory: Any, cli: Any,
                                                     tmp_path: Path) -> None:
    """#30 item 6: every URL option of rag-e2e (endpoint, grade, judge, embedder, reranker)
    with credentials in it: none reaches a record, the summary, an error message or the
    terminal — the remote reranker (the simulator has no /rerank: its calls fail) named and
    its errors shown with the URL redacted."""
    from rag_pipeline import sample_layout

    layout = tmp_path / "layout"
    sample_layout(layout, questions=2, distractors=10)
    sim = sim_factory("--ttft-ms", "1", "--itl-ms", "0", "--output-tokens", "4")
    judge = sim_factory("--ttft-ms", "1", "--itl-ms", "0", "--reply",
                        '{"correct": true, "reasoning": "sim"}')
    host = sim.url.split("://", 1)[1].removesuffix("/v1")
    cred = f"user:{SENTINEL}-pw@"
    query = f"?api_key={SENTINEL}-q"
    out = tmp_path / "rag"
    res = cli("run", "rag-e2e", "--frames", str(layout / "frames_dataset.tsv"),
              "--corpus", str(layout / "doc_html"), "--max-rounds", "1",
              "--endpoint", f"http://{host}/v1{query}",
              "--grade-endpoint", f"http://{cred}{host}/v1{query}",
              "--judge-endpoint", _url(judge), "--accuracy-metric", "judge",
              "--embedder", "sim", "--embedder-url", f"http://{cred}{host}/v1{query}",
              "--reranker", "remote", "--reranker-url", f"http://{cred}{host}/v1/rerank{query}",
              "--cache-dir", str(tmp_path / "cache"), "--out", str(out), "--quiet",
              env={"OPENAI_API_KEY": "", "EMBEDDER_API_KEY": "", "RERANKER_API_KEY": ""})
    assert res.returncode in (0, 3), res.stderr
    summary = (out / "summary.json").read_text()
    assert "remote:http://" in summary and "api_key=***" in summary
    assert not _leaks(out), _leaks(out)
    assert SENTINEL not in res.stdout + res.stderr
