"""HotpotQA answer metrics (as the official ``hotpot_evaluate_v1.py``) and retrieval P/R/F1@k."""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

_PUNCT = frozenset(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_SPECIAL = ("yes", "no", "noanswer")


def normalize_answer(text: str) -> str:
    """Lower-case, strip punctuation, drop articles (a/an/the), collapse whitespace."""
    lowered = text.lower()
    no_punct = "".join(ch for ch in lowered if ch not in _PUNCT)
    no_articles = _ARTICLES.sub(" ", no_punct)
    return " ".join(no_articles.split())


def exact_match(prediction: str, gold: str) -> float:
    """1.0 when the normalised strings are equal, else 0.0."""
    return float(normalize_answer(prediction) == normalize_answer(gold))


@dataclass(frozen=True, slots=True)
class PRF:
    """Precision, recall and F1."""

    precision: float
    recall: float
    f1: float


_ZERO = PRF(0.0, 0.0, 0.0)


def answer_prf(prediction: str, gold: str) -> PRF:
    """Token-level precision/recall/F1 with HotpotQA's yes/no/noanswer special case."""
    pred_norm = normalize_answer(prediction)
    gold_norm = normalize_answer(gold)
    if pred_norm in _SPECIAL and pred_norm != gold_norm:
        return _ZERO
    if gold_norm in _SPECIAL and pred_norm != gold_norm:
        return _ZERO
    pred_tokens = pred_norm.split()
    gold_tokens = gold_norm.split()
    common = Counter(pred_tokens) & Counter(gold_tokens)
    same = sum(common.values())
    if same == 0:
        return _ZERO
    precision = same / len(pred_tokens)
    recall = same / len(gold_tokens)
    return PRF(precision, recall, 2 * precision * recall / (precision + recall))


def f1_score(prediction: str, gold: str) -> float:
    """Token F1 as in the official HotpotQA evaluation."""
    return answer_prf(prediction, gold).f1


def _dedupe(items: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


def retrieval_prf(retrieved_titles: Sequence[str], gold_titles: Iterable[str], k: int) -> PRF:
    """Precision/recall/F1@k of retrieved document titles against gold supporting-fact titles.

    Retrieved titles are de-duplicated (keeping first occurrence, so several chunks of one page
    count once) and cut to the first ``k``. Precision divides by the number of titles actually
    considered (``min(k, unique retrieved)``), so a short list is not penalised for its length;
    recall divides by the number of gold titles. Empty retrieval or empty gold gives zeros.
    """
    if k <= 0:
        raise ValueError(f"k must be positive, got {k}")
    top = _dedupe(retrieved_titles)[:k]
    gold = set(gold_titles)
    if not top or not gold:
        return _ZERO
    hits = sum(1 for title in top if title in gold)
    if hits == 0:
        return _ZERO
    precision = hits / len(top)
    recall = hits / len(gold)
    return PRF(precision, recall, 2 * precision * recall / (precision + recall))
