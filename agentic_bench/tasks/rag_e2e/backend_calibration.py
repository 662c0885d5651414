"""``--embed-backend auto``: the embedding backend this machine runs fastest, among those whose
retrieval stays within :data:`RECALL_SLACK` recall@10 of fp32 — measured once, then cached
(#33 item 4).

The calibration embeds the passages of :data:`QUESTIONS` seeded HotpotQA questions (chunked as
rag-e2e chunks them, about 3,600 chunks) with each of :data:`CANDIDATES` in turn, times the
embedding call alone, and asks the questions against each backend's vectors with exact search
(recall@10: the share of a question's gold titles among the titles of its top ten chunks —
the figure of ``benchmarks/rag_embed_backends.py``, which uses the same function). The choice
is the fastest backend whose recall@10 is at least fp32's minus the slack (fp32 always
qualifies); speeds within :data:`SPEED_TIE` count as equal, and the better recall@10 decides
between them. About two minutes on 2 cores, once per machine and model: the figures and the
choice are kept in ``<cache>/embed-backend-calibration.json`` under a key naming the CPU
(model, the instruction sets that decide bf16 and int8 speed, cores) and the torch,
onnxruntime and sentence-transformers versions, so another machine, or an upgrade, calibrates
again.

Each backend builds its own index (``+bf16``, ``onnx-int8:`` in the embedder's name), so a run
with ``auto`` on two machines may retrieve with different vectors; the MLPerf preset lists any
backend but fp32 as a departure (:mod:`.mlperf_config`).
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from agentic_bench.tasks.rag_e2e.embedder_backends import build_embedder

CANDIDATES = ("torch", "torch-bf16", "onnx-int8")
RECALL_SLACK = 0.005  # #33 item 4: recall@10 within 0.005 of fp32
SPEED_TIE = 0.05  # speeds this close are one (two runs of a backend differ by up to 4 %)
QUESTIONS = 300
SEED = 42
CACHE_FILE = "embed-backend-calibration.json"
_FLAGS = ("amx_bf16", "amx_int8", "amx_tile", "avx512_bf16", "avx512_vnni", "avx512f",
          "avx_vnni", "avx2")

Figures = dict[str, dict[str, float]]  # backend → {"passages_per_s", "recall@10"}
Measure = Callable[[str, Path], tuple[Figures, int]]  # (figures, passages embedded)


@dataclass(frozen=True)
class Calibration:
    """What ``auto`` chose on this machine for one embedder, and the figures it chose by."""

    chosen: str
    figures: Figures
    passages: int
    embedder: str
    machine: dict[str, Any]
    measured_at: str
    seconds: float = 0.0  # the calibration's wall time, loading the data and models included

    def line(self) -> str:
        """One line: the choice, then each backend's passages/s and recall@10."""
        each = ", ".join(f"{b} {f['passages_per_s']:.1f}/s recall@10 {f['recall@10']:.4f}"
                         for b in CANDIDATES if (f := self.figures.get(b)))
        return (f"--embed-backend auto: {self.chosen} ({each}; measured {self.measured_at} in "
                f"{self.seconds:.0f} s)")


def machine() -> dict[str, Any]:
    """What decides the backends' speed here: the CPU and the libraries that run them."""
    model, flags = platform.processor() or platform.machine(), set[str]()
    try:
        for text in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = text.partition(":")
            if key.strip() == "model name":
                model = value.strip()
            elif key.strip() == "flags":
                flags = set(value.split())
                break
    except OSError:
        pass
    from importlib.metadata import PackageNotFoundError, version

    libraries: dict[str, str | None] = {}
    for name in ("torch", "onnxruntime", "sentence-transformers"):
        try:
            libraries[name] = version(name)
        except PackageNotFoundError:
            libraries[name] = None
    return {"cpu": model, "flags": sorted(flags & set(_FLAGS)), "cores": os.cpu_count(),
            "libraries": libraries}


def cache_key(embedder: str, where: dict[str, Any]) -> str:
    text = json.dumps({"embedder": embedder, **where}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def choose(figures: Figures, slack: float = RECALL_SLACK) -> str:
    """The fastest backend whose recall@10 is at least fp32's minus ``slack``; of those within
    :data:`SPEED_TIE` of the fastest (as close as two runs of one backend differ), the one
    with the best recall@10."""
    floor = figures["torch"]["recall@10"] - slack
    fit = [b for b in CANDIDATES if b in figures and figures[b]["recall@10"] >= floor - 1e-12]
    fastest = max(figures[b]["passages_per_s"] for b in fit)
    near = [b for b in fit if figures[b]["passages_per_s"] >= fastest * (1 - SPEED_TIE)]
    return max(near, key=lambda b: (figures[b]["recall@10"], figures[b]["passages_per_s"]))


def calibrated(embedder: str, cache_dir: Path, *, measure: Measure | None = None,
               say: Callable[[str], None] | None = None) -> Calibration:
    """This machine's calibration for ``embedder`` (a name :func:`make_embedder` takes): read
    from the cache, else measured now (announced on stderr) and cached."""
    say = say or (lambda text: print(text, file=sys.stderr, flush=True))
    where = machine()
    key = cache_key(embedder, where)
    path = cache_dir / CACHE_FILE
    kept = _read(path)
    if isinstance(kept.get(key), dict):
        try:
            found = Calibration(**kept[key])
            found = replace(found, chosen=choose(found.figures))  # today's rule, kept figures
            say(found.line())
            return found
        except (TypeError, KeyError, ValueError):
            say(f"{path}: entry {key} unreadable; calibrating again")
    say(f"--embed-backend auto: calibrating {', '.join(CANDIDATES)} on this machine (once; "
        f"{QUESTIONS} HotpotQA questions' passages each, exact search; cached in {path})")
    started = time.perf_counter()
    figures, passages = (measure or measure_backends)(embedder, cache_dir)
    found = Calibration(choose(figures), figures, passages, embedder, where,
                        time.strftime("%Y-%m-%d", time.gmtime()),
                        round(time.perf_counter() - started, 1))
    kept[key] = asdict(found)
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(kept, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(path)
    say(found.line())
    return found


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def recall_at_10(vectors: Any, queries: Any, titles: Sequence[str],
                 gold: Sequence[Sequence[str]]) -> float:
    """Mean over questions of the share of their gold titles among their top ten chunks'
    titles (exact inner-product search)."""
    import numpy as np

    from rag_pipeline import FlatIndex

    index = FlatIndex(vectors.shape[1])
    index.add(vectors, [str(i) for i in range(len(vectors))])
    found = []
    for row, want in zip(index.search(queries, 10), gold, strict=True):
        got = {titles[int(i)] for i, _ in row}
        found.append(len(got & set(want)) / len(want))
    return float(np.mean(found))


@dataclass(frozen=True)
class Probe:
    """What a backend is measured on: the passages (chunked as rag-e2e chunks them, each
    chunk's title) and the questions with their gold titles."""

    texts: list[str]
    titles: list[str]
    asked: list[str]
    gold: list[tuple[str, ...]]

    def recall_at_10(self, embedder: Any, vectors: Any) -> float:
        """``embedder``'s recall@10 over ``vectors`` (its embedding of :attr:`texts`)."""
        return recall_at_10(vectors, embedder.embed_queries(self.asked), self.titles, self.gold)


def hotpotqa_probe(questions: int = QUESTIONS, seed: int = SEED) -> Probe:
    """``questions`` seeded HotpotQA questions and their own paragraphs (the calibration's
    and ``benchmarks/rag_embed_backends.py``'s probe)."""
    from rag_pipeline import chunk_documents, load_hotpotqa, pooled_corpus, sample_questions

    chosen = sample_questions(load_hotpotqa(), questions, seed)
    chunks = chunk_documents(pooled_corpus(chosen))
    return Probe([c.passage_text() for c in chunks], [c.title for c in chunks],
                 [q.question for q in chosen], [tuple(q.supporting_titles) for q in chosen])


def measure_backends(embedder: str, cache_dir: Path,
                     questions: int = QUESTIONS) -> tuple[Figures, int]:
    """Each candidate's passages/s (the embedding call alone, after a warm-up that loads — and
    for onnx-int8 exports — the model) and recall@10, on the same passages."""
    probe = hotpotqa_probe(questions)
    figures: Figures = {}
    for backend in CANDIDATES:
        model = build_embedder(embedder, None, None, True, backend, cache_dir=cache_dir)
        model.embed_queries(["warm-up"])
        started = time.perf_counter()
        vectors = model.embed_passages(probe.texts)
        seconds = time.perf_counter() - started
        figures[backend] = {"passages_per_s": round(len(probe.texts) / seconds, 2),
                            "recall@10": round(probe.recall_at_10(model, vectors), 4)}
    return figures, len(probe.texts)


__all__ = ["CANDIDATES", "RECALL_SLACK", "SPEED_TIE", "Calibration", "Probe", "calibrated",
           "choose", "hotpotqa_probe", "machine", "measure_backends", "recall_at_10"]
