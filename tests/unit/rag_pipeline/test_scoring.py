from __future__ import annotations

import pytest

from rag_pipeline import answer_prf, exact_match, f1_score, normalize_answer, retrieval_prf


@pytest.mark.parametrize(
    ("raw", "normalised"),
    [
        ("The Eiffel Tower!", "eiffel tower"),
        ("  an   apple,  a day ", "apple day"),
        ("Theatre", "theatre"),  # 'the' only removed as a whole word
        ("U.S.A.", "usa"),
        ("", ""),
    ],
)
def test_normalize_answer(raw: str, normalised: str) -> None:
    assert normalize_answer(raw) == normalised


def test_exact_match() -> None:
    assert exact_match("the Beatles.", "Beatles") == 1.0
    assert exact_match("Beatles band", "Beatles") == 0.0


def test_token_f1() -> None:
    # pred tokens: [barack, obama], gold: [president, barack, obama] -> P=1, R=2/3
    prf = answer_prf("Barack Obama", "President Barack Obama")
    assert prf.precision == pytest.approx(1.0)
    assert prf.recall == pytest.approx(2 / 3)
    assert prf.f1 == pytest.approx(0.8)
    assert f1_score("cat dog", "fish") == 0.0


def test_yes_no_special_case() -> None:
    assert f1_score("yes", "yes") == 1.0
    assert f1_score("yes it is", "yes") == 0.0  # gold yes/no needs an exact match
    assert f1_score("no", "no way") == 0.0
    assert f1_score("noanswer", "something") == 0.0


def test_retrieval_prf() -> None:
    gold = ["Ed Wood", "Scott Derrickson"]
    retrieved = ["Ed Wood", "Ed Wood", "Tyler Bates", "Scott Derrickson", "Woodson"]
    at2 = retrieval_prf(retrieved, gold, k=2)  # unique: Ed Wood, Tyler Bates
    assert (at2.precision, at2.recall) == (0.5, 0.5)
    at3 = retrieval_prf(retrieved, gold, k=3)
    assert at3.precision == pytest.approx(2 / 3)
    assert at3.recall == 1.0
    assert at3.f1 == pytest.approx(0.8)
    short = retrieval_prf(["Ed Wood"], gold, k=10)
    assert (short.precision, short.recall) == (1.0, 0.5)
    assert retrieval_prf([], gold, k=5).f1 == 0.0
    assert retrieval_prf(["X"], gold, k=5).f1 == 0.0
    with pytest.raises(ValueError):
        retrieval_prf(retrieved, gold, k=0)
