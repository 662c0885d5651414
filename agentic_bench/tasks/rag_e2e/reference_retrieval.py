"""Retrieval precision / recall / F1 @k and @N, and average precision, as MLPerf defines them.

Reference: mlcommons/inference b66003e1, ``e2e-rag/evaluation.py`` 36-104
(``calculate_retrieval_metrics``), applied by ``multi_shot_retrieval.py`` 1598-1612 to the
pages the flow kept (graded relevant, one entry per page, in the order found, cut to the
rerank depth) and averaged over the questions at 1800-1840. Rebuilt here, quirks included:

* the gold set drops empty entries; with **no gold** page every precision and F1 is 1.0 when
  nothing was retrieved and 0.0 otherwise, every recall is 1.0, and there is no ``@N`` key;
* ``@k`` divides by k even when fewer than k pages were retrieved; ``@N`` uses N = the number
  retrieved (``@N`` is 0 when N = 0);
* when N equals one of the k values (1, 3, 5, 10), that k is reported **only** as ``@N``
  (the reference labels it ``N``), so ``@5`` is absent for a question with 5 pages;
* average precision is the sum of precision at each relevant rank over the gold count;
* the run's figure for a key is its sum over the questions that have it divided by **all**
  questions (a question without the key adds 0).

Our pages are HotpotQA titles where the reference has Wikipedia URLs; ours ``retrieval`` /
``context`` blocks keep their own definitions beside this one.
"""

from __future__ import annotations

from collections.abc import Sequence

REFERENCE_KS = (1, 3, 5, 10)
MLPERF_FINAL_DOCS = 10  # top_k_reranking, multi_shot_retrieval.py 1185 and 1607


def _prf(hits: int, k: int, expected: int) -> tuple[float, float, float]:
    precision = hits / k if k > 0 else 0.0
    recall = hits / expected if expected > 0 else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return precision, recall, f1


def question_metrics(expected: Sequence[str], retrieved: Sequence[str],
                     ks: Sequence[int] = REFERENCE_KS) -> dict[str, float]:
    """One question's ``precision@k`` / ``recall@k`` / ``f1@k`` (k and N) and
    ``average_precision``; ``retrieved`` in rank order."""
    gold = {page for page in expected if page and page.strip()}
    n = len(retrieved)
    out: dict[str, float] = {}
    if not gold:
        empty = 1.0 if n == 0 else 0.0
        for k in ks:
            out[f"precision@{k}"], out[f"recall@{k}"], out[f"f1@{k}"] = empty, 1.0, empty
        out["average_precision"] = empty
        return out
    for k in (*ks, n):
        label = "N" if k == n else str(k)
        hits = len(gold & set(retrieved[:k]))
        out[f"precision@{label}"], out[f"recall@{label}"], out[f"f1@{label}"] = \
            _prf(hits, k, len(gold))
    found, total = 0, 0.0
    for rank, page in enumerate(retrieved, start=1):
        if page in gold:
            found += 1
            total += found / rank
    out["average_precision"] = total / len(gold)
    return out


def run_means(per_question: Sequence[dict[str, float]]) -> dict[str, float]:
    """Each key's sum over the questions that have it, divided by all questions."""
    if not per_question:
        return {}
    totals: dict[str, float] = {}
    for metrics in per_question:
        for key, value in metrics.items():
            totals[key] = totals.get(key, 0.0) + value
    return {key: total / len(per_question) for key, total in totals.items()}


def set_metrics(expected: Sequence[str], retrieved: Sequence[str]) -> dict[str, float]:
    """The accuracy run's retrieval figure (``e2e-rag/accuracy_eval.py`` 129-150): precision,
    recall and F1 of the retrieved *set* against the expected set, all 0 without expected
    pages; averaged over every judged question (262-268)."""
    got, gold = set(retrieved), set(expected)
    if not gold:
        return {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    correct = len(got & gold)
    precision = correct / len(got) if got else 0.0
    recall = correct / len(gold)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return {"precision": precision, "recall": recall, "f1": f1}
