"""``--resume DIR``: keep what an interrupted run completed, and continue it.

Sessions with a final session record (``ok`` or ``error``) are complete and skipped; records
of sessions that were cancelled or never finished are set aside (the old file is kept as
``records.before-resume-N.jsonl``, nothing is deleted) and those sessions run again. With
``--retry-errors`` sessions that ended in ``error`` (an endpoint that crashed or went away for a
while) are set aside and run again too.
Run durations add up over segments (``segment`` records).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentic_bench.errors import ConfigError
from agentic_bench.records.stream import RecordStream, encode_record
from agentic_bench.records.types import check_version

COMPARED = ("load", "history", "think_time", "overrides", "endpoint", "model")


@dataclass
class ResumeState:
    # the records kept, read back from the rewritten records.jsonl as a stream (each pass reads
    # the file line by line again): a long run is never held whole
    records: Iterable[dict[str, Any]] = ()
    done: set[int] = field(default_factory=set)
    previous_duration_s: float = 0.0
    truncated_lines: int = 0
    # the latest instant (ns since the run's zero) of any earlier record: a resumed segment's
    # clock goes on from there, so the segments follow each other on one time axis
    previous_end_ns: int = 0


def prepare_resume(out: Path, config: dict[str, Any],
                   workload: dict[str, Any] | None = None, *,
                   retry_errors: bool = False,
                   options: dict[str, Any] | None = None) -> ResumeState:
    """``workload`` is the benchmark's name and what identifies its sessions (``run`` record
    ``workload``): a run resumed with other task options (another tool mode, sample count, ...)
    is refused too. ``options``: the identity the options schema declares (every option marked
    ``identity``); a run record that keeps its ``options`` is compared on exactly those, an
    older one on :data:`COMPARED` of its ``config``. ``retry_errors``: sessions that ended in
    ``error`` run again (their records set aside)."""
    path = out / "records.jsonl"
    if not path.exists():
        hint = (" (records.jsonl.gz is an archived copy: gunzip it to continue the run)"
                if path.with_name("records.jsonl.gz").exists() else "")
        raise ConfigError(f"--resume {out}: no records.jsonl there to resume from{hint}")
    read = RecordStream(path)
    first = next((r for r in read if r.get("type") == "run"), None)
    if first is None:
        raise ConfigError(f"--resume {out}: records.jsonl has no run record")
    try:
        check_version([first])
    except ValueError as exc:
        raise ConfigError(f"--resume {out}: {exc}") from None
    if options and isinstance(first.get("options"), dict):
        _compare_options(out, first["options"], options)
    else:
        _compare_config(out, first.get("config", {}), config)
    then = first.get("workload")
    now = json.loads(json.dumps(workload, default=str)) if workload is not None else None
    if then is not None and now is not None and then != now:
        changed = "; ".join(f"{k}: {then.get(k)!r} then, {now.get(k)!r} now"
                            for k in sorted({*then, *now}) if then.get(k) != now.get(k))
        raise ConfigError(f"--resume {out}: benchmark options differ from the interrupted run "
                          f"({changed}); resume with the same options")
    final = ("ok",) if retry_errors else ("ok", "error")
    finished = {r["session_id"]: r["session_index"] for r in read
                if r.get("type") == "session" and r.get("status") in final}
    truncated = read.truncated_lines
    n = 1
    while (out / f"records.before-resume-{n}.jsonl").exists():
        n += 1
    before = out / f"records.before-resume-{n}.jsonl"
    path.rename(before)
    previous_duration_s = 0.0
    end_ns = 0
    with open(path, "wb") as fh:
        for r in RecordStream(before):  # line by line: the kept records, rewritten
            end_ns = max((end_ns, *(int(r[k]) for k in _INSTANTS
                                    if isinstance(r.get(k), int | float))))
            if r.get("type") in ("run", "segment") or r.get("session_id") in finished:
                fh.write(encode_record(r))
                if r.get("type") == "segment":
                    previous_duration_s += r.get("duration_s", 0.0)
    return ResumeState(
        records=RecordStream(path), done=set(finished.values()),
        previous_duration_s=previous_duration_s, truncated_lines=truncated,
        previous_end_ns=max(end_ns, _scraped_end_ns(out)))


_INSTANTS = ("t_end_ns", "t_scheduled_ns", "t_sent_ns", "t_start_ns", "t_ns")


def _scraped_end_ns(out: Path) -> int:
    """The last scrape's instant in ``server_metrics.jsonl`` (0 without one)."""
    path = out / "server_metrics.jsonl"
    if not path.is_file():
        return 0
    last = 0
    with open(path, "rb") as fh:
        for line in fh:
            try:
                t = json.loads(line).get("t_ns")
            except (ValueError, AttributeError):
                continue  # a torn last line
            if isinstance(t, int | float):
                last = max(last, int(t))
    return last


def _compare_options(out: Path, then: dict[str, Any], now: dict[str, Any]) -> None:
    """This run's identity options against the run record's (an option the old run lacks, one
    added since, is not compared)."""
    changed = [f"--{key.replace('_', '-')}: {then[key]!r} then, {value!r} now"
               for key, value in sorted(now.items()) if key in then and then[key] != value]
    if changed:
        raise ConfigError(f"--resume {out}: what differs from the interrupted run: "
                          f"{'; '.join(changed)}; resume with the same options")


def _compare_config(out: Path, old: dict[str, Any], config: dict[str, Any]) -> None:
    """A run record without ``options`` (written before the options schema): its ``config``."""
    for key in COMPARED:
        a, b = old.get(key), config.get(key)
        if key == "load" and isinstance(a, dict) and isinstance(b, dict):
            a = {k: v for k, v in a.items() if k != "grace_s"}
            b = {k: v for k, v in b.items() if k != "grace_s"}
        if a != b:
            raise ConfigError(f"--resume {out}: option {key!r} differs from the interrupted run "
                              f"({a!r} then, {b!r} now); resume with the same options")
