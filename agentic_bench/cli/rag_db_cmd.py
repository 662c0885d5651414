"""``rag build-index --mlperf-db --corpus DIR --loadgen mlperf --out RUN``: e2e-rag-db through
LoadGen (the work is in :mod:`agentic_bench.tasks.rag_e2e.db_run`)."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentic_bench.errors import ConfigError

if TYPE_CHECKING:
    from agentic_bench.metrics.summary_model import Summary
    from agentic_bench.tasks.rag_e2e.options import BuildIndexOptions

_SECRET_FLAGS = ("--embedder-url",)


def check_db_options(args: BuildIndexOptions) -> tuple[Path, Path]:
    """The corpus and the run folder, once the options are fit for a LoadGen build."""
    if not args.loadgen:
        raise ConfigError("--out is the run folder of --loadgen mlperf (add --loadgen mlperf)")
    if not (args.mlperf_db and args.corpus):
        raise ConfigError("--loadgen mlperf runs e2e-rag-db: add --mlperf-db --corpus doc_html/")
    if not args.out:
        raise ConfigError("--loadgen mlperf needs --out RUN_DIR (the run folder)")
    if args.write_manifest or args.verify_manifest:
        raise ConfigError("--write-manifest / --verify-manifest work on the cached index: run "
                          "them without --loadgen")
    if args.kind != "hnsw":
        raise ConfigError("--mlperf-db builds the reference's index: FAISS HNSW (drop --kind)")
    if args.db_workers < 1:
        raise ConfigError("--db-workers must be at least 1")
    if args.loadgen_conf and not Path(args.loadgen_conf).is_file():
        raise ConfigError(f"--loadgen-conf {args.loadgen_conf}: no such file")
    out = Path(args.out)
    if out.exists() and any(out.iterdir()):
        raise ConfigError(f"--out {out}: not empty (each LoadGen run gets its own folder)")
    return Path(args.corpus), out


def command_line(argv: list[str]) -> str:
    """The command as given, without ``--out`` and with URLs redacted."""
    kept: list[str] = []
    skip = False
    for n, arg in enumerate(argv):
        if skip:
            skip = False
            continue
        if arg == "--out" or arg.startswith("--out="):
            skip = arg == "--out"
            continue
        if n and argv[n - 1] in _SECRET_FLAGS:
            arg = "URL"
        kept.append(arg)
    return shlex.join(["agentic-bench", *kept])


def db_build_main(args: BuildIndexOptions) -> int:
    from agentic_bench.options.loadgen import require_loadgen
    from agentic_bench.tasks.rag_e2e.db_loadgen import qsl_pages
    from agentic_bench.tasks.rag_e2e.db_run import run_db_build
    from agentic_bench.tasks.rag_e2e.index_cache import default_cache_dir, make_embedder
    from agentic_bench.tasks.rag_e2e.mlperf_config import db_departures

    corpus, out = check_db_options(args)
    require_loadgen()
    pages = qsl_pages(corpus, args.limit)
    try:
        from rag_pipeline import EmbedderUnavailableError
        from rag_pipeline.devices import DeviceError, DevicePlacement, resolve_device

        device = resolve_device(args.device)
        model = make_embedder(args.embedder, args.embedder_url,
                              os.environ.get(args.embedder_api_key_env) or None, prefixes=False,
                              backend=args.embed_backend,
                              cache_dir=Path(args.cache_dir) if args.cache_dir
                              else default_cache_dir(), device=device)
        summary = run_db_build(pages, model, out, mode=args.loadgen_mode,
                               conf=Path(args.loadgen_conf) if args.loadgen_conf else None,
                               model=args.loadgen_model, workers=args.db_workers,
                               command_line=command_line(sys.argv[1:]),
                               departed=db_departures(args, model.name, len(pages)),
                               device=DevicePlacement.of(args.device, device, model).to_dict())
    except (EmbedderUnavailableError, DeviceError) as exc:
        raise ConfigError(str(exc)) from exc
    print("\n".join(report_lines(summary, out)))
    if args.json_report:
        Path(args.json_report).write_text(json.dumps(summary, indent=2) + "\n",
                                          encoding="utf-8")
    from agentic_bench.metrics.summary_model import Summary

    accuracy = Summary.of(summary).accuracy
    return 3 if accuracy is not None and not accuracy["passed"] else 0


def report_lines(built: Summary | dict[str, Any], out: Path) -> list[str]:
    from agentic_bench.metrics.summary_model import Summary

    summary = Summary.of(built)
    lg, db = summary.loadgen or {}, summary.db or {}
    lines = [
        f"e2e-rag-db ({lg['options']['mode']}) → {out}",
        f"  LoadGen       {lg.get('result') or '(accuracy mode: no verdict)'}"
        + (f", {lg['samples_per_s']:.2f} samples/s" if lg.get("samples_per_s") else "")
        + f", logs in {lg['log_dir']}/",
        f"  pages         {db['completed']:,} indexed of {db['issued']:,} issued "
        f"({db['unique_pages_issued']:,} distinct of {db['pages']:,}); "
        f"{len(db['failed'])} failed",
        f"  passages      {db['passages']:,} ({db['passages_per_s'] or 0:.1f}/s), "
        f"{db['embedder']} on {(db.get('device') or {}).get('embedder', 'cpu')}, FAISS HNSW L2",
        f"  database      {db['path']} md5 {db['md5']} (saved by the {db['saved_by']})",
    ]
    acc = summary.accuracy
    if acc is not None:
        lines.append(f"  accuracy      {acc['accuracy']:.4f} (success rate "
                     f"{100 * acc['success_rate']:.2f}%, MD5 "
                     f"{'matches' if acc['md5_match'] else 'DIFFERS'}): "
                     f"{'PASS' if acc['passed'] else 'FAIL'}")
        lines += [f"                {r}" for r in acc["reasons"]]
    departures = summary.workload["mlperf"]["departures"]
    lines += [f"  departure     {d}" for d in departures]
    return lines
