"""#30 item 2 end to end: a replay against a URL with a query string and user:password — the
query reaches every request, the credentials go as Basic auth, and no output file shows them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration
SAMPLE = Path(__file__).resolve().parents[2] / "traces" / "sample.jsonl"


def test_query_and_userinfo_reach_every_request(sim_factory, cli, tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    sim = sim_factory("--ttft-ms", "5", "--itl-ms", "1", "--output-tokens", "4",
                      "--request-log", str(log))
    port = sim.url.rsplit(":", 1)[1].split("/")[0]
    url = f"http://alice:s3cretpw@127.0.0.1:{port}/v1?api-version=2024-10-21&api_key=qs3cret"
    out = tmp_path / "run"
    res = cli("replay", str(SAMPLE), "--endpoint", url, "--think-time", "none", "--out",
              str(out), "--quiet", env={"OPENAI_API_KEY": ""})
    assert res.returncode == 0, res.stderr
    entries = [json.loads(x) for x in log.read_text().splitlines()]
    assert len(entries) == json.loads((out / "summary.json").read_text())["counts"]["requests"]
    assert all(e["path"] == "/v1/chat/completions?api-version=2024-10-21&api_key=qs3cret"
               for e in entries)
    assert all(e["auth"] == "Basic" for e in entries)
    for path in out.rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            assert "s3cretpw" not in text and "qs3cret" not in text, path
            assert "alice" not in text, path
    summary = json.loads((out / "summary.json").read_text())
    assert "api-version=2024-10-21" in summary["endpoint"]["url"]
