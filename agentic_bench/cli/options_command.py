"""Commands whose options are an options model (``sim``, ``record``, ``serve``,
``rag build-index``): registered without options of their own, so every word after the command
— ``--help`` and ``--config FILE`` included — reaches the parser generated from the model when
the command runs (the model imports pydantic, which ``agentic-bench --help`` must not)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from agentic_bench.options.schema import OptionsModel

M = TypeVar("M", bound="OptionsModel")


def add_options_command(sub: argparse._SubParsersAction,  # type: ignore[type-arg]
                        name: str, help: str) -> argparse.ArgumentParser:
    """A subcommand that hands its words to :func:`parse_command`."""
    parser: argparse.ArgumentParser = sub.add_parser(name, help=help, add_help=False,
                                                     prefix_chars="\x00")
    take_remainder(parser)
    return parser


def take_remainder(parser: argparse.ArgumentParser) -> None:
    """A nested subcommand's parser (``traces stats``, ``submission pack``), made with
    ``add_help=False, prefix_chars="\\x00"``: every word after it goes to its model."""
    parser.add_argument("rest", nargs=argparse.REMAINDER, metavar="[OPTIONS]")


def parse_command(model: type[M], argv: Sequence[str], command: str) -> M:
    """``argv`` as ``model``'s validated options (``--config FILE`` whose ``benchmark:`` key,
    when present, names ``command``)."""
    from agentic_bench.options.parser import parse_options

    return parse_options(model, list(argv), prog=f"agentic-bench {command}",
                         description=getattr(model, "description", None) or None,
                         benchmark=command)


__all__ = ["add_options_command", "parse_command", "take_remainder"]
