"""report.html and compare.html in headless Chromium, driven over the DevTools protocol.

A real run (the sample trace against the latency simulator, with injected failures) is
rendered with ``agentic-bench report``; the page must show every section and plot with
painted content (or a visible "no data" note), log no console error and make no network
request. Skipped only when no Chromium binary exists (``apt-get install -y chromium``).
Set ``REPORT_SCREENSHOT_DIR`` to keep the full-page screenshots.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from agentic_bench.cli.errors import run_command
from agentic_bench.reporting.html import PLOT_IDS, SECTION_IDS, write_report

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
ACCURACY = {"headline": 0.6, "metric": "overall accuracy",
            "categories": {"live": {"accuracy": 0.5, "correct": 5, "total": 10},
                           "non_live": {"accuracy": 0.7, "correct": 7, "total": 10}}}
TASKS = {"scored": 20, "correct": 12, "correct_within_slo": 9, "accuracy": 0.6,
         "accuracy_interval": [0.387, 0.781], "within_slo_fraction": 0.45,
         "within_slo_interval": [0.258, 0.658], "task_goodput_per_s": 0.9,
         "task_goodput_interval": [0.516, 1.316], "causes": {"slo": 3, "wrong": 8},
         "slos": {"session_p99_ms": 500.0}}
PROBE = """(() => {
  const out = {sections: {}, figures: {}, title: document.title,
               verdict: (document.getElementById('verdict') || {}).innerText || ''};
  for (const s of document.querySelectorAll('section[id]')) {
    const r = s.getBoundingClientRect();
    out.sections[s.id] = {w: r.width, h: r.height, text: s.innerText.trim().length};
  }
  for (const f of document.querySelectorAll('figure[id]')) {
    const svg = f.querySelector('svg'), nd = f.querySelector('.no-data');
    const host = f.querySelector('.uchart'), cv = f.querySelector('canvas');
    let inked = 0;
    if (cv && cv.width > 0 && cv.height > 0) {  // painted pixels of an interactive chart
      const px = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
      for (let i = 3; i < px.length; i += 4 * 7) if (px[i] > 0) inked++;
    }
    const box = (svg || host || nd || f).getBoundingClientRect();
    let painted = 0;
    if (svg) for (const m of svg.querySelectorAll('polyline, circle, rect.bar')) {
      const b = m.getBoundingClientRect();
      if (b.width > 0 || b.height > 0) painted++;
    }
    out.figures[f.id] = {svg: !!svg, w: box.width, h: box.height, painted, inked,
                         chart: !!host,
                         rendered: !!host && host.getAttribute('data-rendered') === '1',
                         noData: nd ? nd.innerText.trim() : '',
                         ticks: svg ? svg.querySelectorAll('text').length : 0};
  }
  return out;
})()"""


def find_browser() -> str | None:
    for name in (os.environ.get("AGENTIC_BENCH_CHROMIUM"), *BROWSERS):
        if name and (path := shutil.which(name)):
            return path
    return None


class DevTools:
    """The few DevTools-protocol calls the test needs, over aiohttp's websocket client."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.next_id = 0
        self.pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.events: list[dict[str, Any]] = []
        self.event_seen = asyncio.Event()
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        async for msg in self.ws:
            data = json.loads(msg.data)
            if "id" in data and data["id"] in self.pending:
                self.pending.pop(data["id"]).set_result(data)
            elif "method" in data:
                self.events.append(data)
                self.event_seen.set()

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[self.next_id] = fut
        await self.ws.send_str(json.dumps({"id": self.next_id, "method": method,
                                           "params": params}))
        reply = await asyncio.wait_for(fut, 30)
        assert "error" not in reply, (method, reply)
        return reply.get("result", {})

    async def wait_for(self, method: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while not any(e["method"] == method for e in self.events):
            self.event_seen.clear()
            await asyncio.wait_for(self.event_seen.wait(), max(0.01, deadline - time.monotonic()))

    def named(self, method: str) -> list[dict[str, Any]]:
        return [e["params"] for e in self.events if e["method"] == method]


async def inspect_pages(port: int, pages: list[Path]) -> list[dict[str, Any]]:
    import aiohttp

    results = []
    async with aiohttp.ClientSession() as http:
        async with http.get(f"http://127.0.0.1:{port}/json/list") as resp:
            targets = await resp.json()
        target = next(t for t in targets if t.get("type") == "page")
        async with http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0) as ws:
            cdp = DevTools(ws)
            for domain in ("Runtime", "Log", "Network", "Page"):
                await cdp.call(f"{domain}.enable")
            for page in pages:
                cdp.events.clear()
                await cdp.call("Page.navigate", url=page.as_uri())
                await cdp.wait_for("Page.loadEventFired")
                await asyncio.sleep(0.3)  # let late console/network events arrive
                probe = await cdp.call("Runtime.evaluate", expression=PROBE, returnByValue=True)
                shot = await cdp.call("Page.captureScreenshot", format="png",
                                      captureBeyondViewport=True)
                results.append({
                    "probe": probe["result"]["value"],
                    "requests": [e["request"]["url"]
                                 for e in cdp.named("Network.requestWillBeSent")],
                    "console": [e for e in cdp.named("Runtime.consoleAPICalled")
                                if e.get("type") in ("error", "warning", "assert")],
                    "exceptions": cdp.named("Runtime.exceptionThrown"),
                    "log_errors": [e["entry"] for e in cdp.named("Log.entryAdded")
                                   if e["entry"].get("level") == "error"],
                    "screenshot": shot["data"],
                })
            cdp.reader.cancel()
    return results


def run_browser(browser: str, profile: Path, pages: list[Path]) -> list[dict[str, Any]]:
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
           "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--disable-quic",
           "--disable-extensions", "--hide-scrollbars", "--window-size=1400,1000",
           f"--user-data-dir={profile}", "--remote-debugging-port=0", "about:blank"]
    log = open(profile.parent / "chromium.log", "w")  # closed in the finally below
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not (port_file.exists() and port_file.read_text().strip()):
            assert proc.poll() is None, (profile.parent / "chromium.log").read_text()[-2000:]
            assert time.monotonic() < deadline, "chromium did not open its DevTools port"
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        return asyncio.run(inspect_pages(port, pages))
    finally:
        stop_group(proc)
        log.close()


def stop_group(proc: subprocess.Popen[bytes]) -> None:
    """Stop the browser and its helper processes: the process group this test started."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            proc.poll()
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.1)
    proc.wait()


def report_command(*argv: str) -> int:
    from agentic_bench.cli import report_cmd

    parser = argparse.ArgumentParser(prog="agentic-bench")
    report_cmd.register(parser.add_subparsers())
    args = parser.parse_args(list(argv))
    return run_command(args.func, args)


def check_page(result: dict[str, Any], accuracy_plots: list[str]) -> None:
    probe = result["probe"]
    for sid in SECTION_IDS:
        if sid == "section-accuracy" and not accuracy_plots:
            assert sid not in probe["sections"]  # nothing scored: no empty panel
            continue
        s = probe["sections"].get(sid)
        assert s and s["h"] > 40 and s["w"] > 400 and s["text"] > 0, (sid, s)
    for pid in (*PLOT_IDS, *accuracy_plots):
        fig = probe["figures"].get(pid)
        assert fig and fig["w"] > 200 and fig["h"] > 30, (pid, fig)
        if fig["chart"]:  # interactive (uPlot): drawn by the page's script, on a canvas
            assert fig["rendered"] and fig["inked"] > 50 and fig["h"] > 150, (pid, fig)
        elif fig["svg"]:
            assert fig["painted"] > 0 and fig["ticks"] > 3, (pid, fig)
        else:
            assert fig["noData"].startswith("no "), (pid, fig)
    assert probe["verdict"] in ("VALID", "INVALID")
    bad = [u for u in result["requests"] if not u.startswith(("file:", "data:", "about:"))]
    assert not bad, f"network requests: {bad}"
    assert not result["console"], result["console"]
    assert not result["exceptions"], result["exceptions"]
    assert not result["log_errors"], result["log_errors"]


def test_report_renders_in_chromium(sim_factory, cli, tmp_path: Path) -> None:
    browser = find_browser()
    if browser is None:
        pytest.skip("no Chromium binary (install it: apt-get install -y chromium)")
    sim = sim_factory("--ttft-ms", "20", "--itl-ms", "2", "--jitter", "1",
                      "--fail-rate", "0.1", "--seed", "7")
    out = tmp_path / "run"
    res = cli("replay", str(ROOT / "traces" / "sample.jsonl"), "--endpoint", sim.url,
              "--sessions", "24", "--scenario", "concurrency", "--concurrency", "4",
              "--think-time", "scaled:0.02", "--out", str(out), "--quiet")
    assert res.returncode in (0, 3), res.stderr
    assert report_command("report", str(out)) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"]["errors"] > 0  # the errors plot has bars
    # #44: the page the browser renders carries the figures' 95 % intervals
    assert summary["intervals"]["latency_ms"]["ttft"]["p99"]
    assert 'id="table-intervals"' in (out / "report.html").read_text()
    records = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    acc_dir = tmp_path / "with-accuracy"
    write_report(acc_dir, {**summary, "accuracy": ACCURACY, "tasks": TASKS}, records)

    import base64

    results = run_browser(browser, tmp_path / "profile",
                          [out / "report.html", acc_dir / "report.html"])
    check_page(results[0], [])
    assert "plot-accuracy" not in results[0]["probe"]["figures"]
    assert results[0]["probe"]["figures"]["plot-errors"]["svg"]
    assert results[0]["probe"]["figures"]["plot-waterfall-slowest"]["svg"]
    check_page(results[1], ["plot-accuracy-categories"])
    assert "section-tasks" not in results[0]["probe"]["sections"]  # unscored: no task goodput
    tasks = results[1]["probe"]["sections"]["section-tasks"]  # #47: scored: its panel
    assert tasks["h"] > 40 and tasks["text"] > 0, tasks
    keep = os.environ.get("REPORT_SCREENSHOT_DIR")
    for name, result in zip(("report", "report-accuracy"), results, strict=True):
        png = base64.b64decode(result["screenshot"])
        assert png.startswith(b"\x89PNG") and len(png) > 50_000
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            (Path(keep) / f"{name}.png").write_bytes(png)


def test_compare_renders_in_chromium(sim_factory, cli, tmp_path: Path) -> None:
    browser = find_browser()
    if browser is None:
        pytest.skip("no Chromium binary (install it: apt-get install -y chromium)")
    from agentic_bench.cli import compare_cmd

    sim = sim_factory("--ttft-ms", "10", "--itl-ms", "1", "--output-tokens", "16")
    runs = []
    for name, conc in (("c1", "1"), ("c4", "4")):
        out = tmp_path / name
        res = cli("replay", str(ROOT / "traces" / "sample.jsonl"), "--endpoint", sim.url,
                  "--sessions", "9", "--scenario", "concurrency", "--concurrency", conc,
                  "--think-time", "none", "--out", str(out), "--quiet")
        assert res.returncode == 0, res.stderr
        runs.append(str(out))
    parser = argparse.ArgumentParser(prog="agentic-bench")
    compare_cmd.register(parser.add_subparsers())
    args = parser.parse_args(["compare", *runs, "--out", str(tmp_path / "cmp")])
    assert run_command(args.func, args) == 0
    (result,) = run_browser(browser, tmp_path / "profile", [tmp_path / "cmp" / "compare.html"])
    figs = result["probe"]["figures"]
    for pid in ("plot-compare-ttft-cdf", "plot-compare-tpot-cdf", "plot-compare-turn-cdf"):
        assert figs[pid]["svg"] and figs[pid]["painted"] == 2, (pid, figs[pid])
    assert not [u for u in result["requests"] if not u.startswith(("file:", "data:", "about:"))]
    assert not result["console"] and not result["exceptions"] and not result["log_errors"]


def test_sweep_and_search_pages_render_in_chromium(sim_factory, cli, tmp_path: Path) -> None:
    """#30 item 12: a sweep page and a search page, each with its headline, its plots drawn
    and every point linked to a report that exists."""
    browser = find_browser()
    if browser is None:
        pytest.skip("no Chromium binary (install it: apt-get install -y chromium)")
    sim = sim_factory("--ttft-ms", "5", "--ttft-per-inflight-ms", "10", "--itl-ms", "1",
                      "--output-tokens", "4")
    common = ("replay", str(ROOT / "traces" / "sample.jsonl"), "--endpoint", sim.url,
              "--model", "sim", "--scenario", "concurrency", "--sessions", "12",
              "--think-time", "none", "--quiet")
    res = cli(*common, "--sweep", "concurrency=1,2,4", "--out", str(tmp_path / "sweep"))
    assert res.returncode in (0, 3), res.stderr
    res = cli(*common, "--search", "concurrency=1:4", "--slo", "ttft_p99_ms=30",
              "--out", str(tmp_path / "search"))
    assert res.returncode in (0, 3), res.stderr
    # #47: a scored sweep with trials draws accuracy and correct tasks/s against load
    res = cli("run", "agentic-edge", "--quick", "--samples", "12", "--trials", "3",
              "--sweep", "concurrency=1,4", "--endpoint", sim.url, "--slo",
              "session_p99_ms=400", "--out", str(tmp_path / "scored"), "--quiet")
    assert res.returncode in (0, 3), res.stderr
    pages = [tmp_path / "sweep" / "sweep.html", tmp_path / "search" / "sweep.html",
             tmp_path / "scored" / "sweep.html"]
    for page in pages:  # every point's link leads to a report that exists
        links = re.findall(r'<a href="([^"]+)">', page.read_text())
        assert links and all((page.parent / link).is_file() for link in links), links
    sweep, search, scored = run_browser(browser, tmp_path / "profile", pages)
    assert "sweep-accuracy" not in sweep["probe"]["sections"]  # unscored: no accuracy view
    assert scored["probe"]["sections"]["sweep-accuracy"]["text"] > 0
    for result, plots in ((sweep, ("plot-sweep-latency", "plot-sweep-goodput")),
                          (search, ("plot-sweep-latency", "plot-search-fraction")),
                          (scored, ("plot-sweep-latency", "plot-sweep-accuracy",
                                    "plot-sweep-task-goodput"))):
        figs = result["probe"]["figures"]
        for pid in plots:
            assert figs[pid]["svg"] and figs[pid]["painted"] > 0, (pid, figs[pid])
        assert not [u for u in result["requests"]
                    if not u.startswith(("file:", "data:", "about:"))]
        assert not result["console"] and not result["exceptions"] and not result["log_errors"]
    assert sweep["probe"]["title"].startswith("agentic-bench sweep over concurrency")
    assert search["probe"]["title"].startswith("agentic-bench capacity search over concurrency")
