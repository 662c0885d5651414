"""The project's error tree.

A *failed request* is data (a record with a status); a *bad input* is an exception from this
tree, raised before the run starts, with a message a user can act on. The CLI maps
:class:`UsageError` and its subclasses to exit code 2.
"""

from __future__ import annotations

from dataclasses import dataclass


class AgenticBenchError(Exception):
    """Base of every error this package raises on purpose."""


class UsageError(AgenticBenchError):
    """Bad input or usage: the CLI exits with code 2."""


class ConfigError(UsageError):
    """An invalid option or combination of options."""


@dataclass(frozen=True)
class TraceProblem:
    """One problem found in a trace file."""

    path: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}"
        if self.field:
            return f"{where}: {self.field}: {self.message}"
        return f"{where}: {self.message}"


class TraceError(UsageError):
    """A trace file that cannot be replayed; carries every problem found."""

    def __init__(self, problems: list[TraceProblem]) -> None:
        self.problems = problems
        head = "\n".join(str(p) for p in problems[:20])
        more = f"\n... and {len(problems) - 20} more" if len(problems) > 20 else ""
        super().__init__(head + more)


class EndpointError(UsageError):
    """The endpoint cannot be used at all (unreachable, unknown model, rejected key)."""


class EndpointStartError(UsageError):
    """An embedded endpoint could not be started (busy port, missing model or build)."""
