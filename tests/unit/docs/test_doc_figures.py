"""#30 item 9: figures in the docs are the committed records' own (docs/rag-e2e.md said 74.4 /
228.3 / 111.5 passages/s where the record says 64.8 / 214.2 / 101.9), and a figure no record
backs says so."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_embed_backend_figures_are_the_records() -> None:
    doc = (ROOT / "docs" / "rag-e2e.md").read_text()
    rows = [json.loads(x) for x in (ROOT / "benchmarks" / "results" / "rag-e2e" /
                                    "embed-backends" / "backends-300q.jsonl").read_text()
            .splitlines()]
    figures = {r["figure"]: r["value"] for r in rows}
    for name in ("torch-fp32", "torch-bf16", "onnx-int8"):
        assert f"{figures[f'{name}.passages_per_s']:.1f}" in doc, name
    for stale in ("74.4", "228.3", "111.5"):
        assert stale not in doc


def test_unbacked_measurements_are_marked() -> None:
    doc = (ROOT / "docs" / "rag-e2e.md").read_text()
    section = doc[doc.index("## Measured on the development machine"):]
    for claim in ("4,522 s", "759 s", "17.8 s per question"):
        line_start = section.rfind("\n- ", 0, section.index(claim))
        assert "no committed record" in section[line_start:section.index(claim)], claim


def test_index_build_figures_are_the_records() -> None:
    """#33 item 4: docs/performance.md's index-build table is the committed run's."""
    doc = (ROOT / "docs" / "performance.md").read_text()
    section = doc[doc.index("## The RAG index build's embedding"):doc.index("## Other benchmarks")]
    rows = [json.loads(x) for x in (ROOT / "benchmarks" / "results" / "rag-index-build" /
                                    "limit3000.jsonl").read_text().splitlines()]
    figures = {r["figure"]: r["value"] for r in rows}
    ours = figures["build_index_path_passages_per_s"]
    for name in ("build_index_path", "corpus_order_batch64", "plain_st_256", "plain_st_32"):
        value = figures[f"{name}_passages_per_s"]
        assert f"| {value:.1f} | {ours / value:.2f} |" in section, name
    assert f"| {figures['rag_build_index_end_to_end_passages_per_s']:.1f} |" in section
    assert f"{figures['passages']:,} passages" in section


def test_harness_vs_aiohttp_figures_are_the_records() -> None:
    """#33 item 3: docs/performance.md's side-by-side table is the committed run's."""
    doc = (ROOT / "docs" / "performance.md").read_text()
    section = doc[doc.index("## The harness beside a bare aiohttp client"):
                  doc.index("## Precision on the agentic path")]
    rows = [json.loads(x) for x in (ROOT / "benchmarks" / "results" / "harness-vs-aiohttp" /
                                    "requests4000-c64.jsonl").read_text().splitlines()]
    for ratio in (r for r in rows if r["figure"] == "ratio"):
        cells = (f"| {ratio['harness_best']:,.0f} | {ratio['aiohttp_best']:,.0f} | "
                 f"{ratio['best_over_best']:.2f}x | "
                 f"{', '.join(f'{x:.2f}' for x in ratio['per_round'])} |")
        assert cells in section, ratio["server"]


def test_auto_calibration_figures_are_the_record() -> None:
    """#33 item 4: docs/rag-e2e.md's `--embed-backend auto` paragraph is the committed
    calibration's, and the record's choice is the rule's."""
    from agentic_bench.tasks.rag_e2e.backend_calibration import choose

    record = json.loads((ROOT / "benchmarks" / "results" / "rag-e2e" / "embed-backends" /
                         "auto-calibration-amd-epyc.json").read_text())
    doc = " ".join((ROOT / "docs" / "rag-e2e.md").read_text().split())
    section = doc[doc.index("**`--embed-backend auto`**"):doc.index("**Interrupted builds")]
    assert choose(record["figures"]) == record["chosen"]
    assert f"took {record['seconds']} s and chose {record['chosen']}" in section
    speeds = [record["figures"][b]["passages_per_s"] for b in ("torch", "torch-bf16",
                                                                "onnx-int8")]
    assert "fp32 {}, torch-bf16 {}, onnx-int8 {} passages/s".format(*speeds) in section
    recalls = [record["figures"][b]["recall@10"] for b in ("torch", "torch-bf16", "onnx-int8")]
    assert "recall@10 {} / {} / {}".format(*recalls) in section


def test_agentx_scale_figures_are_the_records() -> None:
    """#46: docs/performance.md's "After (7)-(10)" tables are the committed records' own
    (ours / floor client share p99 per repeat; AIPerf's beside ours)."""
    doc = (ROOT / "docs" / "performance.md").read_text()
    section = doc[doc.index("**After (7)-(10)"):doc.index("## Other benchmarks")]
    base = ROOT / "benchmarks" / "results" / "agentx-scale"

    def points(name: str) -> list[dict]:
        return json.loads((base / f"{name}.json").read_text())["points"]

    def share(p: dict, who: str) -> str:
        return f"{p[who]['client_share_ms']['p99']:.1f}"

    for run in ("run1", "run2", "run3", "lanes-16x4-run1", "lanes-16x4-run2",
                "lanes-16x4-run3"):
        for p in points(f"final-20261206/{run}"):
            ratio = p["ours"]["client_share_ms"]["p99"] / p["floor"]["client_share_ms"]["p99"]
            assert f"{share(p, 'ours')} / {share(p, 'floor')} = **{ratio:.1f}x**" in section, \
                (run, p["lanes"])
    for name in ("lanes-16x4", "lanes-64-256"):
        for p in points(f"aiperf-20261206/{name}"):
            a = p["aiperf"]
            ratio = a["client_share_ms"]["p99"] / p["ours"]["client_share_ms"]["p99"]
            cells = f"{share(p, 'ours')}; {a['client_share_ms']['p99']:,.1f} | {ratio:.1f}x"
            assert f"| {cells} |" in section.replace("**", ""), (name, p["lanes"])
