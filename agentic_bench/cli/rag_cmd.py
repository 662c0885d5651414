"""``agentic-bench rag build-index``: chunk, embed and index the RAG corpus (MLPerf e2e-rag-db).

The index is cached by content hash (see ``agentic_bench.tasks.rag_e2e.index_cache``), so a
later ``run rag-e2e`` with the same corpus and settings loads it instead of re-embedding.
"""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("rag", help="RAG corpus tools (build-index, sample-layout)",
                       description="Tools for the rag-e2e benchmark's corpus and index.")
    rag_sub = p.add_subparsers(dest="rag_command", metavar="SUBCOMMAND")
    from agentic_bench.cli.options_command import add_options_command

    add_options_command(rag_sub, "build-index", "chunk, embed and index the HotpotQA corpus "
                        "(cached by content hash)").set_defaults(func=build_index_main)
    add_options_command(rag_sub, "sample-layout", "write HotpotQA questions in MLPerf's E2E-RAG "
                        "data layout").set_defaults(func=sample_layout_main)
    p.set_defaults(func=lambda args: _usage(p))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def build_index_main(namespace: argparse.Namespace) -> int:
    """``rag build-index [OPTIONS]`` (:class:`~agentic_bench.tasks.rag_e2e.options.\
BuildIndexOptions`: ``--config FILE`` included)."""
    import json
    from pathlib import Path

    from agentic_bench.cli.options_command import parse_command
    from agentic_bench.tasks.rag_e2e.options import BuildIndexOptions

    args = parse_command(BuildIndexOptions, namespace.rest, "rag build-index")
    if args.loadgen or args.out:
        from agentic_bench.cli.rag_db_cmd import db_build_main

        return db_build_main(args)
    from agentic_bench.cli.rag_manifest import check_manifest_options, manifest_step

    check_manifest_options(args)
    report = build_report(quick=args.quick, embedder=args.embedder, kind=args.kind,
                          limit=args.limit,
                          cache_dir=None if args.cache_dir is None else str(args.cache_dir),
                          quiet=args.quiet,
                          embedder_url=args.embedder_url,
                          embedder_key_env=args.embedder_api_key_env, corpus=args.corpus,
                          prefixes=args.embed_prefixes == "auto" and not args.mlperf_db,
                          backend=args.embed_backend, device=args.device,
                          on_index=manifest_step(args))
    print(format_report(report))
    if args.json_report:
        Path(args.json_report).write_text(json.dumps(report, indent=2) + "\n",
                                          encoding="utf-8")
    verified = (report.get("manifest") or {}).get("verify")
    return 3 if verified is not None and not verified["passed"] else 0


def build_report(*, quick: bool, embedder: str, kind: str, limit: int | None,
                 cache_dir: str | None, quiet: bool = False, embedder_url: str | None = None,
                 embedder_key_env: str = "EMBEDDER_API_KEY",
                 corpus: str | None = None, prefixes: bool = True,
                 on_index: Any = None, backend: str = "torch",
                 device: str = "auto") -> dict[str, Any]:
    """Build (or load) the index and return the cost report as a dict; ``on_index(chunk_index,
    embedder)``, when given, adds its dict as ``manifest``; ``device``: ``--device``, recorded
    as ``device`` (asked, resolved, where the embedder ran)."""
    import os
    import time
    from pathlib import Path

    from agentic_bench.errors import ConfigError
    from agentic_bench.tasks.rag_e2e.index_cache import (
        build_or_load,
        default_cache_dir,
        index_metric,
        make_embedder,
        select,
    )
    from agentic_bench.tasks.rag_e2e.progress_bar import embedding_progress

    started = time.perf_counter()
    try:
        from rag_pipeline import CorpusError, EmbedderUnavailableError
        from rag_pipeline.devices import DeviceError, DevicePlacement, resolve_device

        directory = Path(cache_dir) if cache_dir else default_cache_dir()
        try:
            resolved = resolve_device(device)
        except DeviceError as exc:
            raise ConfigError(str(exc)) from None
        model = make_embedder(embedder, embedder_url, os.environ.get(embedder_key_env) or None,
                              prefixes=prefixes, backend=backend, cache_dir=directory,
                              device=resolved)
        placement = DevicePlacement.of(device, resolved, model).to_dict()
        ingestion: dict[str, Any] = {}
        if corpus:
            from rag_pipeline import load_reference_corpus

            with embedding_progress("pages (extract, cut)", enabled=not quiet) as progress:
                loaded = load_reference_corpus(corpus, cache_dir=directory / "corpus",
                                               progress=progress)
            ingestion = loaded.stats
            chosen = select(corpus=loaded.documents, limit=limit)
        else:
            chosen = select(quick=quick, limit=limit)
        with embedding_progress(f"embedding ({embedder})", enabled=not quiet) as progress:
            chunk_index, stats = build_or_load(chosen.corpus, model, kind, directory, progress,
                                               metric=index_metric(bool(corpus)))
        wall = time.perf_counter() - started
        manifest = on_index(chunk_index, model) if on_index is not None else None
    except (CorpusError, EmbedderUnavailableError) as exc:
        raise ConfigError(str(exc)) from exc
    return {"corpus": chosen.label, "cache_dir": str(directory),
            "index_dir": str(directory / f"{stats.kind}-{stats.cache_key[:16]}"),
            "wall_s": round(wall, 3), **stats.to_dict(), "device": placement,
            **({"ingestion": ingestion} if ingestion else {}),
            **({"manifest": manifest} if manifest else {})}


def format_report(r: dict[str, Any]) -> str:
    source = "loaded from cache" if r["from_cache"] else "built"
    lines = [
        f"index {source}: {r['index_dir']}",
        f"  corpus        {r['corpus']}",
        f"  documents     {r['documents']:,}",
        *_ingestion_lines(r.get("ingestion")),
        f"  chunks        {r['chunks']:,} (768 chars, 32 overlap)",
        f"  embedder      {r['embedder']} ({r['dim']}-d)",
        *([f"  device        --device {r['device']['requested']} → {r['device']['embedder']}"]
          if r.get("device") else []),
        f"  index         {r['kind']}",
        f"  embed         {r['embed_s']:.1f} s, {r['passages_per_s']:.1f} passages/s"
        + (" (recorded at build)" if r["from_cache"] else ""),
        *([f"  resumed       {r['resumed_passages']:,} passages from an interrupted build "
            "(embed figures cover the rest)"] if r.get("resumed_passages") else []),
        f"  index build   {r['index_s']:.1f} s",
        f"  total         {r['build_s']:.1f} s (wall incl. loading {r['wall_s']:.1f} s)",
        f"  peak RSS      {r['peak_rss_mb']:.0f} MiB",
        f"  content hash  {r['content_hash'][:16]}",
    ]
    from agentic_bench.cli.rag_manifest import manifest_lines

    return "\n".join(lines + manifest_lines(r.get("manifest")))


def _ingestion_lines(stats: dict[str, Any] | None) -> list[str]:
    if not stats:
        return []
    if stats.get("from_cache") or "extract_s" not in stats:
        return [f"  pages         {stats.get('pages', 0):,} → {stats.get('passages', 0):,} "
                "passages (extraction loaded from cache)"]
    return [f"  pages         {stats['pages']:,} → {stats['passages']:,} passages "
            f"({stats['parser']}, {stats['boundary']} boundary)",
            f"  extract+cut   {stats['extract_s']:.1f} s, {stats['pages_per_s']:.1f} pages/s, "
            f"{stats['passages_per_s']:.1f} passages/s"]


def sample_layout_main(namespace: argparse.Namespace) -> int:
    from pathlib import Path

    from agentic_bench.cli.options_command import parse_command
    from agentic_bench.cli.tool_options import SampleLayoutOptions
    from agentic_bench.errors import ConfigError
    from rag_pipeline import CorpusError, sample_layout

    args = parse_command(SampleLayoutOptions, namespace.rest, "rag sample-layout")
    out = Path(args.out)
    try:
        counts = sample_layout(out, args.questions, args.distractors, args.seed)
    except CorpusError as exc:
        raise ConfigError(str(exc)) from exc
    print(f"wrote {counts['questions']} questions to {out / 'frames_dataset.tsv'} and "
          f"{counts['pages']} pages to {out / 'doc_html'}/ (with url_mapping.json)\n"
          f"try: agentic-bench run rag-e2e --frames {out / 'frames_dataset.tsv'} "
          f"--corpus {out / 'doc_html'} --endpoint embedded")
    return 0
