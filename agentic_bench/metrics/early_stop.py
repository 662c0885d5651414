"""Stop a run whose endpoint cannot serve it: when the first N requests have all failed, no
more sessions are issued (in-flight ones finish) and the run says why — "8/8 requests failed:
HTTP 404 ..." — in the terminal, summary.txt and the report's banner, rather than running to
the end and reporting "missing turns". ``--stop-after-failures N`` (default 8; 0 = never);
``--agentx`` turns it off, as AgentX judges errors by its own rules (overflow and error
rates).

The live failed-request abort (``--failed-request-threshold RATIO``; ``--agentx``: 0.10, the
``agentx`` preset's ``failed_request_threshold``, agentx-harness 1.0.12
``records/records_manager.py`` 583-593 and 694-755): once at least ``floor`` =
max(concurrency, 10) measured responses have come back (context overflows left out, as
AIPerf's records drop them), failed / (ok + failed) above RATIO stops the measured phase
(stop reason ``failed_request_threshold``; requests in flight finish, the summary is written
from what was measured, and the run reads INVALID).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

DEFAULT_FIRST = 8


class FailureCauses:
    """Failed LLM requests by (error type, HTTP status), with the first error text of each:
    what :func:`cause` names, kept as the records go by."""

    def __init__(self) -> None:
        self.kinds: Counter[tuple[Any, Any]] = Counter()
        self.examples: dict[tuple[Any, Any], str] = {}

    def add(self, r: dict[str, Any]) -> None:
        """A failed (not retried) LLM step record of the measured run."""
        key = (r.get("error_type"), r.get("http_status"))
        self.kinds[key] += 1
        self.examples.setdefault(key, str(r.get("error") or ""))

    def cause(self) -> str | None:
        """The most common failure, as one line (None when none failed)."""
        if not self.kinds:
            return None
        (etype, status), _ = self.kinds.most_common(1)[0]
        what = f"HTTP {status}" if status else str(etype or "error")
        detail = _message(self.examples[(etype, status)], what)
        return f"{what}: {detail}" if detail else what


def cause(records: Iterable[dict[str, Any]]) -> str | None:
    """The most common failure of failed LLM requests, as one line (None when none failed)."""
    causes = FailureCauses()
    for r in records:
        if (r.get("type") == "step" and r.get("kind") == "llm"
                and r.get("status") not in ("ok", "retried") and not r.get("warmup")):
            causes.add(r)
    return causes.cause()


def _message(error: str, what: str) -> str:
    """The readable part of an error text: without a repeated "HTTP 404:" prefix, and the
    ``error.message`` of an OpenAI-style JSON body."""
    import json

    text = error.removeprefix(what).lstrip(": ").strip()
    if _HTML.search(text[:512]):  # a proxy's or a non-OpenAI server's HTML error page
        return _html_text(text)
    try:
        body = json.loads(text)
    except ValueError:
        body = None
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message") if isinstance(inner, dict) else inner
        if isinstance(message, str) and message:
            text = message
    return " ".join(text.split())[:140]


def failure_note(summary_counts: dict[str, Any],
                 records: Iterable[dict[str, Any]] | FailureCauses) -> str | None:
    """"n/n requests failed: <cause>" when no request succeeded (None otherwise)."""
    requests = summary_counts.get("requests", 0)
    if not requests or summary_counts.get("requests_ok", 0):
        return None
    why = records.cause() if isinstance(records, FailureCauses) else cause(records)
    return f"{requests}/{requests} requests failed: {why or 'error'}"


_HTML = re.compile(r"<(!doctype\s+html|html|head|body|title)\b", re.IGNORECASE)


def _html_text(page: str) -> str:
    """An HTML error page as one readable line: its title, else its text without tags."""
    import html

    title = re.search(r"<title[^>]*>(.*?)</title>", page, re.IGNORECASE | re.DOTALL)
    if title and title.group(1).strip():
        text = title.group(1)
    else:
        body = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.IGNORECASE | re.DOTALL)
        text = re.sub(r"<[^>]*>", " ", body)
    return " ".join(html.unescape(text).split())[:140] + " (an HTML page, not an OpenAI error)"


class FirstFailures:
    """Watches LLM step records; calls ``stop`` once the first ``n`` all failed."""

    def __init__(self, n: int, stop: Callable[[str | None], None] | None = None, *,
                 threshold: float | None = None, floor: int = 10) -> None:
        self.n = n
        self.stop = stop  # called with None (the first requests failed) or a message
        self.seen = 0
        self.failed = 0
        self.triggered = False
        self.reason = "all_failed"  # the segment's stop reason once triggered
        self.threshold = threshold  # the live failed-request abort (module doc)
        self.floor = floor
        self.responses = 0  # measured responses, context overflows left out
        self.responses_failed = 0
        self.threshold_note: str | None = None  # what the abort said, once it fired

    def stop_for(self, reason: str, message: str) -> None:
        """Stop issuing for another cause than failed requests (``reason``: the stop reason,
        e.g. ``records_unwritable``; ``message``: the one line that says so)."""
        if self.triggered:
            return
        self.triggered, self.reason = True, reason
        if self.stop is not None:
            self.stop(message)
        else:  # not issuing yet (or LoadGen issues): said now, the segment stops at its start
            import sys

            print(f"stopping: {message}", file=sys.stderr, flush=True)

    def observe(self, record: dict[str, Any]) -> None:
        if (self.triggered or record.get("type") != "step" or record.get("kind") != "llm"
                or record.get("warmup") or record.get("status") == "retried"):
            return
        if self.threshold is not None and not record.get("context_overflow"):
            self._over_threshold(record.get("status") != "ok")
        if self.n <= 0 or self.triggered or self.seen >= self.n:
            return
        self.seen += 1
        self.failed += record.get("status") != "ok"
        if self.seen == self.n and self.failed == self.n:
            self.triggered = True
            if self.stop is not None:
                self.stop(None)

    def _over_threshold(self, failed: bool) -> None:
        """One measured response for the live abort (records_manager.py 694-755: checked after
        every record, armed from the floor on, ``rate > threshold`` fires once)."""
        assert self.threshold is not None
        self.responses += 1
        self.responses_failed += failed
        if self.responses < self.floor:
            return
        rate = self.responses_failed / self.responses
        if rate <= self.threshold:
            return
        self.threshold_note = (
            f"{self.responses_failed}/{self.responses} measured requests failed ({rate:.1%}), "
            f"over the failed-request threshold of {self.threshold:.1%} (AgentX "
            "failed_request_threshold): the measured phase stopped early")
        self.stop_for("failed_request_threshold", self.threshold_note)


__all__ = ["DEFAULT_FIRST", "FailureCauses", "FirstFailures", "cause", "failure_note"]
