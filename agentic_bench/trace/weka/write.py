"""Any content-bearing session as a Weka trace (``agentic-bench traces convert --to weka``):
token counts and KV-cache block hashes, no text — so a team can share its agents' traffic
without its prompts, and a round trip can be checked exactly.

Each LLM request a recorded-history replay sends becomes a row. Its tokens are, in order, the
tool schemas (``json.dumps`` of the session's tools, sorted keys) and each message's text (its
content; an assistant message's tool calls as JSON after it), tokenized part by part with the
run's tokenizer (no special tokens); ``in`` is their sum, and every full ``block_size``-token
block gets a chained hash (sha256 of the previous block's hash and this block's token ids),
numbered per trace from 1 in first-seen order (``hash_id_scope: local``; the scheme of
agentic-coding-analysis ``build_minimal_traces.py``, without its salt). ``tool_tokens`` and
``system_tokens`` are the first request's tool-schema and system-message tokens. ``out`` is the
recorded ``usage.output_tokens``, else the reply's tokens. Times follow the recording: a
request starts when the previous step ended (``duration_ms`` of LLM, tool and other steps, the
turns' think time); ``api_time`` and ``ttft`` are the recorded ones. Fan-out and spawned
branches become subagents (absolute times, spawned after the request before them; a branch
inside a branch is left out: the format nests one level).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from agentic_bench.synthesis.tokenizer import Tokenizer
from agentic_bench.trace.history import branch_session, messages_before
from agentic_bench.trace.model import Branch, LlmStep, ParallelStep, Session, SpawnStep


def message_texts(tools: list[dict[str, Any]], messages: list[dict[str, Any]]) -> list[str]:
    """The texts a request is tokenized from, in order (see the module's rule)."""
    parts = [json.dumps(tools, sort_keys=True, ensure_ascii=False)] if tools else []
    for msg in messages:
        content = msg.get("content")
        text = content if isinstance(content, str) else (
            json.dumps(content, ensure_ascii=False) if content is not None else "")
        calls = msg.get("tool_calls")
        if calls:
            text += json.dumps(calls, sort_keys=True, ensure_ascii=False)
        parts.append(text)
    return parts


@dataclass
class _Numbering:
    """Chained block hashes → small ids, one namespace per trace."""

    ids: dict[str, int] = field(default_factory=dict)

    def blocks(self, tokens: list[int], block_size: int) -> list[int]:
        out: list[int] = []
        previous = "0"
        for i in range(len(tokens) // block_size):
            block = tokens[i * block_size:(i + 1) * block_size]
            previous = hashlib.sha256(f"{previous}:{block}".encode()).hexdigest()[:16]
            out.append(self.ids.setdefault(previous, len(self.ids) + 1))
        return out


@dataclass
class _Writer:
    session: Session
    tokenizer: Tokenizer
    block_size: int
    numbering: _Numbering = field(default_factory=_Numbering)

    def row(self, view: Session, vti: int, si: int, step: LlmStep, t: float,
            previous_tool: bool) -> dict[str, Any]:
        messages = messages_before(view, vti, si)
        texts = message_texts(view.tools, messages)
        token_lists = [self.tokenizer.encode(text) for text in texts]
        tokens = [tok for part in token_lists for tok in part]
        out = step.usage.output_tokens if step.usage and step.usage.output_tokens is not None \
            else len(self.tokenizer.encode("".join(message_texts(
                [], [{"content": step.output.content or "",
                      "tool_calls": [c.model_dump() for c in step.output.tool_calls]}]))))
        row: dict[str, Any] = {
            "t": round(t, 6), "type": "s", "model": "recorded", "in": len(tokens), "out": out,
            "hash_ids": self.numbering.blocks(tokens, self.block_size),
            "input_types": ["tool_result"] if previous_tool else ["text"],
            "output_types": ["tool_use"] if step.output.tool_calls else ["text"],
            "stop": "tool_use" if step.output.tool_calls else "end_turn"}
        if step.duration_ms is not None:
            row["api_time"] = step.duration_ms / 1000.0
        if step.ttft_ms is not None:
            row["ttft"] = step.ttft_ms / 1000.0
        return row

    def prefix(self, view: Session) -> tuple[int, int]:
        tools = len(self.tokenizer.encode(json.dumps(view.tools, sort_keys=True,
                                                     ensure_ascii=False))) if view.tools else 0
        system = len(self.tokenizer.encode(view.system)) if view.system else 0
        return tools, system

    def walk(self, view: Session, vti: int, t: float, previous_tool: bool,
             entries: list[dict[str, Any]]) -> tuple[float, bool]:
        """The rows (and subagents) of one turn of ``view`` from time ``t``; returns the time
        its last step ended."""
        for si, step in enumerate(view.turns[vti].steps):
            if isinstance(step, LlmStep):
                entries.append(self.row(view, vti, si, step, t, previous_tool))
                t += (step.duration_ms or 0.0) / 1000.0
                previous_tool = False
            elif isinstance(step, ParallelStep | SpawnStep):
                members = step.branches if isinstance(step, ParallelStep) else [step.branch]
                ends = [self.subagent(view, member, t, entries) for member in members]
                if isinstance(step, ParallelStep):
                    t = max(ends, default=t)
            else:
                t += (getattr(step, "duration_ms", 0.0) or 0.0) / 1000.0
                previous_tool = previous_tool or step.kind == "tool"
        return t, previous_tool

    def subagent(self, view: Session, member: Branch, t: float,
                 entries: list[dict[str, Any]]) -> float:
        sub = branch_session(view, member)
        rows: list[dict[str, Any]] = []
        end, _ = self.walk(sub, 0, t, False, rows)
        tools, system = self.prefix(sub)
        entries.append({"t": round(t, 6), "type": "subagent",
                        "agent_id": member.id or member.name or f"agent_{len(entries)}",
                        "subagent_type": member.name, "duration_ms": (end - t) * 1000.0,
                        "status": "completed", "models": ["recorded"], "tool_tokens": tools,
                        "system_tokens": system,
                        "requests": [r for r in rows if r.get("type") != "subagent"]})
        return end


def session_to_weka(session: Session, tokenizer: Tokenizer, block_size: int = 64,
                    ) -> dict[str, Any]:
    writer = _Writer(session, tokenizer, block_size)
    entries: list[dict[str, Any]] = []
    t = 0.0
    for ti, turn in enumerate(session.turns):
        t += turn.think_time_s if ti else 0.0
        t, _ = writer.walk(session, ti, t, False, entries)
    tools, system = writer.prefix(session)
    rows = [e for e in entries if e["type"] != "subagent"]
    inner = [r for e in entries if e["type"] == "subagent" for r in e["requests"]]
    parent = {"input": sum(r["in"] for r in rows), "output": sum(r["out"] for r in rows)}
    sub = {"input": sum(r["in"] for r in inner), "output": sum(r["out"] for r in inner)}
    totals = {"parent_tokens": parent, "subagent_tokens": sub,
              "combined_tokens": {k: parent[k] + sub[k] for k in ("input", "output")},
              "subagent_count": len(entries) - len(rows)}
    return {"id": session.session_id, "models": ["recorded"], "block_size": block_size,
            "hash_id_scope": "local", "tool_tokens": tools, "system_tokens": system,
            "requests": entries, "totals": totals}


def sessions_to_weka(sessions: Iterator[Session], tokenizer: Tokenizer,
                     block_size: int = 64) -> Iterator[dict[str, Any]]:
    for session in sessions:
        if session.token_blocks is not None:
            from agentic_bench.errors import UsageError

            raise UsageError(f"session {session.session_id!r} already gives its prompts as "
                             "blocks (it came from a Weka trace)")
        yield session_to_weka(session, tokenizer, block_size)


__all__ = ["message_texts", "session_to_weka", "sessions_to_weka"]
