"""The accuracy log a submission carries, and the two lines of accuracy.txt the checker reads."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from agentic_bench.submission.truncate import MAX_SIZE, VIEWABLE, seal, truncated_text

# mlcommons/inference b66003e1 tools/submission/submission_checker/constants.py 1830
E2E_ACCURACY = r"Accuracy:\s*([\d\.]+)"
# checks/accuracy_check.py 154 (and truncate_accuracy_log.py 233-234)
HASH = r"^hash=([\w\d]+)$"


def reference_truncation(text: str) -> str:
    """truncate_accuracy_log.py 98-110: below 4096 (VIEWABLE_SIZE, 20) unchanged; else the
    first 4096 characters, "\\n\\n...\\n\\n", the last 4096 (ASCII: characters = bytes)."""
    if len(text) < 4096:
        return text
    return text[:4096] + "\n\n...\n\n" + text[len(text) - 4096:]


def test_truncation_is_the_reference_rule() -> None:
    """truncate_accuracy_log.py 98-110, at the boundaries and beyond."""
    for size in (0, 10, 4095, 4096, 4097, 8191, 8192, 8193, 50_000):
        text = "".join(chr(48 + (i * 7) % 43) for i in range(size))
        assert truncated_text(text) == reference_truncation(text), size
    assert VIEWABLE == 4096 and MAX_SIZE == 10 * 1024  # 19-20 and constants.py 1492


def test_seal_appends_the_sha256_of_the_whole_log_then_truncates(tmp_path: Path) -> None:
    """truncate_accuracy_log.py 89-95 (sha256 of the whole file), 273-276 (appended as
    "\\nhash=<hex>\\n", then truncated); the checker reads both lines of accuracy.txt with
    constants.py 1830 (E2E_ACCURACY, re.match per line: accuracy_check.py 147-157) and
    accuracy_check.py 154, and wants the log at most 10 KiB (249-251)."""
    log = tmp_path / "mlperf_log_accuracy.json"
    body = "[\n" + ",\n".join(f'{{ "seq_id" : {i}, "qsl_idx" : {i}, "data" : "00" }}'
                              for i in range(2000)) + "\n]\n"
    log.write_text(body)
    txt = tmp_path / "accuracy.txt"
    txt.write_text("Accuracy: 37.5000\n")
    digest = seal(log, txt)
    assert digest == hashlib.sha256(body.encode()).hexdigest()
    lines = txt.read_text().splitlines(keepends=True)
    assert lines == ["Accuracy: 37.5000\n", "\n", f"hash={digest}\n"]
    assert float(re.match(E2E_ACCURACY, lines[0]).group(1)) == 37.5  # type: ignore[union-attr]
    assert [m.group(1) for line in lines if (m := re.match(HASH, line))] == [digest]
    assert log.read_text() == reference_truncation(body)
    assert log.stat().st_size <= MAX_SIZE


def test_seal_twice_changes_nothing_and_small_logs_stay_whole(tmp_path: Path) -> None:
    """truncate_accuracy_log.py 238-244: a log with a hash and under 10 KiB is left alone;
    101-102: a log under 4096 bytes is not cut."""
    log, txt = tmp_path / "log.json", tmp_path / "accuracy.txt"
    log.write_text('[\n{ "seq_id" : 0, "qsl_idx" : 0, "data" : "00" }\n]\n')
    txt.write_text("Accuracy: 1.0000\n")
    first = seal(log, txt)
    assert first is not None and log.read_text().count("seq_id") == 1
    before = txt.read_text()
    assert seal(log, txt) is None and txt.read_text() == before


def test_compliance_accuracy_txt_holds_only_the_hash(tmp_path: Path) -> None:
    """truncate_accuracy_log.py 269-271: TEST07/TEST09 get an accuracy.txt of the hash line."""
    log, txt = tmp_path / "log.json", tmp_path / "accuracy.txt"
    log.write_text("[\n]\n")
    digest = seal(log, txt, compliance=True)
    assert txt.read_text() == f"hash={digest}\n"
