"""Re-score a finished agentic-edge run under MLPerf's rule for error events in a 200 stream.

Before #43 our transport failed a request whose HTTP 200 stream carried ``data: {"error": ...}``
(``context_overflow`` / ``http_status``, ``error event in stream: ...``), and the phases counted
it unanswered. mlcommons/endpoints ea332753 drops that frame and completes the request with
what arrived (:mod:`agentic_bench.transport.sse`), so the turn is observed and scored.

This rewrites such records of a run's ``records.jsonl`` (or ``.gz``) in place, where the
records show what arrived: the step record keeps ``output_tokens`` counted from the chunks
(``token_source: chunks``), so ``0`` with no first token means no chunk before the event
carried content, reasoning or a tool call. Those requests become ``ok`` with ``stream_error``;
their inline score (IoU of the empty reply: 0 where the turn has ground truth) or their BFCL
sample (already scored as the empty reply) is answered; their turn and session are recounted.
The old values stay in each changed record under ``rescored``. A request where something did
arrive cannot be re-scored (the records keep no reply text of a failed request): it is left as
it was and counted. The old code stopped reading at the event, so a frame after it is not
known from the records; with the embedded server of those runs none follows but ``[DONE]``
(llama-cpp-python ``server/app.py``: the handler's event, then ``[DONE]``; that server was
removed from the embedded endpoint on 2026-12-06, its records stay re-scorable).

Run ``python -m agentic_bench.tasks.agentic_edge.rescore_stream_errors RUN_DIR``, then
``agentic-bench report RUN_DIR`` (summary, gates and MLPerf's artifacts from the records).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

from agentic_bench.records.stream import encode_record, run_records_path
from agentic_bench.transport.sse import STREAM_ERROR, dropped_note

_OLD = f"{STREAM_ERROR}: "
ISSUE = "#43"

Record = dict[str, Any]


def old_stream_error(step: Record) -> str | None:
    """The error event's text of a request the old rule failed on it, else None."""
    error = step.get("error")
    if (step.get("type") == "step" and step.get("kind") == "llm"
            and step.get("status") == "error" and step.get("http_status") == 200
            and isinstance(error, str) and error.startswith(_OLD)):
        return error[len(_OLD):]
    return None


def nothing_arrived(step: Record) -> bool:
    """No chunk carried content, reasoning or a tool call (counted from the chunks)."""
    return (step.get("output_tokens") == 0 and step.get("token_source") == "chunks"
            and step.get("t_first_token_ns") is None)


def _was(record: Record, *keys: str) -> Record:
    return {"issue": ISSUE, "was": {k: record[k] for k in keys if k in record}}


def _step(step: Record, text: str) -> Record:
    out = {k: v for k, v in step.items() if k not in ("error_type", "error")}
    out.update(status="ok", tool_calls=[], content_chars=0, stream_error=dropped_note(text),
               rescored=_was(step, "status", "error_type"))
    return out


def rescore(records: list[Record]) -> tuple[list[Record], dict[str, int]]:
    """The records with MLPerf's rule applied (same order); and what changed."""
    fixed: dict[int, str] = {}  # index of a re-scored step -> its stream_error
    left = 0
    for i, r in enumerate(records):
        text = old_stream_error(r)
        if text is not None:
            if nothing_arrived(r):
                fixed[i] = dropped_note(text)
            else:
                left += 1
    steps = {i: records[i] for i in fixed}
    by_turn = {(s["session_id"], s.get("mlperf_turn")): fixed[i] for i, s in steps.items()}
    by_session = Counter(s["session_id"] for s in steps.values())
    out = [_step(r, old_stream_error(r) or "") if i in fixed else r
           for i, r in enumerate(records)]
    failed_turns = {(r["session_id"], r.get("turn")) for r in out
                    if r.get("type") == "step" and r.get("status") in ("error", "cancelled")}
    counts = Counter(steps=len(fixed), not_rescorable=left)
    for i, r in enumerate(out):
        kind, sid = r.get("type"), r.get("session_id")
        if kind == "inline_score" and (sid, r.get("mlperf_turn")) in by_turn \
                and not r["answered"]:
            out[i] = {**{k: v for k, v in r.items() if k != "reason"}, "answered": True,
                      # IoU of the empty reply: |{} & G| / |G| = 0 where there is ground truth
                      "score": 0.0 if r["scorable"] else None,
                      "stream_error": by_turn[(sid, r.get("mlperf_turn"))],
                      "rescored": _was(r, "answered", "score", "reason")}
            counts["inline_scores"] += 1
        elif kind == "sample" and sid in by_session and not r.get("answered"):
            # already scored as the empty reply (a failed native request), which is what arrived
            out[i] = {**{k: v for k, v in r.items() if k != "scored_as"}, "answered": True,
                      "completed": True, "rescored": _was(r, "answered", "scored_as")}
            counts["samples"] += 1
        elif kind == "turn" and sid in by_session and r.get("status") != "ok" \
                and (sid, r.get("turn")) not in failed_turns:
            out[i] = {**r, "status": "ok", "rescored": _was(r, "status")}
            counts["turns"] += 1
    for i, r in enumerate(out):
        sid = r.get("session_id")
        if r.get("type") == "session" and sid in by_session:
            ok_turns = sum(1 for t in out if t.get("type") == "turn"
                           and t.get("session_id") == sid and t.get("status") == "ok")
            errors = int(r.get("errors", 0)) - by_session[sid]
            ok = ok_turns == r.get("turns") and errors == 0 and not r.get("aborted")
            out[i] = {**r, "errors": errors, "turns_ok": ok_turns,
                      "status": "ok" if ok else r["status"],
                      "rescored": _was(r, "status", "errors", "turns_ok")}
            counts["sessions"] += 1
    return out, dict(counts)


def rewrite(run_dir: Path) -> dict[str, Any]:
    """Apply :func:`rescore` to the run's records file in place (unchanged lines kept as
    written); returns the counts."""
    path = run_records_path(run_dir)
    opener: Any = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as fh:
        lines = [line for line in fh.read().splitlines() if line.strip()]
    records = [json.loads(line) for line in lines]
    out, counts = rescore(records)
    tmp = path.with_name(path.name + ".tmp")
    raw = b"".join(line + b"\n" if new is old else encode_record(new)
                   for line, old, new in zip(lines, records, out, strict=True))
    if path.suffix == ".gz":
        with open(tmp, "wb") as fh, gzip.GzipFile(fileobj=fh, mode="wb", mtime=0) as gz:
            gz.write(raw)
    else:
        tmp.write_bytes(raw)
    os.replace(tmp, path)
    return {"records": str(path), **counts}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run", type=Path, help="the run's folder (records.jsonl or .gz)")
    print(json.dumps(rewrite(ap.parse_args(argv).run)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
