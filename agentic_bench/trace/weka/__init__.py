"""Weka traces (coding agents with subagents, KV-cache block hashes instead of text): the
format's models, a streaming reader, the tree's timeline and the conversion into the native
session tree the replayer runs. docs/agentx.md says how each rule was chosen."""

from agentic_bench.trace.weka.convert import weka_session
from agentic_bench.trace.weka.model import WekaRow, WekaSubagent, WekaTrace
from agentic_bench.trace.weka.reader import WekaCorpus, WekaSpot, scan, weka_files

__all__ = ["WekaCorpus", "WekaRow", "WekaSpot", "WekaSubagent", "WekaTrace", "scan",
           "weka_files", "weka_session"]
