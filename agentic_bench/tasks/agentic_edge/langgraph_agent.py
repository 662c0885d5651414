"""A reference tool-using agent as a LangGraph ``StateGraph`` (``--agent langgraph``).

Two nodes — ``agent`` (one LLM call through the harness transport, so it is timed and
recorded like every other step) and ``tools`` (the model's calls on bfcl-eval's simulated
APIs) — and a conditional edge that loops back to the agent until it answers without a tool
call or the step limit is reached. It does what the plain loop does, through the graph
runtime people build real agents with, so the framework's own overhead shows up in the
turn latency.
"""

from __future__ import annotations

from typing import Any, TypedDict

from agentic_bench.tasks.agentic_edge.agent_step import agent_step
from agentic_bench.tasks.agentic_edge.api_environment import ApiEnvironment
from agentic_bench.tasks.agentic_edge.multi_turn import MultiTurnSample, tools_at_turn
from agentic_bench.tasks.recorder import SessionRecorder


class AgentState(TypedDict):
    step: int
    calls: list[list[dict[str, Any]]]
    done: bool


def build_graph(rec: SessionRecorder, env: ApiEnvironment, sample: MultiTurnSample,
                messages: list[dict[str, Any]], turn: int, max_steps: int) -> Any:
    from langgraph.graph import END, START, StateGraph

    tools = tools_at_turn(sample, turn)

    async def agent(state: AgentState) -> dict[str, Any]:
        calls = await agent_step(rec, env, sample, messages, tools, turn, state["step"])
        if calls is None:
            return {"done": True}
        return {"calls": [*state["calls"], calls], "step": state["step"] + 1}

    def route(state: AgentState) -> str:
        return END if state["done"] or state["step"] >= max_steps else "agent"

    graph = StateGraph(AgentState)
    graph.add_node("agent", agent)
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", route)
    return graph.compile()


async def langgraph_turn(rec: SessionRecorder, env: ApiEnvironment, sample: MultiTurnSample,
                         messages: list[dict[str, Any]], turn: int,
                         max_steps: int) -> list[list[dict[str, Any]]]:
    graph = build_graph(rec, env, sample, messages, turn, max_steps)
    final = await graph.ainvoke({"step": 0, "calls": [], "done": False},
                                config={"recursion_limit": max_steps + 5})
    calls: list[list[dict[str, Any]]] = final["calls"]
    return calls
