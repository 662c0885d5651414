"""MLPerf submission packages from our result folders (``agentic-bench submission pack``).

See docs/submission.md. :func:`pack` lays out run folders of ``run rag-e2e --mlperf`` (LoadGen
logs) and ``run agentic-edge`` (endpoints-format artifacts) as
``<division>/<submitter>/{results,systems,code,src,documentation,measurements}/…`` and
returns what it wrote (:class:`Packed`); :func:`read_run` checks one result folder
(:class:`RunFolder`, its :class:`Benchmark` among :data:`BENCHMARKS`); :func:`report` lists
(:class:`Report`) what the submitter still has to fill in (marked :data:`FILL`) or produce,
and :func:`describe` says it in words; :func:`departures` lists a run's departures from
MLPerf's configuration (refused in the closed division; :data:`DIVISIONS`); :func:`seal`
hashes an accuracy log into ``accuracy.txt`` and truncates it as MLCommons' tooling does
(:func:`truncated_text`).
"""

from agentic_bench.submission.missing import Report, departures, report
from agentic_bench.submission.pack import DIVISIONS, Packed, describe, pack
from agentic_bench.submission.runs import BENCHMARKS, Benchmark, RunFolder, read_run
from agentic_bench.submission.templates import FILL
from agentic_bench.submission.truncate import seal, truncated_text

__all__ = ["BENCHMARKS", "DIVISIONS", "FILL", "Benchmark", "Packed", "Report", "RunFolder",
           "departures", "describe", "pack", "read_run", "report", "seal", "truncated_text"]
