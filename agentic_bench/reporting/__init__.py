"""Reporting: a run's outputs — summary.json, summary.txt, report.html — and run comparison.

:func:`write_summary` writes ``summary.json`` (atomically) and :func:`render_text` its
``summary.txt``; :func:`render_report` / :func:`write_report` make ``report.html``;
:func:`compare_rows`, :func:`render_compare_text` and :func:`write_compare_html` put several
runs side by side (``agentic-bench compare``).
"""

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
