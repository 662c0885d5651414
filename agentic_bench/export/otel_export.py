"""A run's spans to an OpenTelemetry collector over OTLP/HTTP: ``agentic-bench export RUN_DIR
--to otel --out URL`` after the fact, or ``--otel-endpoint URL`` as a run ends.

Here ``--out`` is not a file but the collector's OTLP/HTTP endpoint: a base URL
(``http://host:4318``: ``/v1/traces`` is added, as ``OTEL_EXPORTER_OTLP_ENDPOINT`` does) or the
full traces URL (``http://host:4318/v1/traces``); nothing is written to disk, so
:func:`export_otel` returns no paths. The spans are :mod:`.otel_spans`' mapping of the records;
the OpenTelemetry SDK does the rest (opentelemetry-sdk 1.45.2 ``TracerProvider`` and
``BatchSpanProcessor``, opentelemetry-exporter-otlp-proto-http 1.45.2 ``OTLPSpanExporter``:
protobuf ``ExportTraceServiceRequest`` bodies, its retries and timeout). Each span is started
and ended at the records' own instants; its trace and span ids are the deterministic ones of
:mod:`agentic_bench.transport.traceparent`, handed to the SDK by an ``IdGenerator`` that gives
out exactly the next ids the mapping chose. The exporter's own settings from the environment
apply (``OTEL_EXPORTER_OTLP_TRACES_HEADERS`` / ``OTEL_EXPORTER_OTLP_HEADERS`` for an API key,
``..._COMPRESSION``, certificates), and so do ``OTEL_SERVICE_NAME`` and
``OTEL_RESOURCE_ATTRIBUTES`` (service ``agentic-bench`` otherwise).

The packages are optional (``pip install 'agentic-serving-bench[otel]'``) and imported only
here, only when spans are sent. A failed export is an error of the ``export`` command; after a
run it is one warning line and the run stands.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from agentic_bench.errors import UsageError
from agentic_bench.export.otel_spans import RecordsError, SpanSpec, run_spans
from agentic_bench.records.stream import iter_records, run_records_path

if TYPE_CHECKING:
    from opentelemetry.sdk.trace.export import SpanExporter

INSTALL = "pip install 'agentic-serving-bench[otel]'"
TRACES_PATH = "/v1/traces"
FLUSH_EVERY = 1024  # spans handed to the batch processor between flushes (its queue holds 2048)


@dataclass
class SendReport:
    """What one export did: spans and sessions handed over, and why it failed (None: it did
    not)."""

    url: str
    spans: int = 0
    sessions: int = 0
    error: str | None = None


def traces_url(url: str | Path) -> str:
    """The OTLP/HTTP traces URL of ``url``: ``/v1/traces`` added to a bare base URL. A URL that
    went through :class:`~pathlib.Path` (``http:/host`` — the export command's ``--out``) is
    mended. UsageError for anything but an http(s) URL with a host."""
    text = re.sub(r"^(https?):/(?!/)", r"\1://", str(url).strip())
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"{url}: expected the OTLP/HTTP endpoint of an OpenTelemetry "
                         "collector, e.g. http://localhost:4318 or "
                         "http://localhost:4318/v1/traces")
    path = parts.path if parts.path not in ("", "/") else TRACES_PATH
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def require_otel() -> None:
    """UsageError naming the install command when the OpenTelemetry packages are missing."""
    try:
        import opentelemetry.exporter.otlp.proto.http.trace_exporter  # noqa: F401
    except ImportError as exc:
        raise UsageError(f"OpenTelemetry export needs the SDK and the OTLP/HTTP exporter: "
                         f"{INSTALL} ({exc})") from None


def export_otel(run_dir: Path, out: Path) -> list[Path]:
    """``export RUN_DIR --to otel --out URL``: send the run's spans to the collector at ``out``
    (an OTLP/HTTP URL, see the module text); writes no file (returns ``[]``). UsageError when
    the folder holds no records or the collector did not take them."""
    url = traces_url(out)
    report = send_run(run_dir, url)
    if report.error is not None:
        raise UsageError(f"OTLP export to {url} failed after {report.spans} spans: "
                         f"{report.error}")
    print(f"otel: {report.spans} spans of {report.sessions} sessions sent to {url}",
          file=sys.stderr)
    return []


def export_after_run(run_dir: Path, url: str, quiet: bool = False,
                     timeout_s: float | None = None) -> SendReport:
    """``--otel-endpoint URL``: send the finished run's spans; never raises — a failure (no
    collector, no packages, unreadable records) is one warning line on stderr."""
    try:
        report = send_run(run_dir, traces_url(url), timeout_s=timeout_s)
    except Exception as exc:  # the run is done and kept whatever happens here
        report = SendReport(url=str(url), error=f"{type(exc).__name__}: {exc}")
    if report.error is not None:
        print(f"warning: OTLP export to {report.url} failed ({report.error}); the run is "
              f"complete — send it again with `agentic-bench export {run_dir} --to otel "
              f"--out {report.url}`", file=sys.stderr, flush=True)
    elif not quiet:
        print(f"otel: {report.spans} spans of {report.sessions} sessions sent to "
              f"{report.url}", file=sys.stderr, flush=True)
    return report


def send_run(run_dir: Path, url: str, *, timeout_s: float | None = None,
             exporter: SpanExporter | None = None) -> SendReport:
    """Send the spans of the run in ``run_dir`` to ``url`` within ``timeout_s`` per batch
    (None: ``OTEL_EXPORTER_OTLP_TRACES_TIMEOUT``, else the exporter's 10 s; retries included)
    — ``exporter``: another SDK exporter in its place, for tests. UsageError when the folder
    holds no records."""
    path = run_records_path(run_dir)
    if not path.is_file():
        raise UsageError(f"{run_dir}: no records.jsonl (not a run folder)")
    require_otel()
    first = next(iter_records(path), None)
    if first is None or first.get("type") != "run":
        raise UsageError(f"{path}: does not start with a 'run' record")
    try:
        return send_spans(run_spans(iter_records(path)), url, _resource(first),
                          timeout_s=timeout_s, exporter=exporter)
    except RecordsError as exc:
        raise UsageError(f"{path}: {exc}") from None


def send_spans(batches: Iterable[list[SpanSpec]], url: str, resource: dict[str, Any],
               *, timeout_s: float | None = None,
               exporter: SpanExporter | None = None) -> SendReport:
    """Hand each session's spans to the SDK's batch processor and flush; stop at the first
    failed export (a dead collector costs one timeout, not one per batch)."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor
    from opentelemetry.sdk.trace.sampling import ALWAYS_ON

    report = SendReport(url=url)
    counting, ids, emit = _adapters(exporter or OTLPSpanExporter(endpoint=url, timeout=timeout_s))
    provider = TracerProvider(sampler=ALWAYS_ON, resource=Resource.create(resource),
                              id_generator=ids, shutdown_on_exit=False)
    processor = BatchSpanProcessor(counting, max_queue_size=2 * FLUSH_EVERY,
                                   max_export_batch_size=min(512, FLUSH_EVERY))
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("agentic_bench.export.otel")
    with _captured_logs() as messages:
        try:
            for spans in batches:
                for spec in spans:
                    emit(tracer, spec)
                    report.spans += 1
                    if report.spans % FLUSH_EVERY == 0:  # the queue never overflows
                        processor.force_flush()
                        if counting.failed:
                            break
                if counting.failed:
                    break
                report.sessions += 1
            processor.force_flush()
        finally:
            provider.shutdown()
    if counting.failed:
        said = list(dict.fromkeys([*counting.errors, *messages]))  # the cause first, then how
        report.error = (" / ".join(said[:1] + said[-1:] if len(said) > 1 else said)[:400]
                        or "the collector refused the spans")
    return report


def _adapters(exporter: SpanExporter) -> tuple[Any, Any, Callable[[Any, SpanSpec], None]]:
    """The SDK pieces made here (the SDK is imported only when spans are sent): an exporter
    that counts failed exports, an id generator that gives out the ids the mapping chose, and
    the function that starts and ends one span of a :class:`SpanSpec` through a tracer."""
    from opentelemetry import trace
    from opentelemetry.context import Context
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
    from opentelemetry.sdk.trace.id_generator import IdGenerator
    from opentelemetry.trace import SpanKind, Status, StatusCode, TraceFlags

    class Counting(SpanExporter):
        def __init__(self, inner: SpanExporter) -> None:
            self.inner, self.failed, self.errors = inner, 0, list[str]()

        def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
            try:
                result = self.inner.export(spans)
            except Exception as exc:  # the batch processor would only log it
                self.errors.append(f"{type(exc).__name__}: {exc}")
                result = SpanExportResult.FAILURE
            self.failed += result is not SpanExportResult.SUCCESS
            return result

        def shutdown(self) -> None:
            self.inner.shutdown()

        def force_flush(self, timeout_millis: int = 30000) -> bool:
            return self.inner.force_flush(timeout_millis)

    class ScriptedIds(IdGenerator):
        trace_id, span_id = 1, 1

        def generate_trace_id(self) -> int:
            return self.trace_id

        def generate_span_id(self) -> int:
            return self.span_id

    counting, ids = Counting(exporter), ScriptedIds()
    kinds = {"client": SpanKind.CLIENT, "internal": SpanKind.INTERNAL}
    sampled = TraceFlags(TraceFlags.SAMPLED)

    def emit(tracer: Any, spec: SpanSpec) -> None:
        ids.trace_id, ids.span_id = spec.trace_id, spec.span_id
        context = Context()  # a root: no parent, whatever the caller's context holds
        if spec.parent_id is not None:
            parent = trace.SpanContext(spec.trace_id, spec.parent_id, is_remote=False,
                                       trace_flags=sampled)
            context = trace.set_span_in_context(trace.NonRecordingSpan(parent))
        span = tracer.start_span(spec.name, context=context, kind=kinds[spec.kind],
                                 attributes=spec.attributes, start_time=spec.start_ns)
        for event in spec.events:
            span.add_event(event.name, event.attributes, timestamp=event.time_ns)
        if spec.error is not None:
            span.set_status(Status(StatusCode.ERROR, spec.error))
        span.end(end_time=spec.end_ns)

    return counting, ids, emit


def _resource(run: dict[str, Any]) -> dict[str, Any]:
    """The resource of a run's spans: the harness, the workload, the endpoint."""
    from agentic_bench import __version__

    found = run.get("endpoint")
    endpoint: dict[str, Any] = found if isinstance(found, dict) else {}
    out: dict[str, Any] = {"service.version": __version__,
                           "agentic_bench.benchmark": str(run.get("benchmark") or "")}
    named = os.environ.get("OTEL_SERVICE_NAME") or \
        "service.name=" in os.environ.get("OTEL_RESOURCE_ATTRIBUTES", "")
    if not named:  # the environment's name wins (the SDK reads it)
        out["service.name"] = "agentic-bench"
    for key in ("kind", "model"):
        if isinstance(endpoint.get(key), str):
            out[f"agentic_bench.endpoint.{key}"] = endpoint[key]
    return out


@contextmanager
def _captured_logs() -> Iterator[list[str]]:
    """The SDK's own warnings and errors while exporting, kept (for the one line that says why
    an export failed) instead of printed."""
    logger = logging.getLogger("opentelemetry")
    messages: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            messages.append(record.getMessage())

    handler, propagate = Keep(logging.WARNING), logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield messages
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


__all__ = ["INSTALL", "SendReport", "export_after_run", "export_otel", "require_otel",
           "send_run", "send_spans", "traces_url"]
