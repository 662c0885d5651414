"""Trace data model: session → turns → steps (pydantic v2).

A trace file is JSONL, one :class:`Session` per line, ``schema_version`` on every line.
See ``docs/trace-format.md`` for the field-by-field description.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = "1"
SUPPORTED_SCHEMA_VERSIONS = frozenset({SCHEMA_VERSION})


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class ToolCall(_Strict):
    """A tool call as the assistant made it (arguments already decoded from JSON)."""

    id: str | None = None
    name: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)


class Usage(_Strict):
    """Token counts of a recorded LLM call, as the server reported them."""
    input_tokens: int | None = Field(default=None, ge=0)
    output_tokens: int | None = Field(default=None, ge=0)


class PromptBlocks(_Strict):
    """A prompt given by its size and KV-cache blocks instead of its text (a Weka trace row).

    ``hash_ids`` names each full ``block_size``-token block of the prompt (see
    :class:`TokenBlocks`); equal ids are equal blocks. The step's ``usage.input_tokens`` is the
    prompt's size and ``usage.output_tokens`` the recorded reply's. The replayer synthesizes
    text with exactly that many content tokens of the run's tokenizer
    (:mod:`agentic_bench.synthesis`); ``new_input`` says what the new part of the prompt was
    (a user message or a tool result), when the recording said.
    """

    hash_ids: list[int] = Field(default_factory=list)
    new_input: Literal["user", "tool_result"] | None = None


class TokenBlocks(_Strict):
    """How the prompts of a session (or of a spawned branch) are laid out in blocks: the block
    size in tokens, the scope of hash ids (``local``: one namespace per session tree) and how
    many leading tokens are tool schemas and system prompt (the first request's system
    message covers ``ceil((tool_tokens + system_tokens) / block_size)`` blocks)."""

    block_size: int = Field(gt=0)
    hash_id_scope: Literal["local"] = "local"
    tool_tokens: int = Field(default=0, ge=0)
    system_tokens: int = Field(default=0, ge=0)


class AssistantOutput(_Strict):
    """What the assistant produced in a recorded LLM call."""

    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)


class Document(_Strict):
    """A retrieved or reranked passage: its id, title, text and score."""
    id: str | None = None
    title: str | None = None
    text: str = ""
    score: float | None = None


class LlmStep(_Strict):
    """One chat-completion call.

    ``messages`` (optional) is the exact recorded request history; when absent the replayer
    derives the history from the session (system, user turns, earlier outputs, tool results,
    retrieved documents).
    """

    kind: Literal["llm"] = "llm"
    messages: list[dict[str, Any]] | None = None
    prompt: PromptBlocks | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    output: AssistantOutput = Field(default_factory=AssistantOutput)
    usage: Usage | None = None
    duration_ms: float | None = Field(default=None, ge=0)
    ttft_ms: float | None = Field(default=None, ge=0)
    start_s: float | None = Field(default=None, ge=0, description="recorded start, seconds "
                                  "from the start of the session (its tree's, in a branch)")


class ToolStep(_Strict):
    """A tool execution between LLM calls (not executed for real by a plain replay)."""

    kind: Literal["tool"] = "tool"
    call_id: str | None = None
    name: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)
    result: str = ""
    duration_ms: float = Field(default=0.0, ge=0)


class RetrieveStep(_Strict):
    """A retrieval stage: the query, ``k`` and the documents found."""
    kind: Literal["retrieve"] = "retrieve"
    query: str = ""
    documents: list[Document] = Field(default_factory=list)
    k: int | None = Field(default=None, ge=1)
    duration_ms: float = Field(default=0.0, ge=0)


class RerankStep(_Strict):
    """A reranking stage: the query and the documents in their new order."""
    kind: Literal["rerank"] = "rerank"
    query: str = ""
    documents: list[Document] = Field(default_factory=list)
    duration_ms: float = Field(default=0.0, ge=0)


class EmbedStep(_Strict):
    """An embedding stage: the texts embedded."""
    kind: Literal["embed"] = "embed"
    inputs: list[str] = Field(default_factory=list)
    duration_ms: float = Field(default=0.0, ge=0)


class WaitStep(_Strict):
    """Client-side time the recording shows between two steps without saying what it was (a
    Weka trace's gap between one request's end and the next one's start: tools running, the
    user typing, the agent waiting). The replayer waits it out under ``--think-time``."""

    kind: Literal["wait"] = "wait"
    duration_ms: float = Field(ge=0)
    reason: str | None = None


class Branch(_Strict):
    """A subagent with its own conversation: a member of a fan-out, or a spawned branch.

    Its history starts afresh: ``system`` (else the session's), then ``task`` as the user
    message, then what its own steps contributed (as within a turn); an LLM step that recorded
    ``messages`` is sent with them instead, one with ``prompt`` blocks is synthesized from them
    (``token_blocks``, else the session's, lays them out). Its steps may fan out or spawn
    again. ``id`` names a spawned branch for the joins that wait for it.
    """

    id: str | None = None
    name: str | None = None
    system: str | None = None
    task: str = ""
    token_blocks: TokenBlocks | None = None
    steps: list[Step] = Field(min_length=1)
    metadata: dict[str, Any] = Field(default_factory=dict)


class ParallelStep(_Strict):
    """A fan-out within a turn: every branch runs at once; the turn goes on when all are done
    (the join). A parallel step adds nothing to the parent's derived history — an LLM step
    after the join that needs the subagents' results records them in its ``messages``."""

    kind: Literal["parallel"] = "parallel"
    branches: list[Branch] = Field(min_length=1)


class SpawnStep(_Strict):
    """Start a branch (a subagent) and go on at once: nothing waits for it here. A later
    :class:`JoinStep` of the same conversation (the session's turns, or the branch that
    spawned it) may wait for it; one that nothing joins runs in the background, and the
    session ends when every branch it spawned has ended."""

    kind: Literal["spawn"] = "spawn"
    branch: Branch
    start_s: float | None = Field(default=None, ge=0, description="recorded spawn time, "
                                  "seconds from the start of the session")


class JoinStep(_Strict):
    """Wait until the named spawned branches have ended (a tiered join: each join waits only
    for the branches it names; the others keep running)."""

    kind: Literal["join"] = "join"
    branches: list[str] = Field(min_length=1)


Step = Annotated[
    LlmStep | ToolStep | RetrieveStep | RerankStep | EmbedStep | ParallelStep | WaitStep
    | SpawnStep | JoinStep,
    Field(discriminator="kind"),
]
STEP_KINDS = ("llm", "tool", "retrieve", "rerank", "embed", "parallel", "wait", "spawn", "join")


class Turn(_Strict):
    """One user message and everything the system did to answer it."""

    user: str
    think_time_s: float = Field(default=0.0, ge=0, description="user wait before this turn")
    steps: list[Step] = Field(default_factory=list)
    references: dict[str, Any] = Field(default_factory=dict)


class References(_Strict):
    """What a correct run of the session looks like (for scoring)."""

    answer: str | None = None
    documents: list[str] = Field(default_factory=list)
    tool_calls: list[list[ToolCall]] = Field(default_factory=list)
    extra: dict[str, Any] = Field(default_factory=dict)


class Session(_Strict):
    """One task instance: a conversation, an agent trajectory, a RAG question."""

    schema_version: str
    session_id: str = Field(min_length=1)
    system: str | None = None
    tools: list[dict[str, Any]] = Field(default_factory=list)
    turns: list[Turn] = Field(min_length=1)
    start_offset_s: float | None = Field(default=None, ge=0)
    category: str | None = None
    references: References = Field(default_factory=References)
    metadata: dict[str, Any] = Field(default_factory=dict)
    token_blocks: TokenBlocks | None = None

    def tool_names(self) -> set[str]:
        names: set[str] = set()
        for tool in self.tools:
            fn = tool.get("function", tool)
            if isinstance(fn, dict) and isinstance(fn.get("name"), str):
                names.add(fn["name"])
        return names

    def llm_step_count(self) -> int:
        """LLM calls a recorded-history replay sends, those of fan-out branches included."""
        return sum(_llm_calls(t.steps) for t in self.turns)


def _llm_calls(steps: list[Step]) -> int:
    return sum(1 if s.kind == "llm" else
               sum(_llm_calls(b.steps) for b in s.branches) if isinstance(s, ParallelStep) else
               _llm_calls(s.branch.steps) if isinstance(s, SpawnStep) else 0
               for s in steps)


Branch.model_rebuild()
ParallelStep.model_rebuild()
SpawnStep.model_rebuild()
Turn.model_rebuild()
