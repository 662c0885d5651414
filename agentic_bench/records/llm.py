"""The record of one LLM call, built from its :class:`ChatResult`.

:func:`llm_record` writes the call's instants (ns relative to the run's start, ``t0``) and
outcome, then one field per step metric handed to it: each a ``(field, derive)`` pair whose
``derive`` reads the call's :class:`Timestamps` (the declared metrics' own derivations,
:func:`agentic_bench.metrics.declarations.step_derivations`), so the record names no metric
itself. A derivation that returns ``None`` leaves its field out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agentic_bench.records.client_share import client_share_fields
from agentic_bench.transport.result import ChatResult
from agentic_bench.units import NS_PER_MS

Value = float | list[float] | None
"""What a derivation gives: one number, one per token gap (a list), or nothing."""

Derivation = tuple[str, Callable[["Timestamps"], Value]]
"""``(record field, derive)``: what :func:`llm_record` writes for one step metric."""


@dataclass(frozen=True)
class Timestamps:
    """One request's instants, ns on the harness's monotonic clock (not relative to ``t0``),
    and its output tokens: what a step metric is derived from.

    ``scheduled_ns`` is when the step was due, ``sent_ns`` just before its bytes were written,
    ``first_token_ns`` the first content-carrying chunk (``None``: none came),
    ``token_times_ns`` every content-carrying chunk in order, ``end_ns`` the stream's last
    bytes; ``output_tokens`` is the server's ``usage`` count, else the content-carrying
    chunks."""

    scheduled_ns: int
    sent_ns: int
    end_ns: int
    first_token_ns: int | None
    token_times_ns: Sequence[int]
    output_tokens: int

    @staticmethod
    def ms(ns: int) -> float:
        """A span in nanoseconds as milliseconds."""
        return ns / NS_PER_MS


def result_timestamps(result: ChatResult, scheduled_ns: int) -> Timestamps:
    """The :class:`Timestamps` of one chat call (``scheduled_ns``: when it was due); its output
    tokens are the server's ``usage`` count, else its content-carrying chunks."""
    out = result.output_tokens
    if out is None:
        out = len(result.token_times_ns)  # one content-carrying chunk ≈ one token
    return Timestamps(scheduled_ns, result.t_sent_ns, result.t_end_ns,
                      result.t_first_token_ns, result.token_times_ns, out)


def record_timestamps(record: Mapping[str, Any]) -> Timestamps | None:
    """The :class:`Timestamps` of an LLM step's record (instants relative to the run's
    ``t0``; a record keeps no token times, and a missing end is taken as the send), None when
    it has no send time (a record imported without one)."""
    sent = record.get("t_sent_ns")
    if sent is None:
        return None
    end = record.get("t_end_ns")
    return Timestamps(record.get("t_scheduled_ns", sent), sent, sent if end is None else end,
                      record.get("t_first_token_ns"), (), int(record.get("output_tokens") or 0))


def llm_record(result: ChatResult, t0_ns: int, scheduled_ns: int, *,
               derived: Iterable[Derivation]) -> dict[str, Any]:
    """Timing and outcome fields of one chat call (the caller adds ids and scoring), with one
    field per ``derived`` step metric."""
    stamps = result_timestamps(result, scheduled_ns)
    out = stamps.output_tokens
    rec: dict[str, Any] = {
        "kind": "llm",
        "status": result.status,
        "t_scheduled_ns": scheduled_ns - t0_ns,
        "t_sent_ns": result.t_sent_ns - t0_ns,
        "t_end_ns": result.t_end_ns - t0_ns,
        "schedule_lag_ms": (result.t_sent_ns - scheduled_ns) / NS_PER_MS,
        "input_tokens": result.input_tokens,
        "output_tokens": out,
        "token_source": "usage" if result.output_tokens is not None else "chunks",
        **({"cached_tokens": result.cached_tokens} if result.cached_tokens is not None else {}),
        "chunks": result.chunks,
    }
    if result.t_first_token_ns is not None:
        rec["t_first_token_ns"] = result.t_first_token_ns - t0_ns
    for field, derive in derived:
        value = derive(stamps)
        if value is not None:
            rec[field] = value
    if result.server_timing_ns is not None:  # a timestamping server (records/client_share.py)
        rec["server_timing_ns"] = {k: v - t0_ns for k, v in result.server_timing_ns.items()}
        rec.update(client_share_fields(scheduled_ns, result.t_sent_ns, result.t_first_token_ns,
                                       result.server_timing_ns))
    if result.http_status is not None:
        rec["http_status"] = result.http_status
    if result.restart_wait_ms is not None:  # not latency: the request was sent after the wait
        rec["restart_wait_ms"] = result.restart_wait_ms
    if result.status != "ok":
        rec["error_type"] = result.error_type
        rec["error"] = result.error
    if result.finish_reason:
        rec["finish_reason"] = result.finish_reason
    return rec


__all__ = ["Derivation", "Timestamps", "Value", "llm_record", "record_timestamps",
           "result_timestamps"]
