"""The in-process chat handler's token counts (no model needed): llama-cpp-python calls a chat
format's stopping criteria with the context's tokens after each sampled token, and once more
after the last (llama_cpp/llama.py ``generate`` and ``_create_completion``, 0.3.36)."""

from __future__ import annotations

from agentic_bench.endpoint.inproc_chat import TokenTally


def feed(tally: TokenTally, prompt: list[int], sampled: int, evaluated: int) -> None:
    """The calls one completion makes: ``sampled`` in the loop, then the final one with the
    ``evaluated`` context (the last sampled token is not evaluated)."""
    for k in range(sampled):
        assert tally([*prompt, *range(100, 100 + k)], None) is False  # never stops a reply
    tally([*prompt, *range(100, 100 + evaluated)], None)


def test_a_reply_cut_by_max_tokens_counts_every_sampled_token() -> None:
    tally = TokenTally([])
    feed(tally, [1, 2, 3, 4], sampled=3, evaluated=2)
    assert tally.usage("length") == {"prompt_tokens": 4, "completion_tokens": 3,
                                     "total_tokens": 7,
                                     "prompt_tokens_details": {"cached_tokens": 0}}


def test_the_end_of_turn_token_is_not_a_reply_token() -> None:
    tally = TokenTally([])
    feed(tally, [1, 2, 3], sampled=5, evaluated=4)  # 4 reply tokens, then <|im_end|>
    usage = tally.usage("stop")
    assert usage is not None and usage["completion_tokens"] == 4 and usage["prompt_tokens"] == 3


def test_cached_tokens_are_the_common_prefix_with_the_context_before() -> None:
    tally = TokenTally([1, 2, 9, 9, 9])
    feed(tally, [1, 2, 3, 4], sampled=1, evaluated=0)
    usage = tally.usage("length")
    assert usage is not None and usage["prompt_tokens_details"]["cached_tokens"] == 2
    again = TokenTally([1, 2, 3, 4, 5])  # the whole prompt is there: its last token is redone
    feed(again, [1, 2, 3, 4], sampled=1, evaluated=0)
    usage = again.usage("length")
    assert usage is not None and usage["prompt_tokens_details"]["cached_tokens"] == 3


def test_nothing_sampled_means_no_usage() -> None:
    assert TokenTally([1]).usage(None) is None
