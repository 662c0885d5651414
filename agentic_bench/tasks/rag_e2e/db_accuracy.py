"""e2e-rag-db's accuracy: the rule of the reference's evaluator, and the line the checker reads.

Reference: mlcommons/inference b66003e1 ``e2e-rag/datasetup_accuracy_eval.py`` (rebuilt from its
rules, not copied), run by ``reference_mlperf_datasetup_accuracy.sh`` 138-163 after the
LoadGen accuracy run:

* the accuracy log maps ``qsl_idx`` to its response bytes, a later entry of one index replacing
  an earlier one (46-127);
* a 1-byte response is a page that succeeded (``1``) or failed (anything else); a 32-byte
  response that is 32 lowercase hex characters is the database's MD5, sent by the page that
  completed last, and counts as a success; any other response is a failure (324-353);
* no MD5 among the responses fails the run (362-369); so does a database file that is not
  there (374-383); the returned MD5 must equal the MD5 of the saved database (391);
* success rate = successes / (successes + failures); the run passes when it is at least
  0.99 and the MD5 matches (410-415), and — the shell script always passes a retriever model —
  when the saved database passes three checks (443-457; 130-274): it holds vectors, as many
  passages as vectors, and a one-result lookup of ``"test query"`` returns something (the
  dimension is only warned about);
* with a manifest, its verification must pass too (474-521).

The reference writes ``accuracy.txt`` (527-577) without any line MLCommons' checker can read:
the checker takes ``E2E_ACCURACY`` from a line *starting* ``Accuracy:`` (``tools/submission/
submission_checker/constants.py`` 1830, matched with ``re.match`` in ``checks/
accuracy_check.py`` 151) and gates e2e-rag-db at 98 (``constants.py`` 157). Ours adds that
line: the success rate in percent when every other condition of the reference's verdict holds
(MD5, database checks, manifest), 0 otherwise — so the checker's one number carries the whole
verdict. The reference's own bar (0.99) is stricter than the checker's (98 %): both are
reported.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

MIN_SUCCESS_RATE = 0.99  # datasetup_accuracy_eval.py 411
CHECKER_GATE = 98.0  # tools/submission/submission_checker/constants.py 157
MD5_LENGTH = 32  # datasetup_accuracy_eval.py 334
PROBE_QUERY = "test query"  # datasetup_accuracy_eval.py 238
_HEX = frozenset("0123456789abcdef")


def db_md5(folder: Path) -> str:
    """The MD5 of our database. The reference hashes its one ``<database>.db`` file
    (reference_SUT_datasetup.py 300-307); ours is a folder (index, ids, passages), hashed file
    by file in name order: each file's name, a NUL byte, its bytes."""
    digest = hashlib.md5()
    for path in sorted(p for p in folder.iterdir() if p.is_file()):
        digest.update(path.name.encode("utf-8") + b"\0")
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 16), b""):
                digest.update(block)
    return digest.hexdigest()


def responses_by_index(entries: Iterable[dict[str, Any]]) -> dict[int, bytes]:
    """qsl_idx → response bytes (the last entry of an index wins: 46-127)."""
    out: dict[int, bytes] = {}
    for entry in entries:
        data = entry.get("data")
        if isinstance(data, str):
            data = bytes.fromhex(data)
        out[int(entry["qsl_idx"])] = bytes(data or b"")
    return out


def classify(responses: dict[int, bytes]) -> dict[str, Any]:
    """Successes, failures and the MD5 response (324-353), in qsl_idx order."""
    success = failure = 0
    md5: str | None = None
    md5_index: int | None = None
    for index in sorted(responses):
        data = responses[index]
        if len(data) == 1:
            if data[0] == 1:
                success += 1
            else:
                failure += 1
        elif len(data) == MD5_LENGTH:
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                failure += 1
                continue
            if set(text) <= _HEX:
                md5, md5_index = text, index
                success += 1
            else:
                failure += 1
        else:
            failure += 1
    return {"success": success, "failure": failure, "md5": md5, "md5_index": md5_index}


def evaluate(responses: dict[int, bytes], actual_md5: str | None,
             checks: list[dict[str, Any]] | None = None,
             manifest_passed: bool | None = None) -> dict[str, Any]:
    """The reference's verdict over the logged responses; ``actual_md5`` is the saved database's
    (None: no database), ``checks`` the database checks (:func:`database_checks`),
    ``manifest_passed`` the manifest verification (None: not asked)."""
    found = classify(responses)
    total = found["success"] + found["failure"]
    rate = found["success"] / total if total else 0.0
    md5_match = found["md5"] is not None and found["md5"] == actual_md5
    checks_passed = all(c["result"] != "FAIL" for c in checks or [])
    reasons = []
    if found["md5"] is None:
        reasons.append("no MD5 among the responses (the page completed last sends it)")
    elif actual_md5 is None:
        reasons.append("the database was not saved")
    elif not md5_match:
        reasons.append(f"MD5 returned {found['md5']} differs from the database's {actual_md5}")
    if not checks_passed:
        reasons.append("database checks failed: " + ", ".join(
            c["name"] for c in checks or [] if c["result"] == "FAIL"))
    if manifest_passed is False:
        reasons.append("manifest verification failed")
    conditions_hold = md5_match and checks_passed and manifest_passed is not False
    return {
        "total_files": total, "successful_files": found["success"],
        "failed_files": found["failure"], "success_rate": rate,
        "min_success_rate_required": MIN_SUCCESS_RATE,
        "md5_response": found["md5"], "md5_response_qsl_idx": found["md5_index"],
        "md5_actual": actual_md5, "md5_match": md5_match, "checks": checks or [],
        "manifest_passed": manifest_passed,
        "passed": conditions_hold and rate >= MIN_SUCCESS_RATE,
        "accuracy": round(100.0 * rate, 4) if conditions_hold else 0.0,
        "reasons": reasons,
    }


def database_checks(vectors: int, passages: int, ids: int, lookup_hits: int | None,
                    dim: int, expected_dim: int = 768) -> list[dict[str, Any]]:
    """datasetup_accuracy_eval.py 161-261 on our saved database: vectors present, as many
    passages (and ids) as vectors, a lookup answers; the dimension (768, e5-base-v2) only
    warns."""
    return [
        {"name": "vector_count", "result": "PASS" if vectors > 0 else "FAIL", "value": vectors},
        {"name": "docstore_consistency",
         "result": "PASS" if passages == vectors == ids else "FAIL",
         "value": {"vectors": vectors, "passages": passages, "ids": ids}},
        {"name": "index_dimension", "result": "PASS" if dim == expected_dim else "WARN",
         "value": dim, "expected": expected_dim},
        {"name": "sample_retrieval",
         "result": "PASS" if lookup_hits else "FAIL", "value": lookup_hits},
    ]


def accuracy_text(result: dict[str, Any], database: str) -> str:
    """``accuracy.txt``: the ``Accuracy:`` line the checker reads first, then the reference's
    report in our words (``submission pack`` appends the ``hash=`` line)."""
    lines = [
        f"Accuracy: {result['accuracy']:.4f}",
        "",
        "e2e-rag-db accuracy (agentic-bench; rule of e2e-rag/datasetup_accuracy_eval.py)",
        f"database: {database}",
        f"files: {result['total_files']} total, {result['successful_files']} succeeded, "
        f"{result['failed_files']} failed",
        f"success rate: {100 * result['success_rate']:.2f}% (the reference requires "
        f"{100 * MIN_SUCCESS_RATE:.2f}%, the checker {CHECKER_GATE:.2f})",
        f"MD5 returned: {result['md5_response']}",
        f"MD5 of the database: {result['md5_actual']}",
        f"MD5 match: {'PASS' if result['md5_match'] else 'FAIL'}",
    ]
    lines += [f"check {c['name']}: {c['result']} ({c['value']})" for c in result["checks"]]
    if result["manifest_passed"] is not None:
        lines.append(f"manifest: {'PASS' if result['manifest_passed'] else 'FAIL'}")
    lines += [f"reason: {r}" for r in result["reasons"]]
    lines.append(f"overall: {'PASS' if result['passed'] else 'FAIL'}")
    return "\n".join(lines) + "\n"
