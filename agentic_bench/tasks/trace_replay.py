"""The plain replay workload: sessions of a validated trace file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentic_bench.contracts import SessionSource, Workload
from agentic_bench.errors import UsageError
from agentic_bench.trace.jsonl import TraceFile
from agentic_bench.trace.model import Session
from agentic_bench.trace.stats import prefix_ceiling
from agentic_bench.workload import replay_executor

# how a worker process rebuilds a trace replay (load/shard_worker.py imports this by name)
TRACE_RECIPE = "agentic_bench.tasks.trace_replay:trace_workload"


def trace_workload(path: Path, name: str = "replay", fmt: str = "native",
                   synthesis: Any = None, max_context: int | None = None) -> Workload:
    """The workload of a trace file; a Weka trace (file, directory or corpus; recognised
    also under the default format) becomes a tree workload run in lanes
    (:mod:`agentic_bench.tasks.weka_replay`)."""
    from agentic_bench.trace.importers import detect_format

    if fmt in ("native", "auto", "weka") and (fmt == "weka" or detect_format(path) == "weka"):
        from agentic_bench.tasks.weka_replay import weka_workload

        return weka_workload(Path(path), name, synthesis, max_context)
    if max_context is not None:
        raise UsageError("--max-context applies to Weka traces only")
    if fmt != "native":
        from agentic_bench.trace.importers import import_file, resolve_format

        fmt = resolve_format(fmt, path)
    if fmt != "native":
        sessions = list(import_file(fmt, path))  # TraceError (exit 2) before anything is sent
        source = SessionSource(len(sessions), sessions.__getitem__,
                               [s.start_offset_s for s in sessions])
        identity = {"trace": str(path), "trace_format": fmt, "trace_sessions": len(sessions)}
        return _with_blocks(Workload(name=name, source=source, make_executor=replay_executor,
                                     info={**identity, "prefix_ceiling": prefix_ceiling(sessions)},
                                     identity=identity,
                                     recipe=(TRACE_RECIPE, (Path(path).resolve(),),
                                             {"name": name, "fmt": fmt})), sessions, synthesis)
    from agentic_bench.trace.importers import foreign_format_hint

    hint = foreign_format_hint(path)
    if hint is not None:
        raise UsageError(hint)
    trace = TraceFile(path)  # raises TraceError (exit 2) before anything is sent
    cache = [trace.session(i) for i in range(len(trace))] if len(trace) <= 100_000 else None
    offsets = [s.start_offset_s for s in cache] if cache is not None else None
    get = cache.__getitem__ if cache is not None else trace.session
    source = SessionSource(len(trace), get, offsets)
    identity = {"trace": str(path), "trace_sessions": len(trace)}  # as before the ceiling
    info: dict[str, object] = dict(identity)
    if cache is not None:  # computed before the run, never on the measured path
        info["prefix_ceiling"] = prefix_ceiling(cache)
    workload = Workload(name=name, source=source, make_executor=replay_executor, info=info,
                        identity=identity,
                        recipe=(TRACE_RECIPE, (Path(path).resolve(),), {"name": name}))
    return _with_blocks(workload, cache if cache is not None else [trace.session(0)], synthesis)


def _with_blocks(workload: Workload, sessions: list[Session], synthesis: Any) -> Workload:
    """``workload`` as it must run when its prompts are given as blocks (a trace imported from
    Weka, TraceLab or Dynamo, say): the run's tokenizer and vocabulary loaded by ``prepare``
    before the first request, and the replayer writing prompts with them. Its recipe carries
    the synthesis options, so a worker process rebuilds it and runs ``prepare`` there."""
    if not any(s.token_blocks is not None for s in sessions):
        return workload
    from dataclasses import replace

    from agentic_bench.options.replay import SynthesisOptions
    from agentic_bench.replay.tree import Synthesis
    from agentic_bench.tasks.weka_replay import block_synthesis

    make_executor, prepare = block_synthesis(Synthesis(synthesis or SynthesisOptions()))
    recipe = workload.recipe
    if recipe is not None:
        recipe = (recipe[0], recipe[1], {**recipe[2], "synthesis": synthesis})
    return replace(workload, make_executor=make_executor, prepare=prepare, recipe=recipe)
