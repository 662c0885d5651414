"""Subagents in OpenTelemetry GenAI traces: ``invoke_agent`` spans under other agents.

The GenAI semantic conventions mark an agent's work with an ``invoke_agent`` span; the chat and
tool spans it makes are its descendants, and an agent that hands work to other agents has their
``invoke_agent`` spans among its descendants. :class:`AgentTree` finds, for every span, the
agent that owns it (its nearest ``invoke_agent`` ancestor, by ``parentSpanId``), and groups the
subagents of an agent into clusters of overlapping runs — each cluster becomes one ``parallel``
step (subagents run one after another become a step of one branch each).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

AGENT_OP = "invoke_agent"


class AgentTree:
    def __init__(self, spans: Sequence[Any]) -> None:
        self._by_id = {(s.trace_id, s.span_id): s for s in spans if s.span_id}
        self._agents = [s for s in spans if s.op == AGENT_OP]
        self._owner: dict[int, Any] = {}

    def owner(self, span: Any) -> Any:
        """The nearest ``invoke_agent`` ancestor of ``span`` (None: no agent above it)."""
        key = id(span)
        if key not in self._owner:
            found, seen, parent = None, {span.span_id}, span.parent_id
            while parent and parent not in seen:
                seen.add(parent)
                above = self._by_id.get((span.trace_id, parent))
                if above is None:
                    break
                if above.op == AGENT_OP:
                    found = above
                    break
                parent = above.parent_id
            self._owner[key] = found
        return self._owner[key]

    def top_level(self, spans: Iterable[Any]) -> frozenset[Any]:
        """The session's own level: no agent, or a root agent of one of its traces."""
        traces = {s.trace_id for s in spans}
        return frozenset({None, *(a for a in self._agents
                                  if a.trace_id in traces and self.owner(a) is None)})

    def clusters(self, level: frozenset[Any]) -> list[list[Any]]:
        """The subagents of the agents in ``level``, in clusters of overlapping runs."""
        children = sorted((a for a in self._agents if a not in level and self.owner(a) in level),
                          key=lambda a: (a.start_ns, a.end_ns))
        out: list[list[Any]] = []
        end = None
        for agent in children:
            if out and end is not None and agent.start_ns < end:
                out[-1].append(agent)
                end = max(end, agent.end_ns)
            else:
                out.append([agent])
                end = agent.end_ns
        return out


__all__ = ["AGENT_OP", "AgentTree"]
