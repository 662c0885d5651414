"""``--slo KEY=VALUE``, parsed once: :class:`SloSet`, the constraints a run's verdict checks."""

from __future__ import annotations

from dataclasses import dataclass

from agentic_bench.options.schema import TextList


@dataclass(frozen=True)
class SloSet(TextList):
    """The ``--slo`` values as given (``texts``: each may hold several ``KEY=VALUE`` separated
    by commas) and the limits they set (``limits``; a later key wins). Keys are the declared
    latency SLOs and the lower limits (:func:`agentic_bench.metrics.verdict.slo_keys`)."""

    texts: tuple[str, ...] = ()
    pairs: tuple[tuple[str, float], ...] = ()

    @classmethod
    def parse(cls, texts: tuple[str, ...]) -> SloSet:
        from agentic_bench.metrics.verdict import parse_slos

        return cls(tuple(texts), tuple(parse_slos(list(texts)).items()))

    @property
    def limits(self) -> dict[str, float]:
        return dict(self.pairs)


__all__ = ["SloSet"]
