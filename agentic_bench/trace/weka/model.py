"""The Weka trace format as strict pydantic models: one trace object per file (or JSONL row).

Written from the format's description (callanjfox/agentic-coding-analysis
``docs/TRACE_FORMAT.md``; the reader in callanjfox/kv-cache-tester ``trace_replay_tester.py``)
and checked against AIPerf 0.13's reading of it (``dataset/loader/weka_trace_models.py``, which
refuses unknown fields and any ``hash_id_scope`` but ``local``). Units: ``t``, ``api_time``,
``ttft`` and ``think_time`` are seconds, ``duration_ms`` milliseconds, ``in``/``out`` tokens.

A trace holds ``requests`` in recorded order: request rows (``type`` ``n``: the captured body
did not stream, ``s``: it did) and subagent entries (``type: "subagent"``) with their own rows.
``hash_ids`` names each full ``block_size``-token block of a request's input (chained: an id
stands for the whole prefix up to its block), numbered per trace (``local`` scope: one namespace
per trace, shared by the parent and its subagents).
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator, model_validator


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


def _finite(value: float | None) -> float | None:
    if value is not None and not math.isfinite(value):
        raise ValueError("must be a finite number")
    return value


class WekaRow(_Strict):
    """One LLM API call."""

    t: float = Field(ge=0, description="send time, seconds from the start of the list it is in")
    type: Literal["n", "s"]
    model: str
    # strict: a count or an id given as a string ("300") is a problem, not read as a number
    input_tokens: int = Field(alias="in", ge=0, strict=True)
    output_tokens: int = Field(alias="out", ge=0, strict=True)
    hash_ids: list[StrictInt] = Field(default_factory=list)
    input_types: list[str] = Field(default_factory=list)
    output_types: list[str] = Field(default_factory=list)
    stop: str = ""
    api_time: float | None = Field(default=None, ge=0)
    ttft: float | None = Field(default=None, ge=0)
    think_time: float | None = Field(default=None, ge=0)

    _finite_t = field_validator("t", "api_time", "ttft", "think_time")(_finite)

    @property
    def end_s(self) -> float:
        """Recorded end: start + ``api_time`` (a row without one ends when it starts)."""
        return self.t + (self.api_time or 0.0)


class WekaSubagent(_Strict):
    """A subagent the parent started, with its own rows (its own conversation)."""

    t: float = Field(ge=0)
    type: Literal["subagent"]
    agent_id: str = Field(min_length=1)
    subagent_type: str | None = None
    duration_ms: float | None = Field(default=None, ge=0)
    total_tokens: int | None = Field(default=None, ge=0)
    tool_use_count: int | None = Field(default=None, ge=0)
    status: str = "completed"
    requests: list[WekaRow] = Field(default_factory=list)
    models: list[str] = Field(default_factory=list)
    tool_tokens: int = Field(default=0, ge=0)
    system_tokens: int = Field(default=0, ge=0)

    _finite_t = field_validator("t", "duration_ms")(_finite)


WekaEntry = Annotated[WekaRow | WekaSubagent, Field(discriminator="type")]


class TokenPair(_Strict):
    input: int = Field(ge=0)
    output: int = Field(ge=0)


class WekaTotals(_Strict):
    """The trace's own token sums (informative: the reader does not rely on them)."""

    parent_tokens: TokenPair | None = None
    subagent_tokens: TokenPair | None = None
    combined_tokens: TokenPair | None = None
    subagent_count: int | None = Field(default=None, ge=0)


class WekaTrace(_Strict):
    """One Weka trace: its rows (LLM calls), subagents, models and KV-cache block layout."""
    id: str = Field(min_length=1)
    models: list[str] = Field(default_factory=list)
    block_size: int = Field(gt=0)
    hash_id_scope: Literal["local"]
    tool_tokens: int = Field(default=0, ge=0)
    system_tokens: int = Field(default=0, ge=0)
    requests: list[WekaEntry] = Field(min_length=1)
    totals: WekaTotals | None = None

    @field_validator("hash_id_scope", mode="before")
    @classmethod
    def _scope(cls, value: Any) -> Any:
        if value == "global":
            raise ValueError("'global' (ids shared across traces) is not supported: only "
                             "'local' (one namespace per trace), as AIPerf 0.13")
        return value

    @model_validator(mode="after")
    def _blocks_fit(self) -> WekaTrace:
        bs = self.block_size
        for where, row in self.rows():
            if len(row.hash_ids) > -(-row.input_tokens // bs):
                raise ValueError(f"{where}.hash_ids: {len(row.hash_ids)} blocks, more than "
                                 f"the {row.input_tokens}-token input holds at block_size {bs}")
        return self

    def rows(self) -> list[tuple[str, WekaRow]]:
        """Every request row with its path (``requests[3]``, ``requests[5].requests[0]``)."""
        out: list[tuple[str, WekaRow]] = []
        for i, entry in enumerate(self.requests):
            if isinstance(entry, WekaRow):
                out.append((f"requests[{i}]", entry))
            else:
                out.extend((f"requests[{i}].requests[{j}]", row)
                           for j, row in enumerate(entry.requests))
        return out


__all__ = ["TokenPair", "WekaEntry", "WekaRow", "WekaSubagent", "WekaTotals", "WekaTrace"]
