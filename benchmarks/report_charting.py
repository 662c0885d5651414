"""Which charting library report.html inlines: uPlot (vendored) or plotly.js (#30 item 10).

One real run of 100,000 requests (the latency simulator with 2 ms jitter, 1 % failures,
concurrency 64), its report.html written by ``agentic-bench report`` (uPlot, as shipped), and
the same page with the same chart specs drawn by plotly.js 3.7 (the ``plotly.min.js`` of the
``plotly`` wheel, inlined, ``scattergl`` off: SVG traces as the page's other plots). Each page
is opened ``--repeat`` times in headless Chromium (``--dump-dom``, a fresh profile each time);
the page's script records when every chart was drawn (ms since navigation) and how long the
drawing took. Prints one JSON line per library and writes them to ``--out``.

Reproduce (the plotly wheel is only downloaded, never installed):
    pip download plotly==6.9.0 --no-deps -d /tmp/plotly_dl
    .venv/bin/python benchmarks/report_charting.py --plotly-wheel /tmp/plotly_dl/plotly-*.whl

Measured 2026-12-04 on the 2-core build machine (results/report-charting.jsonl): uPlot page
818 kB, charts drawn 184 ms after navigation (drawing 23 ms); plotly.js 3.7.0 page 5,615 kB,
1,091 ms (450 ms). Medians of 5.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness_throughput import replay, sim  # the same run helpers

ROOT = Path(__file__).resolve().parents[1]
SPEC = re.compile(r'<script type="application/json" class="chart-spec">(.*?)</script>', re.S)
ASSETS = re.compile(r"<style>[^<]*uplot[^<]*</style><script>/\*! https://github.com/leeoniya"
                    r".*</script></body>", re.S | re.I)

PLOTLY_INIT = r"""
(function () {
  var t0 = performance.now();
  document.querySelectorAll("script.chart-spec").forEach(function (el) {
    var spec = JSON.parse(el.textContent);
    var host = document.getElementById(spec.id + "-host");
    var traces = spec.series.map(function (s) {
      var t = {x: spec.x.values, y: s.values, name: s.name, type: "scatter",
               hovertemplate: "%{y} " + s.unit, connectgaps: true};
      if (s.kind === "bars") { t.type = "bar"; t.marker = {color: s.color}; }
      else if (s.kind === "line") { t.mode = "lines"; t.line = {color: s.color}; }
      else { t.mode = "markers"; t.marker = {color: s.color, size: s.kind === "marks" ? 8 : 3}; }
      return t;
    });
    Plotly.newPlot(host, traces, {height: spec.height, margin: {t: 10},
      xaxis: {title: {text: spec.x.label + " (" + spec.x.unit + ")"}},
      yaxis: {title: {text: spec.y.label + " (" + spec.y.unit + ")"}}}, {responsive: false});
    host.setAttribute("data-rendered", "1");
  });
  document.documentElement.setAttribute("data-charts-at-ms", performance.now().toFixed(1));
  document.documentElement.setAttribute("data-charts-ms", (performance.now() - t0).toFixed(1));
})();
"""


def plotly_page(report: str, wheel: Path) -> str:
    with zipfile.ZipFile(wheel) as z:
        lib = z.read("plotly/package_data/plotly.min.js").decode("utf-8")
    assets = f"<script>{lib}</script><script>{PLOTLY_INIT}</script></body>"
    page, n = ASSETS.subn(lambda _: assets, report)
    assert n == 1, "the report's uPlot assets were not found"
    return page


def open_page(browser: str, page: Path) -> dict[str, float]:
    profile = Path(tempfile.mkdtemp())
    try:
        t = time.perf_counter()
        dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                              "--disable-dev-shm-usage", "--no-first-run",
                              "--window-size=1400,1000", f"--user-data-dir={profile}",
                              "--dump-dom", page.as_uri()],
                             capture_output=True, text=True, timeout=300).stdout
        wall = time.perf_counter() - t
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    at = re.search(r'data-charts-at-ms="([\d.]+)"', dom)
    took = re.search(r'data-charts-ms="([\d.]+)"', dom)
    drawn = dom.count('data-rendered="1"')
    if not at or not took:
        raise SystemExit(f"{page}: the charts did not report drawing (charts drawn: {drawn})")
    return {"charts_at_ms": float(at.group(1)), "draw_ms": float(took.group(1)),
            "browser_wall_s": wall, "charts": drawn}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--plotly-wheel", type=Path, required=True)
    ap.add_argument("--requests", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", type=Path,
                    default=ROOT / "benchmarks" / "results" / "report-charting.jsonl")
    args = ap.parse_args()
    browser = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")
                    if shutil.which(b)), None)
    if browser is None:
        raise SystemExit("needs Chromium: apt-get install -y chromium")
    proc, url = sim("--ttft-ms", "2", "--itl-ms", "0", "--jitter", "2", "--output-tokens", "8",
                    "--fail-rate", "0.01", "--seed", "3")
    try:
        summary, _, _ = replay(url, args.requests, "--scenario", "concurrency",
                               "--concurrency", "64", pin=False)
    finally:
        proc.terminate()
    run = Path(summary["out_dir"])
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "agentic_bench", "report", str(run)], check=True,
                   capture_output=True)
    report_s = time.perf_counter() - t
    pages = {"uplot": run / "report.html", "plotly": run / "report-plotly.html"}
    pages["plotly"].write_text(plotly_page(pages["uplot"].read_text(), args.plotly_wheel))
    lines = []
    for lib, page in pages.items():
        runs = [open_page(browser, page) for _ in range(args.repeat)]
        line = {"library": lib, "requests": summary["counts"]["requests"],
                "errors": summary["counts"]["errors"],
                "charts": runs[0]["charts"], "page_bytes": page.stat().st_size,
                "chart_specs_bytes": sum(len(m) for m in SPEC.findall(page.read_text())),
                "charts_drawn_at_ms_median": statistics.median(r["charts_at_ms"] for r in runs),
                "draw_ms_median": statistics.median(r["draw_ms"] for r in runs),
                "browser_wall_s_median": round(statistics.median(r["browser_wall_s"]
                                                                 for r in runs), 2),
                "repeats": args.repeat, "report_command_s": round(report_s, 1)}
        lines.append(line)
        print(json.dumps(line), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(x) + "\n" for x in lines))


if __name__ == "__main__":
    main()
