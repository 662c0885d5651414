"""The accuracy log as a submission carries it: hashed, then cut to its two ends.

Our own implementation of the rule of mlcommons/inference b66003e1
``tools/submission/truncate_accuracy_log.py``: the sha256 of the whole
``mlperf_log_accuracy.json`` (89-95) is appended to ``accuracy.txt`` as a ``hash=<hex>`` line
after an empty line (273-275; a compliance test's ``accuracy.txt``, TEST07/TEST09, holds only
that line, 269-271); a log of at least 4,096 characters is then replaced by its first 4,096
characters, ``"\\n\\n...\\n\\n"`` and its last 4,096 (98-110); a smaller one stays whole. A log
that already has a hash and is below 10 KiB is left alone (238-244). The checker then wants
``accuracy.txt`` to hold the hash line (``submission_checker/checks/accuracy_check.py`` 154,
199-201) and the log to be at most 10 KiB (249-251).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

VIEWABLE = 4096  # characters kept at each end
MAX_SIZE = 10 * 1024  # the checker's limit on a truncated log (bytes)
CUT_MARK = "\n\n...\n\n"
_HASH = re.compile(r"^hash=([\w\d]+)$")


def file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def truncated_text(text: str) -> str:
    """``text`` cut to its first and last :data:`VIEWABLE` characters (unchanged when shorter)."""
    if len(text) < VIEWABLE:
        return text
    return text[:VIEWABLE] + CUT_MARK + text[-VIEWABLE:]


def has_hash(accuracy_txt: str) -> bool:
    return any(_HASH.match(line) for line in accuracy_txt.splitlines())


def hash_line(digest: str) -> str:
    return f"hash={digest}\n"


def seal(log: Path, accuracy_txt: Path, *, compliance: bool = False) -> str | None:
    """Hash ``log`` into ``accuracy_txt`` and truncate it in place; the hash (None when the
    pair was already sealed). ``compliance``: the ``accuracy.txt`` of a TEST07/TEST09 folder,
    which holds only the hash line."""
    text = accuracy_txt.read_text(encoding="utf-8") if accuracy_txt.is_file() else ""
    if has_hash(text) and log.stat().st_size < MAX_SIZE:
        return None
    digest = file_hash(log)
    if compliance:
        accuracy_txt.write_text(hash_line(digest), encoding="utf-8")
    else:
        accuracy_txt.write_text(text + "\n" + hash_line(digest), encoding="utf-8")
    content = log.read_text(encoding="utf-8")
    if len(content) >= VIEWABLE:
        log.write_text(truncated_text(content), encoding="utf-8")
    return digest
