"""``agentic-bench rag build-index``: chunk, embed and index the RAG corpus (MLPerf e2e-rag-db).

The index is cached by content hash (see ``agentic_bench.tasks.rag_e2e.index_cache``), so a
later ``run rag-e2e`` with the same corpus and settings loads it instead of re-embedding.
"""

from __future__ import annotations

import argparse
from typing import Any

from agentic_bench.tasks.rag_e2e.index_cache import EMBEDDER_HELP


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("rag", help="RAG corpus tools (build-index)",
                       description="Tools for the rag-e2e benchmark's corpus and index.")
    rag_sub = p.add_subparsers(dest="rag_command", metavar="SUBCOMMAND")
    b = rag_sub.add_parser(
        "build-index", help="chunk, embed and index the HotpotQA corpus (cached by content hash)",
        description="Pool the HotpotQA dev-distractor paragraphs (66,581), chunk them (768 "
        "chars, 32 overlap), embed and build a FAISS index; report chunks, embedding "
        "throughput, build time and peak memory. A matching cached index is loaded instead. "
        "Embedded passages are saved in blocks as they are computed: an interrupted build "
        "(Ctrl-C, a lost session) continues where it stopped.")
    b.add_argument("--quick", action="store_true",
                   help="the --quick run's corpus (20 questions' paragraphs + 500 distractors)")
    b.add_argument("--embedder", default="minilm", metavar="NAME|DIR", help=EMBEDDER_HELP)
    b.add_argument("--embedder-url", metavar="URL",
                   help="embed through this OpenAI-compatible /v1/embeddings server; "
                   "--embedder names its model (the index then serves `run rag-e2e` with the "
                   "same two options)")
    b.add_argument("--embedder-api-key-env", default="EMBEDDER_API_KEY", metavar="VAR",
                   help="environment variable with the --embedder-url API key")
    b.add_argument("--kind", choices=("hnsw", "flat"), default="hnsw",
                   help="FAISS HNSW (M=32, efConstruction=200) or exact inner product")
    b.add_argument("--limit", type=int, metavar="N", help="index only the first N paragraphs")
    b.add_argument("--cache-dir", metavar="DIR",
                   help="index cache (default $AGENTIC_BENCH_RAG_CACHE or "
                   "~/.cache/agentic-bench/rag)")
    b.add_argument("--json", metavar="FILE", help="also write the report as JSON to FILE")
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    b.set_defaults(func=build_index_main)
    p.set_defaults(func=lambda args: _usage(p))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def build_index_main(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from agentic_bench.errors import ConfigError

    if args.limit is not None and args.limit < 1:
        raise ConfigError("--limit must be at least 1")
    report = build_report(quick=args.quick, embedder=args.embedder, kind=args.kind,
                          limit=args.limit, cache_dir=args.cache_dir, quiet=args.quiet,
                          embedder_url=args.embedder_url,
                          embedder_key_env=args.embedder_api_key_env)
    print(format_report(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


def build_report(*, quick: bool, embedder: str, kind: str, limit: int | None,
                 cache_dir: str | None, quiet: bool = False, embedder_url: str | None = None,
                 embedder_key_env: str = "EMBEDDER_API_KEY") -> dict[str, Any]:
    """Build (or load) the index and return the cost report as a dict."""
    import os
    import time
    from pathlib import Path

    from agentic_bench.errors import ConfigError
    from agentic_bench.tasks.rag_e2e.index_cache import (
        build_or_load,
        default_cache_dir,
        make_embedder,
        select,
    )
    from agentic_bench.tasks.rag_e2e.progress_bar import embedding_progress

    started = time.perf_counter()
    try:
        from rag_pipeline import CorpusError, EmbedderUnavailableError

        chosen = select(quick=quick, limit=limit)
        model = make_embedder(embedder, embedder_url, os.environ.get(embedder_key_env) or None)
        directory = Path(cache_dir) if cache_dir else default_cache_dir()
        with embedding_progress(f"embedding ({embedder})", enabled=not quiet) as progress:
            _, stats = build_or_load(chosen.corpus, model, kind, directory, progress)
    except (CorpusError, EmbedderUnavailableError) as exc:
        raise ConfigError(str(exc)) from exc
    wall = time.perf_counter() - started
    return {"corpus": chosen.label, "cache_dir": str(directory),
            "index_dir": str(directory / f"{stats.kind}-{stats.cache_key[:16]}"),
            "wall_s": round(wall, 3), **stats.to_dict()}


def format_report(r: dict[str, Any]) -> str:
    source = "loaded from cache" if r["from_cache"] else "built"
    lines = [
        f"index {source}: {r['index_dir']}",
        f"  corpus        {r['corpus']}",
        f"  documents     {r['documents']:,}",
        f"  chunks        {r['chunks']:,} (768 chars, 32 overlap)",
        f"  embedder      {r['embedder']} ({r['dim']}-d)",
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
    return "\n".join(lines)
