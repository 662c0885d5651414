"""SGLang agentic-trace JSON → sessions.

The format (``sgl-project/sglang``, ``python/sglang/benchmark/datasets/agentic_trace.py`` and
``agentic.py``, used by ``bench_serving --dataset-name agentic``)::

    {"metadata": {...},
     "conversations": [[{"messages": [{"role": "system", ...}, {"role": "user", ...}],
                         "prompt_tokens": 73821},
                        {"messages": [{"role": "user", ...}], "prompt_tokens": 74894}, ...]]}

A conversation is a list of rounds; each round's ``messages`` hold only the *new*
non-assistant messages (user content may be a list of ``{type: text}`` blocks). SGLang replays
it live: the server's own reply is fed back before the next round, so no assistant text is
recorded. Mapping: conversation → session; system messages of the first round → ``system``;
round → turn whose ``user`` is its user/tool messages joined by blank lines (SGLang turns
``tool`` into ``user`` as well) with one ``llm`` step: ``params.max_tokens`` = 220 (SGLang's
default per-round output length, or ``metadata.output_len`` when present),
``usage.input_tokens`` = ``prompt_tokens``. Replay it with ``--history live``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentic_bench.trace.importers.common import build_session, fail, load_json, text_of
from agentic_bench.trace.model import Session

DEFAULT_OUTPUT_LEN = 220


def import_sglang(path: Path) -> Iterator[Session]:
    data = load_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("conversations"), list):
        raise fail(path, 0, "conversations", "expected an object with a 'conversations' list")
    raw_meta = data.get("metadata")
    meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
    out_len = meta.get("output_len", meta.get("agentic_output_len", DEFAULT_OUTPUT_LEN))
    if isinstance(out_len, bool) or not isinstance(out_len, int) or out_len < 1:
        raise fail(path, 0, "metadata.output_len", f"must be an integer >= 1, got {out_len!r}")
    for ci, convo in enumerate(data["conversations"]):
        if not isinstance(convo, list):
            raise fail(path, 0, f"conversations[{ci}]", "a conversation must be a list of rounds")
        session = _session(path, ci, convo, meta, out_len)
        if session is not None:
            yield session


def _session(path: Path, ci: int, convo: list[Any], meta: dict[str, Any],
             out_len: int) -> Session | None:
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    dropped = 0
    for ri, rnd in enumerate(convo):
        where = f"conversations[{ci}][{ri}]"
        if not isinstance(rnd, dict) or not isinstance(rnd.get("messages"), list):
            raise fail(path, 0, f"{where}.messages", "each round needs a 'messages' list")
        user: list[str] = []
        for mi, msg in enumerate(rnd["messages"]):
            if not isinstance(msg, dict) or not isinstance(msg.get("role"), str):
                raise fail(path, 0, f"{where}.messages[{mi}].role", "missing role")
            text = text_of(msg.get("content"))
            if msg["role"] == "system" and not turns:
                system.append(text)
            elif msg["role"] in ("user", "tool") and text:
                user.append(text)
            else:
                dropped += 1
        if not user:
            continue  # SGLang skips empty rounds as well
        tokens = rnd.get("prompt_tokens")
        step: dict[str, Any] = {"kind": "llm", "params": {"max_tokens": out_len}}
        if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens >= 0:
            step["usage"] = {"input_tokens": tokens}
        turns.append({"user": "\n\n".join(user), "steps": [step]})
    if not turns:
        return None
    metadata: dict[str, Any] = {"source": "sglang-agentic", "source_index": ci,
                                "history": "live (no assistant text recorded)"}
    for key in ("dataset_name", "model_path"):
        if isinstance(meta.get(key), str):
            metadata[f"sglang_{key}"] = meta[key]
    if dropped:
        metadata["dropped_messages"] = dropped
    data: dict[str, Any] = {"session_id": f"sglang-{ci}", "turns": turns,
                            "metadata": metadata}
    if system:
        data["system"] = "\n\n".join(system)
    return build_session(data, path, 0)
