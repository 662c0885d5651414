"""Run outputs: summary.json, summary.txt, report.html, and run comparison."""

from agentic_bench.reporting.compare import compare_rows, render_compare_text, write_compare_html
from agentic_bench.reporting.files import write_summary
from agentic_bench.reporting.html import render_report, write_report
from agentic_bench.reporting.summary_text import render_text

__all__ = [
    "compare_rows",
    "render_compare_text",
    "render_report",
    "render_text",
    "write_compare_html",
    "write_report",
    "write_summary",
]
