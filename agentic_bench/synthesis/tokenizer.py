"""Tokenizers for prompt synthesis: count the content tokens of a text the way AIPerf counts a
request's input length (the tokenizer over the text, no special tokens, no chat template).

``--tokenizer DIR`` (or a ``tokenizer.json`` file) loads a local Hugging Face tokenizer with the
``tokenizers`` library — never downloaded; ``--tokenizer server`` asks the endpoint's own
tokenize route (:mod:`agentic_bench.transport.tokenize_client`), so the served model's
vocabulary is used.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from agentic_bench.errors import ConfigError


class Tokenizer(Protocol):
    """What prompt synthesis needs of a tokenizer."""

    name: str

    def count(self, text: str) -> int:
        """Tokens of ``text`` without special tokens."""
        ...

    def count_many(self, texts: list[str]) -> list[int]:
        """:meth:`count` of each text (one call where the tokenizer can batch)."""
        ...

    def encode(self, text: str) -> list[int]:
        """The token ids of ``text`` without special tokens."""
        ...


class LocalTokenizer:
    """A Hugging Face ``tokenizer.json`` read with the ``tokenizers`` library."""

    def __init__(self, path: str | Path) -> None:
        p = Path(path)
        file = p / "tokenizer.json" if p.is_dir() else p
        if not file.is_file():
            raise ConfigError(f"--tokenizer {path}: no tokenizer.json there (a local Hugging "
                              "Face tokenizer folder or file; nothing is downloaded)")
        try:
            from tokenizers import Tokenizer as HfTokenizer
        except ImportError as exc:  # pragma: no cover - a core dependency
            raise ConfigError("--tokenizer DIR needs the 'tokenizers' package") from exc
        try:
            self._tok = HfTokenizer.from_file(str(file))
        except Exception as exc:
            raise ConfigError(f"--tokenizer {path}: not a tokenizer.json the tokenizers "
                              f"library reads ({type(exc).__name__}: {exc})") from None
        # a tokenizer.json may carry padding and truncation (sentence-transformers' do): a
        # count is of the text itself
        self._tok.no_padding()
        self._tok.no_truncation()
        self.name = str(file)

    def count(self, text: str) -> int:
        return len(self._tok.encode(text, add_special_tokens=False).ids)

    def count_many(self, texts: list[str]) -> list[int]:
        return [len(e.ids) for e in self._tok.encode_batch(texts, add_special_tokens=False)]

    def encode(self, text: str) -> list[int]:
        return list(self._tok.encode(text, add_special_tokens=False).ids)


def load_tokenizer(spec: str, endpoint_url: str | None = None,
                   api_key: str | None = None) -> Tokenizer:
    """``spec``: a local folder or tokenizer.json, or ``server`` (the endpoint's tokenize
    route at ``endpoint_url``)."""
    if spec == "server":
        if not endpoint_url or endpoint_url == "inproc":
            raise ConfigError("--tokenizer server needs an HTTP endpoint with a tokenize route "
                              "(llama.cpp, vLLM, SGLang); pass --tokenizer DIR instead")
        from agentic_bench.transport.tokenize_client import ServerTokenizer

        return ServerTokenizer(endpoint_url, api_key)
    return LocalTokenizer(spec)


__all__ = ["LocalTokenizer", "Tokenizer", "load_tokenizer"]
