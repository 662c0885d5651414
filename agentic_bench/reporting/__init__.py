"""Run outputs: summary.json, summary.txt (report.html and compare arrive with their issue)."""

from agentic_bench.reporting.files import write_summary
from agentic_bench.reporting.summary_text import render_text

__all__ = ["render_text", "write_summary"]
