"""What a named server metric is (:class:`Known`): its unit, kind, the Prometheus samples it is
read from and how several samples combine — or, for a ``split`` metric, the label whose values
each keep their own value (``name[value]``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Combine = Literal["sum", "mean", "max"]


@dataclass(frozen=True, slots=True)
class Known:
    """A server metric given our name: its unit and kind, the Prometheus samples it is read
    from, how several samples combine, a scale and what it means."""

    name: str  # ours
    unit: str
    kind: Literal["gauge", "counter"]
    samples: tuple[str, ...]  # sample names (with _total where the exposition has it)
    combine: Combine = "sum"
    scale: float = 1.0  # multiply to get ``unit``
    description: str = ""
    split: str | None = None  # keep one value per value of this label: name[value]


def split_key(name: str, value: str) -> str:
    """The key of one label value of a split metric: ``name[value]``."""
    return f"{name}[{value}]"


def base_name(key: str) -> str:
    """Our metric's name of a value's key (``name[value]`` → ``name``)."""
    return key.split("[", 1)[0]


__all__ = ["Combine", "Known", "base_name", "split_key"]
