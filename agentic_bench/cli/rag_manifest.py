"""``rag build-index --write-manifest / --verify-manifest``: e2e-rag-db's DB manifest step.

The rules live in :mod:`agentic_bench.tasks.rag_e2e.db_manifest`; this module checks the
options before anything is built, runs the step on the built (or cached) index, and words the
result.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentic_bench.errors import ConfigError

if TYPE_CHECKING:
    from agentic_bench.tasks.rag_e2e.options import BuildIndexOptions


def check_manifest_options(args: BuildIndexOptions) -> None:
    """Bad combinations fail before the (long) build."""
    wants = args.write_manifest or args.verify_manifest or args.mlperf_db
    if wants and not args.corpus:
        raise ConfigError("--mlperf-db, --write-manifest and --verify-manifest need --corpus "
                          "(MLPerf's pages: doc_html/, a .tar.gz of it, or passages.json)")
    if args.write_manifest and not args.frames:
        raise ConfigError("--write-manifest needs --frames frames_dataset.tsv (its probe "
                          "queries)")
    if args.verify_manifest and not Path(args.verify_manifest).is_file():
        raise ConfigError(f"--verify-manifest {args.verify_manifest}: no such file")
    if args.mlperf_db and args.kind != "hnsw":
        raise ConfigError("--mlperf-db builds the reference's index: FAISS HNSW (drop --kind)")
    if not 0 <= args.retrieval_threshold <= 1:
        raise ConfigError("--retrieval-threshold must be within [0, 1]")


def manifest_step(args: BuildIndexOptions) -> Callable[[Any, Any], dict[str, Any]] | None:
    """What to do once the index exists (None: nothing)."""
    if not (args.write_manifest or args.verify_manifest):
        return None

    def step(chunk_index: Any, embedder: Any) -> dict[str, Any]:
        from agentic_bench.tasks.rag_e2e.db_manifest import (
            ManifestError,
            build_manifest,
            read_manifest,
            verify,
            write_manifest,
        )
        from rag_pipeline import load_frames_tsv

        out: dict[str, Any] = {}
        try:
            if args.write_manifest:
                questions = load_frames_tsv(args.frames or "")  # checked: set
                manifest = build_manifest(chunk_index, embedder, questions, embedder.name)
                write_manifest(Path(args.write_manifest), manifest)
                out["written"] = {"path": str(args.write_manifest),
                                  "probes": len(manifest["reference_queries"]),
                                  "total_passages": manifest["total_passages"],
                                  "corpus_set_sha256": manifest["corpus_set_sha256"],
                                  "index_params": manifest["index_params"]}
            if args.verify_manifest:
                reference = read_manifest(Path(args.verify_manifest))
                out["verify"] = {"path": str(args.verify_manifest),
                                 **verify(reference, chunk_index, embedder,
                                          args.retrieval_threshold)}
        except ManifestError as exc:
            raise ConfigError(str(exc)) from exc
        return out

    return step


def manifest_lines(block: dict[str, Any] | None) -> list[str]:
    if not block:
        return []
    lines: list[str] = []
    written = block.get("written")
    if written:
        lines.append(f"  manifest      wrote {written['path']} ({written['probes']} probes, "
                     f"{written['total_passages']:,} passages, corpus set "
                     f"{written['corpus_set_sha256'][:16]})")
    verified = block.get("verify")
    if verified:
        m = verified["metrics"]
        verdict = "PASSED" if verified["passed"] else "FAILED"
        lines.append(f"  verify        {verdict} against {verified['path']}")
        if "retrieval_accuracy" in m:
            lines.append(f"                mean top-10 URL overlap {m['retrieval_accuracy']:.4f} "
                         f"(threshold {m['retrieval_threshold']}), "
                         f"{m['probe_queries_full_match']}/{m['probe_queries_total']} probes "
                         f"fully matched, top-1 {m['retrieval_top1_rate']:.3f}; corpus set "
                         + ("matches" if m.get("corpus_set_matches") else "differs")
                         + " (reported, not gated)")
        lines += [f"                fails: {f}" for f in verified["failures"]]
    return lines
