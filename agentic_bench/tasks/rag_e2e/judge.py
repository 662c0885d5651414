"""Optional LLM judge (``--judge-endpoint``): is the predicted answer equivalent to the gold one?

The judge runs after the timed run (when the accuracy block is computed), on its own
connection, so it never adds to measured latencies. A judge call that fails or replies with
neither CORRECT nor INCORRECT is a *judge error*: reported separately and excluded from the
judge accuracy, never counted as a wrong answer. Unanswered questions are wrong without a call.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

_VERDICT = re.compile(r"\b(incorrect|correct)\b", re.IGNORECASE)
JUDGE_SYSTEM = (
    "You grade answers to trivia questions. Given a question, the gold answer and a predicted "
    "answer, decide whether the prediction means the same as the gold answer (ignore case, "
    "punctuation, articles and extra detail that does not contradict it). Reply with exactly "
    "one word: CORRECT or INCORRECT."
)


@dataclass(frozen=True, slots=True)
class JudgeConfig:
    url: str
    model: str | None = None
    api_key: str | None = None
    concurrency: int = 4
    timeout_s: float = 120.0
    max_tokens: int = 8


def judge_messages(question: str, gold: str, prediction: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": JUDGE_SYSTEM},
        {"role": "user", "content": f"Question: {question}\nGold answer: {gold}\n"
         f"Predicted answer: {prediction}\nVerdict:"},
    ]


def parse_verdict(text: str) -> bool | None:
    """True for CORRECT, False for INCORRECT (first one mentioned), None when neither."""
    match = _VERDICT.search(text or "")
    if match is None:
        return None
    return match.group(1).lower() == "correct"


async def _judge_async(items: Sequence[dict[str, Any]], cfg: JudgeConfig) -> dict[str, Any]:
    from agentic_bench.transport.choose import make_chat_client
    from agentic_bench.transport.url import redact_url

    client = make_chat_client(cfg.url, cfg.api_key, timeout_s=cfg.timeout_s)
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
                                               item["prediction"])}
            async with limiter:
                result = await client.chat(body, cfg.timeout_s)
            if not result.ok:
                errors[result.error_type or "error"] += 1
                if len(examples) < 5:
                    examples.append(f"{result.error_type}: {result.error}")
                return
            verdict = parse_verdict(result.content)
            if verdict is None:
                errors["unparseable"] += 1
                if len(examples) < 5:
                    examples.append(f"unparseable: {result.content[:80]!r}")
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


def judge_samples(samples: Sequence[dict[str, Any]], cfg: JudgeConfig,
                  questions: dict[str, str]) -> dict[str, Any]:
    """Judge every answered sample; the ``judge`` block of the accuracy summary."""
    answered = [s for s in samples if s.get("answered") and s.get("prediction")]
    items = [{"question": questions.get(s["question_id"], ""), "gold": s["gold"],
              "prediction": s["prediction"]} for s in answered]
    out = _in_thread(items, cfg) if items else {"endpoint": cfg.url, "model": cfg.model,
                                                "verdicts": [], "errors": {},
                                                "error_examples": []}
    verdicts = out.pop("verdicts")
    correct = sum(1 for v in verdicts if v is True)
    judged = sum(1 for v in verdicts if v is not None)
    wrong_unjudged = len(samples) - len(answered)  # unanswered / empty answers: wrong, no call
    denominator = judged + wrong_unjudged
    return {**out, "correct": correct, "judged": judged,
            "judge_errors": sum(out["errors"].values()),
            "unanswered_counted_wrong": wrong_unjudged,
            "accuracy": correct / denominator if denominator else None}
