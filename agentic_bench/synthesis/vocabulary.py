"""The words prompt blocks are written in: common English words that are one token each under
the run's tokenizer, so a text of *n* of them (each with its leading space) is exactly *n*
content tokens — a count no merge across word boundaries can change.

``words.txt`` holds 2,048 common English words (4–10 letters; the commonest words that are
whole single tokens in both a byte-level BPE vocabulary and a WordPiece one). For a tokenizer,
:func:`vocabulary` keeps the ones that are single tokens with a leading space and then checks
additivity on sample texts: a tokenizer that merges across spaces is refused with the evidence,
before anything is sent.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from importlib import resources

from agentic_bench.errors import ConfigError
from agentic_bench.synthesis.tokenizer import Tokenizer

MIN_WORDS = 256
CHECK_TEXTS = 8
CHECK_WORDS = 200


def word_list() -> tuple[str, ...]:
    """The packaged English word list the vocabulary is drawn from."""
    text = resources.files("agentic_bench.synthesis").joinpath("words.txt").read_text("utf-8")
    return tuple(w for w in text.split() if w)


@dataclass(frozen=True)
class Vocabulary:
    """Words that are one token each (with a leading space) under ``tokenizer``."""

    tokenizer: str
    words: tuple[str, ...]


def vocabulary(tokenizer: Tokenizer, seed: int = 0) -> Vocabulary:
    """The packaged words that are one token under ``tokenizer`` (prompt text is made of
    them), checked on sample texts drawn with ``seed``; a ConfigError when too few are."""
    candidates = word_list()
    counts = tokenizer.count_many([" " + w for w in candidates])
    words = tuple(w for w, n in zip(candidates, counts, strict=True) if n == 1)
    if len(words) < MIN_WORDS:
        raise ConfigError(f"tokenizer {tokenizer.name}: only {len(words)} of {len(candidates)} "
                          f"common English words are single tokens (need {MIN_WORDS}); it "
                          "cannot write prompts of an exact token count")
    rng = random.Random(f"vocabulary-check:{seed}")
    samples = [" ".join(["", *rng.choices(words, k=CHECK_WORDS)]) for _ in range(CHECK_TEXTS)]
    for text, n in zip(samples, tokenizer.count_many(samples), strict=True):
        if n != CHECK_WORDS:
            raise ConfigError(f"tokenizer {tokenizer.name}: {CHECK_WORDS} single-token words "
                              f"gave {n} tokens together (it merges across words), so prompt "
                              f"sizes could not be exact; first words: {text[:80]!r}")
    return Vocabulary(tokenizer.name, words)


__all__ = ["MIN_WORDS", "Vocabulary", "vocabulary", "word_list"]
