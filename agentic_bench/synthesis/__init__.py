"""Prompt synthesis for traces that give prompts as KV-cache blocks (Weka): real words, an exact
content-token count under the served model's tokenizer, equal blocks byte-identical, the
conversation rebuilt request by request, and the cache-bust marker.

:func:`load_tokenizer` gives a :class:`Tokenizer` (a :class:`LocalTokenizer`, or the
endpoint's); :func:`vocabulary` its :class:`Vocabulary` of one-token words (from
:func:`word_list`); a :class:`BlockWriter` writes the text of each hash-id block, a
:class:`SyntheticConversation` each request of a conversation; :func:`common_prefix`
measures what two prompts share and :func:`cache_bust_marker` makes a run's requests miss a
warm prefix cache.
"""

from agentic_bench.synthesis.blocks import BlockWriter
from agentic_bench.synthesis.conversation import SyntheticConversation, common_prefix
from agentic_bench.synthesis.marker import cache_bust_marker
from agentic_bench.synthesis.tokenizer import LocalTokenizer, Tokenizer, load_tokenizer
from agentic_bench.synthesis.vocabulary import Vocabulary, vocabulary, word_list

__all__ = ["BlockWriter", "LocalTokenizer", "SyntheticConversation", "Tokenizer", "Vocabulary",
           "cache_bust_marker", "common_prefix", "load_tokenizer", "vocabulary", "word_list"]
