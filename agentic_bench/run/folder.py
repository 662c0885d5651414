"""A run's output folder and ``--resume``: claiming the folder (or moving an earlier run in it
aside), reading what a resumed run already did, and the command that continues a run cut
short."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path
from typing import Any

from agentic_bench.errors import ConfigError
from agentic_bench.metrics.resume import ResumeState, prepare_resume
from agentic_bench.run.plan import Run


def claim_out(out: Path, *, resume: bool, overwrite: bool) -> None:
    """Refuse an output folder that already holds a run, unless it is resumed, or replaced
    with ``--overwrite`` (its entries then move to ``replaced-<time>/`` inside it: nothing of
    the earlier run is deleted, and nothing of it mixes into the new one)."""
    records = out / "records.jsonl"
    if resume or not records.exists():
        return
    if not overwrite:
        raise ConfigError(f"{out} already holds a run ({records.name}); pass --resume {out} "
                          "to continue it, --overwrite to move it aside and start anew, or "
                          "another --out")
    aside = out / f"replaced-{dt.datetime.now().strftime('%Y%m%d-%H%M%S-%f')}"
    aside.mkdir()
    for entry in list(out.iterdir()):
        if entry != aside and not entry.name.startswith("replaced-"):
            entry.rename(aside / entry.name)


def default_out(name: str) -> Path:
    """``results/NAME-YYYYmmdd-HHMMSS``: the folder of a run given no ``--out``."""
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    return Path("results") / f"{name}-{stamp}"


def resumed_state(out: Path, run: Run, identity: dict[str, Any]) -> ResumeState:
    """What the run in ``out`` already did (``--resume``; nothing for a new run): its kept
    records, the sessions done and the time it ran. A resume with other identifying options
    or another workload is refused."""
    if not run.resume:
        return ResumeState()
    return prepare_resume(out, run.public(), identity, retry_errors=run.options.retry_errors,
                          options=run.identity)


def announce_resume(out: Path, done: int, planned: int | None) -> None:
    """Say on stderr which run goes on, and how many of its sessions are left."""
    left = "" if planned is None else f", {max(planned - done, 0)} left"
    print(f"resuming {out}: {done} sessions done{left}", file=sys.stderr, flush=True)


def resume_command(command: str | None, name: str, out: Path) -> str:
    """How to continue an interrupted run of ``command`` (None: the workload ``name``'s
    benchmark): its own options come from DIR/config.yaml."""
    import shlex

    head = "agentic-bench replay" if (command or name) == "replay" else \
        f"agentic-bench run {command or name}"
    return f"{head} --resume {shlex.quote(str(out))}"
