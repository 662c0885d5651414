"""A digest of what :func:`read_reference_prompts` reads from a reference checkout — hashes and
placeholder names only, never the text — so CI, which has no checkout and no network, can
check our reader and loop against a record of the real reference.

The record (``tests/data/mlperf_reference_prompts_digest.json``, written by
``scripts/record_reference_prompts_digest.py`` from a checkout of mlcommons/inference at the
commit it names) holds, for each source file read, its git blob id and SHA-256, and for each
prompt text the reader extracts (every :class:`~rag_pipeline.loop_prompts.PromptSet` template
and the judge's), the SHA-256 of the template and the sorted names of its ``str.format``
placeholders.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from string import Formatter
from typing import Any

from agentic_bench.tasks.rag_e2e.reference_prompts import (
    JUDGE_FILE,
    LOOP_FILE,
    read_reference_prompts,
    reference_folder,
)
from rag_pipeline.loop_prompts import FIELDS

JUDGE_PROMPT_NAME = "judge"  # the judge's template in the record, beside the loop's


def git_blob_id(data: bytes) -> str:
    """The id git gives a file's bytes (``git hash-object``): SHA-1 of ``blob <size>\\0`` + data."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()  # git hash-object


def placeholders(template: str) -> list[str]:
    """The sorted field names a ``str.format`` template asks for."""
    return sorted({name for _, name, _, _ in Formatter().parse(template) if name})


def prompt_entry(template: str) -> dict[str, Any]:
    return {"sha256": hashlib.sha256(template.encode("utf-8")).hexdigest(),
            "placeholders": placeholders(template)}


def prompts_digest(checkout: Path) -> dict[str, Any]:
    """``{"files": {name: {git_blob, sha256}}, "prompts": {name: {sha256, placeholders}}}`` of
    the reference at ``checkout`` (its root or its ``e2e-rag/``)."""
    folder = reference_folder(checkout)
    ref = read_reference_prompts(folder)
    files: dict[str, dict[str, str]] = {}
    for name in (LOOP_FILE, JUDGE_FILE):
        data = (folder / name).read_bytes()
        files[name] = {"git_blob": git_blob_id(data),
                       "sha256": hashlib.sha256(data).hexdigest()}
    prompts = {name: prompt_entry(getattr(ref.loop, name)) for name in FIELDS}
    prompts[JUDGE_PROMPT_NAME] = prompt_entry(ref.judge)
    return {"files": files, "prompts": prompts}
