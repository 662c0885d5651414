"""Weka traces (coding agents with subagents, KV-cache block hashes instead of text): the
format's models, a streaming reader, the tree's timeline and the conversion into the native
session tree the replayer runs. docs/agentx.md says how each rule was chosen.

The models: a :class:`WekaTrace` of :class:`WekaRow` s (one LLM call each) and
:class:`WekaSubagent` s. :func:`weka_files` lists a path's trace files; :func:`scan` checks
every trace (where each is: a :class:`WekaSpot`) and :class:`WekaCorpus` is the checked
whole; :func:`weka_session` converts one trace into a session tree.
"""

from agentic_bench.trace.weka.convert import weka_session
from agentic_bench.trace.weka.model import WekaRow, WekaSubagent, WekaTrace
from agentic_bench.trace.weka.reader import WekaCorpus, WekaSpot, scan, weka_files

__all__ = ["WekaCorpus", "WekaRow", "WekaSpot", "WekaSubagent", "WekaTrace", "scan",
           "weka_files", "weka_session"]
