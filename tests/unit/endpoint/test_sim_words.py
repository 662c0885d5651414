"""The simulator's usage count (``words``) is ``len(text.split())`` exactly, counted without
building the list (#46: on 400 kB agent prompts the split was its largest cost per request),
and a body orjson refuses is still read as the stdlib reads it."""

from __future__ import annotations

import itertools

from agentic_bench.endpoint.sim import parse_json, words

# the space, a letter, ASCII whitespace str.split() splits on (\x1c too), and non-ASCII
# whitespace (NEL, no-break space) that sends a text down the plain split
ALPHABET = " a\t\n\x1c\x0b\r\x85\xa0"


def test_words_equals_the_split_count_on_every_short_text() -> None:
    for n in range(7):
        for letters in itertools.product(ALPHABET, repeat=n):
            text = "".join(letters)
            assert words(text) == len(text.split()), repr(text)


def test_a_marked_agent_prompt_counts_as_split_does() -> None:
    text = "[rid:0123456789ab]\n\n" + " word" * 5000 + "  tail\t end "
    assert words(text) == len(text.split()) == 5003


def test_what_orjson_refuses_the_stdlib_reads() -> None:
    assert parse_json(b'{"n": 18446744073709551616, "x": NaN}')["n"] == 2 ** 64
    assert parse_json(b'{"model": "sim"}') == {"model": "sim"}
