"""Compliance TEST09 (output length in performance mode): LoadGen runs the performance test with
the benchmark's audit.config (every sample logged to the accuracy log), then the mean output
length is checked against the audit's ``test09_min_output_tokens`` / ``test09_max_output_tokens``.

Our own implementation of the rule of mlcommons/inference ``compliance/TEST09/
run_verification.py`` (b66003e1): a logged response's length is its ``data`` read as 4-byte
token ids (47-69: whole 4-byte groups; an entry without data counts 0, 145-156); the test passes
when min ≤ mean ≤ max (347-349). The files land where the submission checker looks
(``tools/submission/submission_checker/checks/compliance_check.py`` 162-169, 358-376:
``TEST09/verify_output_len.txt`` holding ``TEST PASS``; the run's logs under
``TEST09/performance/run_1/`` and ``TEST09/accuracy/``, as run_verification.py 383-424 copies
them).
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

from agentic_bench.loadgen.conf_files import read_keys
from agentic_bench.loadgen.logs import ACCURACY_FILE

VERIFY_FILE = "verify_output_len.txt"
THRESHOLD_KEYS = ("test09_min_output_tokens", "test09_max_output_tokens")


def output_lengths(accuracy_log: Path) -> list[int]:
    """Tokens of every logged response: its data's whole 4-byte groups."""
    text = accuracy_log.read_text(encoding="utf-8").strip() if accuracy_log.is_file() else ""
    entries = json.loads(text) if text else []
    return [len(bytes.fromhex(e.get("data") or "")) // 4 for e in entries]


def verify(lengths: list[int], low: float, high: float) -> dict[str, Any]:
    mean = sum(lengths) / len(lengths) if lengths else 0.0
    std = math.sqrt(sum((x - mean) ** 2 for x in lengths) / len(lengths)) if lengths else 0.0
    return {"samples": len(lengths), "mean": mean, "min": min(lengths, default=0),
            "max": max(lengths, default=0), "std": std, "low": low, "high": high,
            "min_ok": bool(lengths) and mean >= low, "max_ok": bool(lengths) and mean <= high,
            "passed": bool(lengths) and low <= mean <= high}


def render(result: dict[str, Any]) -> str:
    verdict = "TEST PASS" if result["passed"] else "TEST FAIL"
    return "\n".join([
        "TEST09 (output length in performance mode), verified by agentic-bench",
        "",
        f"Samples logged: {result['samples']}",
        f"Mean output tokens: {result['mean']:.2f}",
        f"Min output tokens: {result['min']}",
        f"Max output tokens: {result['max']}",
        f"Std deviation: {result['std']:.2f}",
        f"Lower bound: {result['low']} ({'met' if result['min_ok'] else 'NOT met'})",
        f"Upper bound: {result['high']} ({'met' if result['max_ok'] else 'NOT met'})",
        "",
        verdict,
        ""])


def finish_test09(test_dir: Path, log_dir: Path, audit: Path) -> dict[str, Any]:
    """After the TEST09 run: move the accuracy log to ``TEST09/accuracy/``, verify the mean
    output length against the audit's bounds, write ``verify_output_len.txt``."""
    bounds = read_keys(audit, THRESHOLD_KEYS)
    missing = [k for k in THRESHOLD_KEYS if k not in bounds]
    log = log_dir / ACCURACY_FILE
    if log_dir != test_dir:
        target = test_dir / "accuracy" / ACCURACY_FILE
        target.parent.mkdir(parents=True, exist_ok=True)
        if log.is_file():
            shutil.move(str(log), target)
        log = target
    if missing:
        return {"error": f"{audit.name} has no {', '.join(missing)}", "log": str(log)}
    result = verify(output_lengths(log), bounds[THRESHOLD_KEYS[0]], bounds[THRESHOLD_KEYS[1]])
    (test_dir / VERIFY_FILE).write_text(render(result), encoding="utf-8")
    return {**result, "file": VERIFY_FILE}
