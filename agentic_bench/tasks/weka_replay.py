"""The replay workload of a Weka corpus: session trees read from disk one at a time, prompts
synthesized with the run's tokenizer (set up by ``prepare`` once the endpoint is open), run in
lanes (:mod:`agentic_bench.load.lanes`). Its recipe rebuilds it in a worker process or Ray actor
(``--workers``, ``--ray-address``: lanes split by lane, :mod:`agentic_bench.load.lane_shards`),
where ``prepare`` runs again against the same endpoint."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from agentic_bench.contracts import ExecContext, Execute, SessionSource, Workload
from agentic_bench.errors import ConfigError
from agentic_bench.options.replay import SynthesisOptions
from agentic_bench.replay.trace_replayer import TraceReplayer
from agentic_bench.replay.tree import Synthesis
from agentic_bench.trace.model import Session
from agentic_bench.trace.weka import WekaCorpus, WekaTrace, weka_session
from agentic_bench.trace.weka.filter import drop_over_context
from agentic_bench.trace.weka.stats import CorpusStats

# how a worker process rebuilds a Weka replay (load/shard_worker.py imports this by name)
WEKA_RECIPE = "agentic_bench.tasks.weka_replay:weka_workload"


def weka_workload(path: Path, name: str = "replay",
                  synthesis: SynthesisOptions | None = None,
                  max_context: int | None = None) -> Workload:
    stats = CorpusStats(max_context)
    corpus = WekaCorpus(path, on_trace=lambda _spot, trace: stats.add(trace))
    held = Synthesis(synthesis or SynthesisOptions())

    kept = stats.kept  # traces with something left under --max-context

    @lru_cache(maxsize=8)
    def tree(index: int) -> Session:
        trace: WekaTrace = corpus.trace(kept[index])
        if max_context is not None:
            trace = drop_over_context(trace, max_context)
        return weka_session(trace)

    make_executor, prepare = block_synthesis(held)
    if not kept:
        raise ConfigError(f"{path}: no trace keeps a request under --max-context {max_context}")
    identity = {"trace": str(path), "trace_format": "weka", "trace_sessions": len(kept),
                **({"max_context": max_context} if max_context is not None else {})}
    return Workload(name=name, source=SessionSource(len(kept), tree), identity=identity,
                    make_executor=make_executor, prepare=prepare, trees=True,
                    info={**identity, "corpus": stats.summary()},
                    recipe=(WEKA_RECIPE, (Path(path).resolve(),),
                            {"name": name, "synthesis": synthesis, "max_context": max_context}))


def block_synthesis(held: Synthesis) -> tuple[Callable[[ExecContext], Execute],
                                              Callable[[str, str | None], dict[str, Any]]]:
    """The executor and ``prepare`` of a workload whose prompts are given as blocks (a Weka
    corpus, or a native trace imported from Weka, TraceLab or Dynamo): ``prepare`` loads the
    run's tokenizer and vocabulary into ``held`` once the endpoint is open, and the executor's
    replayer writes each prompt with them."""

    def make_executor(ctx: ExecContext) -> Execute:
        return TraceReplayer(ctx.transport, ctx.sink, ctx.options, ctx.t0_ns, held).run

    def prepare(url: str, api_key: str | None) -> dict[str, Any]:
        from agentic_bench.synthesis import load_tokenizer, vocabulary

        tokenizer = load_tokenizer(held.options.tokenizer, url, api_key)
        words = vocabulary(tokenizer, held.options.seed)
        held.words, held.tokenizer = words.words, tokenizer.name
        return {"tokenizer": tokenizer.name, "vocabulary_words": len(words.words)}

    return make_executor, prepare


__all__ = ["WEKA_RECIPE", "block_synthesis", "weka_workload"]
