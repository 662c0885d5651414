"""Where an agentic-edge run differs from MLPerf's reference without an option causing it (#43).

Two kinds, both listed in the run's ``mlperf`` block (``summary.json`` → ``workload.mlperf``;
``summary.txt`` under ``Config``):

* :data:`NOTES` — differences by design that no option changes: ``notes``, listed in every run
  whose phases they touch (``performance`` = MLCommons' coding conversations, ``accuracy`` =
  the BFCL phase, ``both`` = either). docs/agentic-edge.md "Differences by design" lists the
  same keys with the same texts (a test holds the two together).
* :func:`run_state_departures` — what the run's own course makes a departure: a run that
  stopped before its end (interrupted), whose ``result_summary.json`` says ``interrupted`` where
  the reference writes ``complete``. Added to ``departures`` once the records are in.

The reference is mlcommons/endpoints ea332753, paths under ``src/inference_endpoint/``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple


class Note(NamedTuple):
    phase: str  # "performance", "accuracy" or "both"
    text: str


NOTES: dict[str, Note] = {
    "request-cancelled": Note(
        "performance",
        "a request past the turn timeout, or in flight at the 4-h cap, is cancelled here (its "
        "connection closed, so the server stops generating); the reference abandons it "
        "(load_generator/agentic_inference_strategy.py 477-522, session.py 395-413 and "
        "592-598: a late reply is dropped) and a -np 1 server keeps generating it before the "
        "next request. The turn's accounting is the same"),
    "no-session-header": Note(
        "performance",
        "no X-Session-ID header with the conversation id (the reference sends it, "
        "load_generator/session.py 244-248, for session-affinity routers; the model never "
        "reads it)"),
    "tokens-from-usage": Note(
        "performance",
        "result_summary.json's token series and TPOT come from the server's usage counts, not "
        "the reference's tokenizer (metrics_aggregator/metrics_table.py 381-397)"),
    "warm-connection": Note(
        "both",
        "one keep-alive connection is opened (GET /models) before the first measured request; "
        "the reference opens none (online_edge_full_run.yaml 109 warmup_connections: 0), so "
        "its first request also pays the connect"),
    "stale-connection-resent": Note(
        "both",
        "a request sent on a reused keep-alive connection the server had already closed (no "
        "byte came back) is sent again on a fresh connection, unrecorded; the reference drops "
        "idle connections a poll finds closed before use (endpoint_client/http.py 421-456, "
        "498-513) and fails a request whose connection dies anyway (worker.py 377-379)"),
    "stream-options": Note(
        "both",
        "stream_options {include_usage: true} is added to every request (the server's token "
        "counts; the same tokens are generated) and the model field carries the name the "
        "server lists (the reference sends its configured name)"),
    "stream-error-kept": Note(
        "both",
        "an error event inside a 200 stream is dropped as the reference drops it "
        "(endpoint_client/adapter_protocol.py 47, openai/openai_msgspec_adapter.py 125-130), "
        "and also kept in the step record (stream_error) and counted "
        "(accuracy.inline.stream_errors)"),
    "scoring-exception": Note(
        "accuracy",
        "where the reference's whole BFCL scoring pass aborts (an exception in bfcl-eval's "
        "ast_checker, text-call arguments json.dumps cannot encode, an ast.literal_eval error "
        "extractor.py 586-587 does not catch; uncaught up to commands/benchmark/accuracy.py "
        "284, no accuracy_results.json), only that sample scores 0 here, with the reason"),
}

INTERRUPTED = (
    "the run stopped before its end ({done} of {planned} planned sessions finished): "
    "performance/result_summary.json says \"state\": \"interrupted\", \"complete\": false, "
    "where the reference writes \"complete\" / true after Ctrl-C (its metrics aggregator "
    "ignores SIGINT: async_utils/services/metrics_aggregator/__main__.py 290-320)")


def notes(mode: str, mlcommons_trace: bool, samples: int | None) -> list[str]:
    """The notes of a run with these phases (``mode``; the performance phase counts only on
    MLCommons' conversations, the accuracy phase only with single-turn samples)."""
    perf = mode in ("performance", "both") and mlcommons_trace
    acc = mode in ("accuracy", "both") and samples != 0
    wanted = {"performance": perf, "accuracy": acc, "both": perf or acc}
    return [note.text for note in NOTES.values() if wanted[note.phase]]


def finished_sessions(records: Iterable[dict[str, Any]]) -> int:
    """Sessions with a session record (a resumed, retried one counted once)."""
    return len({r.get("source_session", r.get("session_id")) for r in records
                if r.get("type") == "session"})


def run_state_departures(records: list[dict[str, Any]], planned: int) -> list[str]:
    """The departures the run's course causes: an interrupted run (fewer sessions finished
    than planned)."""
    done = finished_sessions(records)
    return [INTERRUPTED.format(done=done, planned=planned)] if done < planned else []


def with_run_state(block: dict[str, Any], records: list[dict[str, Any]],
                   planned: int, name: str) -> dict[str, Any]:
    """``block`` (the run's ``mlperf`` block before it ran) with the run-state departures."""
    gone = [*block.get("departures", []), *run_state_departures(records, planned)]
    return {**block, "configuration": name if not gone else f"not {name}", "departures": gone}


__all__ = ["INTERRUPTED", "NOTES", "Note", "finished_sessions", "notes", "run_state_departures",
           "with_run_state"]
