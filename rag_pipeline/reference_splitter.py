"""Fixed-length passages as MLPerf's E2E-RAG ingestion cuts them.

Reference: mlcommons/inference b66003e1, ``e2e-rag/text_splitter.py`` 29-37 (``clean_text``) and
120-155 (``split_into_fixed_passages``), called by ``read_docs.py`` 415-417 with the
``--fixed-length 768 --fixed-overlap 32`` of ``scripts/run_ingestion.sh``. Rebuilt from its rules:

* the text is stripped and every whitespace run becomes one space;
* a text of at most ``length`` characters is one passage (none when empty);
* otherwise windows start at 0, ``length - overlap``, ``2 (length - overlap)``, … while the start is
  inside the text; each window is ``text[start:start + length]`` **stripped** and kept when
  non-empty — so a window may be shorter than ``length`` (leading/trailing space removed, or the
  text's tail), and the last window may lie wholly inside the one before it.

This differs from :func:`rag_pipeline.chunking.split_text` (no stripping, stops once a window
reaches the end), which stays the HotpotQA default.
"""

from __future__ import annotations

import re

MLPERF_PASSAGE_LENGTH = 768  # scripts/run_ingestion.sh 28
MLPERF_PASSAGE_OVERLAP = 32  # scripts/run_ingestion.sh 29

_WHITESPACE = re.compile(r"\s+")


def collapse_whitespace(text: str) -> str:
    """text_splitter.py 29-37: strip, then every whitespace run to one space."""
    return _WHITESPACE.sub(" ", text.strip())


def fixed_windows(text: str, length: int = MLPERF_PASSAGE_LENGTH,
                  overlap: int = MLPERF_PASSAGE_OVERLAP) -> list[tuple[int, str]]:
    """``(start, passage)`` pairs of ``text`` cut as the module doc says; ``start`` is the
    window's offset in the whitespace-collapsed text."""
    if length <= 0 or not 0 <= overlap < length:
        raise ValueError(f"need length > 0 and 0 <= overlap < length, got {length}/{overlap}")
    text = collapse_whitespace(text)
    if len(text) <= length:
        return [(0, text)] if text else []
    step = length - overlap
    windows = ((start, text[start:start + length].strip())
               for start in range(0, len(text), step))
    return [(start, passage) for start, passage in windows if passage]


def fixed_passages(text: str, length: int = MLPERF_PASSAGE_LENGTH,
                   overlap: int = MLPERF_PASSAGE_OVERLAP) -> list[str]:
    """The passages of :func:`fixed_windows`. (read_docs.py passes ``fixed_overlap or 32``, so an
    overlap of 0 asked there becomes 32; this function takes the overlap it is given.)"""
    return [passage for _, passage in fixed_windows(text, length, overlap)]
