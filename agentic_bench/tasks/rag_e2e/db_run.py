"""``rag build-index --mlperf-db --loadgen mlperf``: one e2e-rag-db run into a run folder.

The folder is laid out as MLCommons' submission checker reads one LoadGen benchmark inside a
scenario folder (the layout of ``run rag-e2e --mlperf``, docs/loadgen.md): LoadGen's logs in
``performance/run_1/`` or ``accuracy/`` (with ``accuracy.txt``), the conf LoadGen read as
``user.conf``, the database in ``db/``, and ``summary.json`` (benchmark ``rag-e2e-db``), which
``agentic-bench submission pack`` reads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentic_bench.loadgen.conf_files import USER_CONF, copy_conf
from agentic_bench.loadgen.logs import ACCURACY_FILE, loadgen_result, parse_accuracy_log
from agentic_bench.loadgen.settings import build_test_settings, plan_settings, settings_snapshot
from agentic_bench.metrics.summary_model import Summary
from agentic_bench.options.load import LoadSpec
from agentic_bench.options.loadgen import LoadgenOptions
from agentic_bench.tasks.rag_e2e import db_accuracy
from agentic_bench.tasks.rag_e2e.db_loadgen import (
    DB_FOLDER,
    MODEL_KEY,
    PASSAGES_FILE,
    DbSut,
    Page,
)

BENCHMARK = "rag-e2e-db"  # summary.json "benchmark": submission pack maps it to e2e-rag-db
OFFICIAL_PAGES = 2515  # constants.py 195, 228; user.conf e2e-rag-db.Offline.min_query_count
REFERENCE_EMBEDDER = "e5-base-v2"  # reference_mlperf_datasetup.sh 35

# What every e2e-rag-db run does otherwise than the reference, whatever the options (its
# summary's ``workload.mlperf.notes``).
DB_RUN_NOTES = (
    "the database's MD5 is over its folder (index, ids, passages: each file's name and bytes, "
    "in name order), where the reference hashes its one pickled .db file "
    "(reference_SUT_datasetup.py 300-307): the same rule, a different object hashed",
    "accuracy.txt carries an added `Accuracy:` line (the success rate in percent when every "
    "other condition of the reference's verdict holds, else 0), which the submission checker "
    "reads (constants.py 1830) and the reference's datasetup_accuracy_eval.py 527-577 does not "
    "write",
)


def bundled_conf() -> Path:
    return Path(__file__).with_name("mlperf_user.conf")


def run_db_build(pages: list[Page], embedder: Any, out: Path, *, mode: str = "performance",
                 conf: Path | None = None, model: str = MODEL_KEY, workers: int = 4,
                 command_line: str | None = None, lg: Any = None,
                 departed: list[str] | None = None,
                 device: dict[str, Any] | None = None) -> dict[str, Any]:
    """Build the DB of ``pages`` with LoadGen issuing them; returns the summary (also written
    to ``out/summary.json``). ``departed``: where the run departs from the reference, as the
    options rule found it (:func:`agentic_bench.tasks.rag_e2e.mlperf_config.db_departures`);
    None: the embedder and page-count checks alone. ``device``: ``--device`` as asked and as
    used (:class:`rag_pipeline.devices.DevicePlacement`), recorded in the ``db`` block."""
    from agentic_bench.loadgen.run import import_loadgen, log_settings
    from agentic_bench.tasks.rag_e2e.index_cache import index_params
    from rag_pipeline.index import make_index

    lg = lg or import_loadgen()
    opts = LoadgenOptions(scenario="offline", mode=mode, conf=conf or bundled_conf(),
                          model=model, token_latencies=False, layout="submission").check()
    plan = plan_settings(opts, LoadSpec(scenario="offline"), {}, len(pages), MODEL_KEY)
    out.mkdir(parents=True, exist_ok=True)
    conf_info = copy_conf(Path(str(plan.conf)), out / USER_CONF, model=plan.model,
                          scenario=plan.scenario, fit_to=len(pages))
    plan.conf = out / USER_CONF
    ts = build_test_settings(lg, plan)
    logs = out / opts.log_dir
    logs.mkdir(parents=True, exist_ok=True)
    index = make_index("hnsw", int(embedder.dim), **index_params("hnsw", "l2"))
    embedder.embed_passages(["warm-up"])  # load the model before LoadGen's clock starts
    sut = DbSut(lg, pages, embedder, index, out / DB_FOLDER, workers)
    sut_handle = lg.ConstructSUT(sut.issue_queries, sut.flush_queries)
    qsl_handle = lg.ConstructQSL(len(pages), len(pages), _noop, _noop)
    try:
        lg.StartTestWithLogSettings(sut_handle, qsl_handle, ts, log_settings(lg, logs))
    finally:
        sut.close()
        lg.DestroyQSL(qsl_handle)
        lg.DestroySUT(sut_handle)
    trace = logs / "mlperf_log_trace.json"
    if trace.is_file() and trace.stat().st_size == 0:
        trace.unlink()
    result = loadgen_result(logs)
    result.update({"log_dir": opts.log_dir, "options": opts.public(), "conf_model": plan.model,
                   "settings": settings_snapshot(ts), "conf": conf_info})
    summary = Summary.of({
        "benchmark": BENCHMARK, "mlperf_benchmark": MODEL_KEY, "complete": True,
        **({"command_line": command_line} if command_line else {}),
        "loadgen": result, "db": {**sut.block(), "embedder": embedder.name,
                                  "index": index.params, "workers": workers,
                                  **({"device": device} if device else {})},
        "workload": {"mlperf": {"name": "MLPerf v6.1 E2E-RAG e2e-rag-db",
                                "departures": departures(embedder.name, len(pages))
                                if departed is None else departed,
                                "notes": list(DB_RUN_NOTES)}},
    })
    if mode == "accuracy":
        summary.accuracy = evaluate_run(logs, out / DB_FOLDER, embedder)
        (logs / "accuracy.txt").write_text(
            db_accuracy.accuracy_text(summary.accuracy, f"{DB_FOLDER}/"), encoding="utf-8")
    written = summary.to_dict()
    (out / "summary.json").write_text(json.dumps(written, indent=2) + "\n", encoding="utf-8")
    return written


def evaluate_run(logs: Path, db_dir: Path, embedder: Any) -> dict[str, Any]:
    """The reference's verdict over this run's accuracy log and saved database."""
    responses = db_accuracy.responses_by_index(parse_accuracy_log(logs / ACCURACY_FILE))
    if not (db_dir / PASSAGES_FILE).is_file():
        return db_accuracy.evaluate(responses, None)
    return db_accuracy.evaluate(responses, db_accuracy.db_md5(db_dir),
                                checks=saved_db_checks(db_dir, embedder))


def saved_db_checks(db_dir: Path, embedder: Any) -> list[dict[str, Any]]:
    """The reference's database checks on the database as saved (loaded back from disk)."""
    from rag_pipeline.index import IndexIntegrityError, load_index

    with (db_dir / PASSAGES_FILE).open(encoding="utf-8") as handle:
        passages = sum(1 for line in handle if line.strip())
    try:
        index = load_index(db_dir, verify=True)
    except (IndexIntegrityError, OSError, ValueError) as exc:
        return [{"name": "database_load", "result": "FAIL", "value": repr(exc)}]
    hits = index.search(embedder.embed_queries([db_accuracy.PROBE_QUERY]), 1)
    return db_accuracy.database_checks(index.ntotal, passages, len(index.ids),
                                       len(hits[0]) if hits else 0, index.dim)


def departures(embedder_name: str, pages: int) -> list[str]:
    """Where this run departs from the reference's configuration (closed division)."""
    out = []
    if REFERENCE_EMBEDDER not in embedder_name.lower():
        out.append(f"embedder {embedder_name} instead of intfloat/e5-base-v2 "
                   "(reference_mlperf_datasetup.sh 35)")
    if pages != OFFICIAL_PAGES:
        out.append(f"{pages} pages instead of MLPerf's {OFFICIAL_PAGES} (doc_html/)")
    return out


def _noop(_: list[int]) -> None:
    return None
