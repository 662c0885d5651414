"""MLPerf submission packages from our result folders (``agentic-bench submission pack``).

See docs/submission.md. :func:`pack` lays out run folders of ``run rag-e2e --mlperf`` (LoadGen
logs) and ``run agentic-edge`` (endpoints-format artifacts) as
``<division>/<submitter>/{results,systems,code,src,documentation,measurements}/…``;
:func:`report` lists what the submitter still has to fill in or produce; :func:`seal` hashes an
accuracy log into ``accuracy.txt`` and truncates it as MLCommons' tooling does.
"""

from agentic_bench.submission.missing import Report, departures, report
from agentic_bench.submission.pack import DIVISIONS, Packed, describe, pack
from agentic_bench.submission.runs import BENCHMARKS, Benchmark, RunFolder, read_run
from agentic_bench.submission.templates import FILL
from agentic_bench.submission.truncate import seal, truncated_text

__all__ = ["BENCHMARKS", "DIVISIONS", "FILL", "Benchmark", "Packed", "Report", "RunFolder",
           "departures", "describe", "pack", "read_run", "report", "seal", "truncated_text"]
