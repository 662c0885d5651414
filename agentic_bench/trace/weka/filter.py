"""``--max-context N``: the rule SemiAnalysis' ``-256k`` corpora were built with (InferenceX
``utils/agentic/datasets/build_weka_hf_dataset.py``, lines 450-543): a request whose ``in +
out`` exceeds N is dropped — the request, not its trace; a subagent is dropped only when none
of its requests is left, a trace only when nothing is left; surviving times are shifted so the
trace starts at 0. Subagent durations stay as recorded. (AIPerf's ``--max-context-length``
drops whole traces instead.)"""

from __future__ import annotations

from agentic_bench.errors import ConfigError
from agentic_bench.trace.weka.model import WekaRow, WekaSubagent, WekaTrace
from agentic_bench.trace.weka.timeline import subagent_times


def fits(row: WekaRow, limit: int) -> bool:
    return row.input_tokens + row.output_tokens <= limit


def drop_over_context(trace: WekaTrace, limit: int) -> WekaTrace:
    entries: list[WekaRow | WekaSubagent] = []
    for entry in trace.requests:
        if isinstance(entry, WekaRow):
            if fits(entry, limit):
                entries.append(entry)
        else:
            rows = [r for r in entry.requests if fits(r, limit)]
            if rows:
                entries.append(entry.model_copy(update={"requests": rows}))
    rows_left = [e for e in entries if isinstance(e, WekaRow)]
    if not rows_left:  # the corpus reader leaves such a trace out (stats.CorpusStats.kept)
        raise ConfigError(f"--max-context {limit}: nothing of trace {trace.id!r} is left")
    first = min([r.t for r in rows_left]
                + [subagent_times(e).spawn_s for e in entries if isinstance(e, WekaSubagent)])
    if first > 0:
        shifted: list[WekaRow | WekaSubagent] = []
        for entry in entries:
            if isinstance(entry, WekaRow):
                shifted.append(entry.model_copy(update={"t": entry.t - first}))
            else:
                relative = subagent_times(entry).relative
                rows = (entry.requests if relative else
                        [r.model_copy(update={"t": r.t - first}) for r in entry.requests])
                shifted.append(entry.model_copy(update={"t": entry.t - first, "requests": rows}))
        entries = shifted
    return trace.model_copy(update={"requests": entries})


__all__ = ["drop_over_context", "fits"]
