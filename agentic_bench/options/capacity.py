"""``--cache-capacity`` (``replay``, ``traces stats``): finite KV-cache sizes in tokens, given as
a list ``A,B,C`` or repeated; the figure itself is trace/prefix_lru.py's."""

from __future__ import annotations

from collections.abc import Iterable

from agentic_bench.errors import ConfigError


def parse_capacities(texts: Iterable[str], flag: str = "--cache-capacity") -> tuple[int, ...]:
    """``["1000000", "2000000,4000000"]`` → token capacities (each a positive integer)."""
    out: list[int] = []
    for text in texts:
        for part in filter(None, (p.strip() for p in str(text).split(","))):
            try:
                value = int(part.replace("_", ""))
            except ValueError:
                value = 0
            if value < 1:
                raise ConfigError(f"{flag} {part!r}: expected a number of tokens >= 1 "
                                  "(e.g. 1000000, or a list 500000,1000000)")
            out.append(value)
    return tuple(out)


__all__ = ["parse_capacities"]
