"""Optional LLM judge (``--judge-endpoint``), scoring as MLPerf's E2E-RAG reference does.

Reference: mlcommons/inference b66003e1, ``e2e-rag/accuracy_eval.py``. Rebuilt here:

* the request (68-90): one user message holding the question, the ground truth and the
  answer, with a two-step rule — an empty or non-committal answer is wrong at once; otherwise
  correct only when every required fact matches (all parts of a list, every number, date and
  name), harmless extras or omissions not counted against it — and a JSON reply
  ``{"correct": ..., "reasoning": ...}``; temperature 0, ``max_tokens`` 1024, not streamed:
  posted as one JSON request and its reply read whole (``choices[0].message.content``, 92-105),
  as :func:`post_unstreamed` does. :data:`JUDGE_PROMPT` is our own wording of that rule;
* the reply (100-126, 223-231): inside a fenced code block when there is one, the text from
  the first ``{`` to the last ``}``, parsed as JSON; its ``correct`` value counts as correct
  when truthy (so the string ``"false"`` counts as correct there, and here). A failed call, no
  JSON object, or JSON that does not parse is **incorrect** (a judge error, counted and shown);
* every question is judged, an unanswered one with an empty answer (the reference judges every
  result it logged), and the accuracy is correct / all questions (262-268);
* ``accuracy.txt`` holds ``Accuracy: <percent with 4 decimals>`` (353-355).

The judge runs after the timed run (when the accuracy block is computed), on its own
connection, so it never adds to measured latencies.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentic_bench.metrics.summary_model import Summary

JUDGE_PROMPT = """You are checking whether an LLM's answer is correct against the ground truth.

QUESTION: {question}

GROUND TRUTH ANSWER: {ground_truth}

LLM ANSWER: {llm_answer}

Decide in two steps.

STEP 1 - When the LLM answer is empty or does not commit to an answer ("Unknown", "I don't \
know", "cannot be determined" and the like), it is wrong: give correct=false at once and skip \
step 2.

STEP 2 - Otherwise judge by meaning, not by wording. Give correct=true only when the answer \
supplies every fact the ground truth requires and each one clearly matches; when you are unsure \
or it matches only in part, give correct=false. In particular:
- a ground truth that is a list or has several parts needs every part, or it is correct=false;
- every number, date and name must match: a different value, a different rounding or a \
different name is correct=false;
- harmless extras or omissions do not count against an answer whose required facts match: a \
missing suffix such as "Inc.", an added state or country, a full middle name, missing units on \
a correct number, a shorter or longer phrasing.

Reply with JSON only:
{{
    "correct": true or false,
    "reasoning": "a short explanation"
}}
"""
MAX_TOKENS = 1024
JUDGE_ERROR_EXCERPT = 300  # characters of a failed reply kept in the error examples
_FENCED = re.compile(r"```(?:json)?\s*\n?(.*?)\n?```", re.DOTALL)
_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


@dataclass(frozen=True, slots=True)
class JudgeConfig:
    url: str
    model: str | None = None
    api_key: str | None = None
    concurrency: int = 4
    timeout_s: float = 60.0  # mlcommons/inference b66003e1 e2e-rag/accuracy_eval.py 97
    max_tokens: int = MAX_TOKENS
    template: str | None = None  # the reference's JUDGE_PROMPT (--reference-dir); ours if None
    transport: str | None = None  # the run's --transport (None: the environment, then raw)


def judge_messages(question: str, gold: str, prediction: str,
                   template: str | None = None) -> list[dict[str, str]]:
    return [{"role": "user", "content": (template or JUDGE_PROMPT).format(
        question=question, ground_truth=gold, llm_answer=prediction)}]


def parse_verdict(text: str) -> tuple[bool, str | None]:
    """(correct, error): the reference's reading of a judge reply; a reply it cannot read is
    incorrect, with the reason as ``error``."""
    content = (text or "").strip()
    if "```" in content and (fenced := _FENCED.search(content)):
        content = fenced.group(1).strip()
    found = _OBJECT.search(content)
    if found is None:
        return False, "no JSON object in the reply"
    try:
        verdict = json.loads(found.group(0))
    except json.JSONDecodeError as exc:
        return False, f"JSON does not parse: {exc.msg}"
    if not isinstance(verdict, dict):  # the reference's .get would raise: a judge error
        return False, f"JSON is a {type(verdict).__name__}, not an object"
    return bool(verdict.get("correct", False)), None


def write_accuracy_txt(out_dir: Path, accuracy: float) -> Path:
    """MLPerf's ``accuracy.txt``: the judge accuracy as a percentage with 4 decimals."""
    path = Path(out_dir) / "accuracy.txt"
    path.write_text(f"Accuracy: {accuracy * 100:.4f}\n", encoding="utf-8")
    return path


def write_artifacts(out_dir: Path, summary: Summary | dict[str, Any],
                    records: list[dict[str, Any]]) -> list[Path]:
    """``accuracy.txt`` beside the summary when a judge scored the run (run and ``report``)."""
    judge = (Summary.of(summary).accuracy or {}).get("judge") or {}
    if judge.get("accuracy") is None:
        return []
    return [write_accuracy_txt(out_dir, judge["accuracy"])]


@dataclass(frozen=True, slots=True)
class JudgeReply:
    """A non-streamed reply: its message content, or why there is none (``error_type``)."""

    content: str | None
    error_type: str | None = None
    error: str | None = None


def _message_content(raw: bytes) -> JudgeReply:
    """``choices[0].message.content`` of a chat completion body (accuracy_eval.py 104)."""
    try:
        body = json.loads(raw)
        content = body["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        excerpt = raw[:JUDGE_ERROR_EXCERPT].decode("utf-8", "replace")
        return JudgeReply(None, "malformed", f"no choices[0].message.content "
                          f"({type(exc).__name__}): {excerpt!r}")
    if not isinstance(content, str):  # the reference's .strip() raises: a judge error
        return JudgeReply(None, "malformed", f"message content is {type(content).__name__}")
    return JudgeReply(content)


async def post_unstreamed(client: Any, body: dict[str, Any], timeout_s: float) -> JudgeReply:
    """POST ``body`` to the client's ``/chat/completions`` without ``stream``, as the
    reference's ``requests.post(..., json=payload)`` does (accuracy_eval.py 86-99), through
    the run's sender (its URL, credentials and ``--transport``); the streaming chat layer is
    not used."""
    from agentic_bench.transport.chat import SendError
    from agentic_bench.transport.request import NO_CONTEXT
    from agentic_bench.transport.result import http_error_type

    payload = client._encode({**body, "stream": False})
    try:
        reply = await client._send(payload, NO_CONTEXT, timeout_s)
    except SendError as exc:
        return JudgeReply(None, exc.kind, exc.message)
    raw = b"".join(piece for _, piece in reply.pieces)
    if reply.status >= 400:
        excerpt = raw[:JUDGE_ERROR_EXCERPT].decode("utf-8", "replace")
        return JudgeReply(None, http_error_type(excerpt), f"HTTP {reply.status}: {excerpt}")
    return _message_content(raw)


async def _judge_async(items: Sequence[dict[str, Any]], cfg: JudgeConfig) -> dict[str, Any]:
    from agentic_bench.transport.choose import make_chat_client
    from agentic_bench.transport.url import redact_url

    client = make_chat_client(cfg.url, cfg.api_key, kind=cfg.transport, timeout_s=cfg.timeout_s)
    verdicts: list[bool | None] = [None] * len(items)
    errors: Counter[str] = Counter()
    examples: list[str] = []
    try:
        model = cfg.model
        if model is None:
            status, body = await client.list_models()
            data = body.get("data", []) if isinstance(body, dict) else []
            model = next((m.get("id") for m in data if isinstance(m, dict)), None)
            if status != 200 or not model:
                raise RuntimeError(f"judge endpoint lists no models (HTTP {status})")
        limiter = asyncio.Semaphore(max(1, cfg.concurrency))

        async def one(i: int, item: dict[str, Any]) -> None:
            body = {"model": model, "temperature": 0, "max_tokens": cfg.max_tokens,
                    "messages": judge_messages(item["question"], item["gold"],
                                               item["prediction"], cfg.template)}
            async with limiter:
                result = await post_unstreamed(client, body, cfg.timeout_s)
            if result.content is None:
                errors[result.error_type or "error"] += 1
                if len(examples) < 5:
                    examples.append(f"{result.error_type}: {result.error}")
                return
            verdict, problem = parse_verdict(result.content)
            if problem is not None:
                errors["unparseable"] += 1
                if len(examples) < 5:
                    examples.append(f"unparseable ({problem}): {result.content[:80]!r}")
            verdicts[i] = verdict

        await asyncio.gather(*(one(i, it) for i, it in enumerate(items)))
    except Exception as exc:  # the whole judge failed: every item is a judge error
        errors[type(exc).__name__] += len(items) - sum(v is not None for v in verdicts)
        examples.append(f"{type(exc).__name__}: {exc}"[:300])
        model = cfg.model
    finally:
        await client.aclose()
    return {"endpoint": redact_url(cfg.url), "model": model, "verdicts": verdicts,
            "errors": dict(errors), "error_examples": examples}


def _in_thread(items: Sequence[dict[str, Any]], cfg: JudgeConfig) -> dict[str, Any]:
    """Run the judge on a private event loop (callable from inside a running loop)."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["out"] = asyncio.run(_judge_async(items, cfg))
        except BaseException as exc:  # pragma: no cover - surfaced below
            box["exc"] = exc

    thread = threading.Thread(target=target, name="rag-judge")
    thread.start()
    thread.join()
    if "exc" in box:
        raise box["exc"]
    out: dict[str, Any] = box["out"]
    return out


ERROR_ANSWER = "Error"  # the reference's answer to a question that raised


def judged_items(samples: Sequence[dict[str, Any]],
                 questions: dict[str, str]) -> list[dict[str, str]]:
    """What the judge is asked for each sample: the answer; ``Error`` for a question whose
    pipeline raised, as the reference stores it for the judge (mlcommons/inference b66003e1
    e2e-rag/reference_SUT.py 294-307: the exception handler sets the answer to "Error");
    an empty answer for one never answered (interrupted, capped)."""
    def answer(s: dict[str, Any]) -> str:
        if s.get("answered"):
            return str(s.get("prediction") or "")
        return ERROR_ANSWER if s.get("error") else ""

    return [{"question": questions.get(s["question_id"], ""), "gold": s["gold"],
             "prediction": answer(s)} for s in samples]


def judge_samples(samples: Sequence[dict[str, Any]], cfg: JudgeConfig,
                  questions: dict[str, str]) -> dict[str, Any]:
    """Judge every question; the ``judge`` block of the accuracy summary.

    A question whose pipeline raised is judged with the answer ``Error`` and one never answered
    with an empty one (:func:`judged_items`); a judge error is incorrect. ``accuracy`` =
    correct / questions, as ``accuracy.txt`` reports it.
    """
    items = judged_items(samples, questions)
    out = _in_thread(items, cfg) if items else {"endpoint": cfg.url, "model": cfg.model,
                                                "verdicts": [], "errors": {},
                                                "error_examples": []}
    verdicts = out.pop("verdicts")
    correct = sum(1 for v in verdicts if v is True)
    errors = sum(out["errors"].values())
    return {**out, "rule": "MLPerf E2E-RAG accuracy_eval.py: a judge error is incorrect",
            "questions": len(items), "correct": correct, "judge_errors": errors,
            "judged": len(items) - errors,
            "unanswered_judged": sum(1 for s in samples if not s.get("answered")),
            "accuracy": correct / len(items) if items else None}
