"""MLPerf v6.1 Edge Agentic's BFCL sample selection, recomputed from the bfcl-eval package
files alone (none of our loader or sampling code), for the tests that check ours against it."""

from __future__ import annotations


def reference_selection() -> list[str]:
    """MLPerf's selection, transcribed from mlcommons/endpoints ea332753
    ``src/inference_endpoint/dataset_manager/predefined/bfcl_v4/__init__.py`` and recomputed
    here from the bfcl-eval package files alone (none of our loader or sampling code):

    * 308-313: every single-turn subset file ``BFCL_v4_<subset>.json`` read in file order;
    * 330 and the config (``online_edge_full_run.yaml``: categories non_live, live,
      hallucination): only those categories' subsets;
    * 353: ``df.groupby("subset")`` — pandas sorts the group keys: lexicographic order;
    * 358-364: ``n = total`` when ``total <= subset_floor`` (25), else
      ``max(1, int(total * pct / 100))`` with the category's pct (62 / 10 / 10);
      ``group.head(n)``: the first n rows;
    * ``load_generator/sample_order.py`` 95-110: accuracy samples issued sequentially.
    """
    import importlib.util
    import json as _json
    from pathlib import Path as _Path

    spec = importlib.util.find_spec("bfcl_eval")
    assert spec is not None and spec.submodule_search_locations
    data = _Path(next(iter(spec.submodule_search_locations))) / "data"
    pct = {"non_live": 62, "live": 10, "hallucination": 10}
    category = {
        "simple_python": "non_live", "simple_java": "non_live", "simple_javascript": "non_live",
        "multiple": "non_live", "parallel": "non_live", "parallel_multiple": "non_live",
        "live_simple": "live", "live_multiple": "live", "live_parallel": "live",
        "live_parallel_multiple": "live", "irrelevance": "hallucination",
        "live_irrelevance": "hallucination",
    }
    ids: list[str] = []
    for subset in sorted(category):
        lines = (data / f"BFCL_v4_{subset}.json").read_text(encoding="utf-8").splitlines()
        rows = [_json.loads(line)["id"] for line in lines if line.strip()]
        total = len(rows)
        n = total if total <= 25 else max(1, int(total * pct[category[subset]] / 100))
        ids.extend(rows[:n])
    return ids
