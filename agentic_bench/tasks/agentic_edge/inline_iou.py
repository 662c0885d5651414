"""MLPerf Edge Agentic inline accuracy (per-turn executable IoU), rebuilt as pure functions.

Reference: ``AgenticInferenceInlineScorer`` in mlcommons/endpoints
``src/inference_endpoint/evaluation/scoring.py`` (snapshot ea332753; "L" numbers below are lines
of that file). A *turn* is one client row (``user``/``tool``) = one request; its ground truth is
the recorded ``assistant`` row that follows it in the dataset.

Rules transcribed (each function's docstring repeats its own):

* pairing client row -> next recorded assistant row, NaN -> None: L757-802;
* domain: conversation ids matching ``sim_<digits>`` are "workflow", all others "coding": L553,
  L642-646;
* a recorded turn with no ground truth (coding: no counted executable; workflow: no intent code)
  is excluded, never scored: L647-663;
* executables of a ``bash`` tool call: only ``function.name == "bash"``; JSON-string arguments,
  undecodable ones skipped; ``command`` else ``cmd``; quoted spans ('..', "..", `..`) blanked;
  split on ``||``, ``|``, ``&&``, ``;``, newline; leading ``NAME=value`` and wrapper words
  (env, time, nice, sudo, exec, command) dropped; basename, lower case, ``.N``/``.N.N`` suffix
  removed; mapped through the alias table, executables not in it are not counted: L484-551,
  L558-565, L925-974;
* coding score: multiset IoU |min-counts| / |max-counts| of model vs recorded executables:
  L705-713; workflow score: 1 if the model's intent code is one of the recorded ones: L699-704,
  L888-923;
* an issued turn without model output is scored as an empty assistant message (so 0): L694-696;
* ``__repeat_<n>`` suffix of an issued conversation id = repeat n (default 1): L552, L852-858;
* summary (``scores.json``): mean over scored turns rounded to 4 places, None if none; per-domain
  means; ``turns`` {issued, expected, observed, missing, scored}: L715-750.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import pairwise
from typing import Any

# (conversation_id without __repeat_ suffix, repeat, client turn) - the reference's key, L680.
TurnKey = tuple[str, int, int]

# Alias table (L484-543), written as canonical name -> spellings mapped to it.
_ALIAS_GROUPS: dict[str, tuple[str, ...]] = {
    "python": ("python", "python2", "python3", "py"),
    "pip": ("pip", "pip3"),
    "sphinx": ("sphinx-build", "sphinx-quickstart"),
    "cat": ("cat", "less", "more"),
    "grep": ("grep", "egrep", "fgrep", "rg", "ag"),
    "awk": ("awk", "gawk"),
    "find": ("find", "locate"),
    "source": ("source", "."),
    "curl": ("curl", "wget"),
    "apt": ("apt", "apt-get"),
}
_IDENTITY = (
    "pytest pylint cython make conda head tail wc diff sed tr sort uniq cut ls xargs cp mv rm "
    "mkdir touch tee which alias unset export git true false timeout date yum"
).split()
ALIASES: dict[str, str] = {name: name for name in _IDENTITY} | {
    spelling: canon for canon, spellings in _ALIAS_GROUPS.items() for spelling in spellings
}
# Leading words skipped before the executable (L544-551); their own options are not skipped.
WRAPPERS: frozenset[str] = frozenset({"env", "time", "nice", "sudo", "exec", "command"})

_QUOTED = re.compile(r"""'[^']*'|"(?:\\.|[^"\\])*"|`[^`]*`""")  # L559-561
_SEPARATORS = re.compile(r"&&|\|\|?|;|\n")  # L558
_VERSION_SUFFIX = re.compile(r"(?:\.\d+){1,2}$")  # L565
_REPEAT = re.compile(r"__repeat_(\d+)$")  # L552
_WORKFLOW_ID = re.compile(r"sim_\d+$")  # L553 (used with .match, i.e. anchored at the start)
_TAGGED_INTENT = re.compile(r"\bintent:\s*(i\d{3})\b", re.IGNORECASE)  # L554-556
_BARE_INTENT = re.compile(r"\bI(\d{3})\b")  # L557, case-sensitive
_ASCII_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def _is_assignment(token: str) -> bool:
    """``NAME=...`` with an ASCII identifier NAME (L562-564)."""
    name, eq, _ = token.partition("=")
    return bool(eq and name) and not name[0].isdigit() and set(name) <= _ASCII_WORD


def executables(command: str) -> list[str]:
    """Canonical executables of one shell command line, in order (L959-973).

    Quoted spans are blanked first (so ``bash -c "python x"`` yields nothing: neither ``bash``
    nor anything quoted counts), then every stage is reduced to its first word after
    assignments and wrappers; words not in :data:`ALIASES` are dropped (``cd``, ``echo``...).
    """
    found: list[str] = []
    for stage in _SEPARATORS.split(_QUOTED.sub(" ", command)):
        words = stage.split()
        while words and (_is_assignment(words[0]) or words[0] in WRAPPERS):
            words.pop(0)
        if not words:
            continue
        name = _VERSION_SUFFIX.sub("", words[0].rsplit("/", 1)[-1].lower())
        canonical = ALIASES.get(name)
        if canonical:
            found.append(canonical)
    return found


def turn_executables(tool_calls: Any) -> list[str]:
    """Executables of all ``bash`` tool calls of one assistant turn (L936-974).

    Accepts OpenAI calls ``{"function": {"name", "arguments"}}`` and, as our extension, the
    flattened ``{"name", "arguments"}`` form (used only when the call has no ``function`` key).
    Skipped like the reference: a non-list ``tool_calls``, non-dict calls, other tool names,
    arguments that are not JSON / not an object, a command that is not a string.
    """
    if not isinstance(tool_calls, list | tuple):
        return []
    found: list[str] = []
    for call in tool_calls:
        if not isinstance(call, dict):
            continue
        fn = call if "function" not in call else (call.get("function") or {})
        if not isinstance(fn, dict) or fn.get("name") != "bash":
            continue
        args = fn.get("arguments")
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except json.JSONDecodeError:
                continue
        if not isinstance(args, dict):
            continue
        command = args.get("command") or args.get("cmd")
        if isinstance(command, str):
            found.extend(executables(command))
    return found


def multiset_iou(predicted: Sequence[str], expected: Sequence[str]) -> float:
    """Sum of per-name minimum counts over sum of per-name maximum counts (L710-713).

    The reference never evaluates it with both sides empty (such a turn has no ground truth
    and is excluded, L647-663; its bare division would fail), so that case raises ValueError.
    """
    pred, exp = Counter(predicted), Counter(expected)
    union = sum((pred | exp).values())
    if union == 0:
        raise ValueError("IoU of two empty multisets is undefined (turn has no ground truth)")
    return sum((pred & exp).values()) / union


def domain_of(conversation_id: str) -> str:
    """``"workflow"`` for ids like ``sim_12``, else ``"coding"`` (L553, L642-646)."""
    return "workflow" if _WORKFLOW_ID.match(conversation_id) else "coding"


def split_repeat(conversation_id: str) -> tuple[str, int]:
    """``"conv__repeat_3"`` -> ``("conv", 3)``; no suffix -> repeat 1 (L852-858)."""
    match = _REPEAT.search(conversation_id)
    if match is None:
        return conversation_id, 1
    return conversation_id[: match.start()], int(match.group(1))


def ground_truth_intents(recorded: Mapping[str, Any]) -> set[str]:
    """Upper-cased non-empty string entries of a list/tuple ``intent_codes`` (L888-898)."""
    codes = recorded.get("intent_codes")
    if not isinstance(codes, list | tuple):
        return set()
    return {code.upper() for code in codes if isinstance(code, str) and code}


def model_intent(content: Any, reasoning: Any = None) -> str | None:
    """The model's workflow intent code (L900-923).

    First an ``intent: I123`` tag (any case) in reasoning, then in content; failing that the
    last bare ``I123`` (upper-case I) of reasoning, else of content. Non-strings are ignored.
    """
    texts = [t for t in (reasoning or "", content or "") if isinstance(t, str)]
    for text in texts:
        tagged = _TAGGED_INTENT.search(text)
        if tagged is not None:
            return tagged.group(1).upper()
    for text in texts:
        bare = _BARE_INTENT.findall(text)
        if bare:
            return "I" + str(bare[-1])
    return None


def has_ground_truth(recorded: Mapping[str, Any], conversation_id: str = "") -> bool:
    """Whether the recorded assistant turn is scorable at all (L647-651)."""
    if domain_of(conversation_id) == "workflow":
        return bool(ground_truth_intents(recorded))
    return bool(turn_executables(recorded.get("tool_calls")))


def score_turn(
    recorded: Mapping[str, Any],
    tool_calls: Any,
    content: Any = None,
    reasoning: Any = None,
    *,
    conversation_id: str = "",
) -> float | None:
    """Score one generated turn against the recorded assistant row (L694-713).

    ``None`` when the recorded turn has no ground truth (excluded, L647-663). A turn without
    model output is scored with ``tool_calls=None, content=None`` and gets 0 (L694-696).
    """
    if not has_ground_truth(recorded, conversation_id):
        return None
    if domain_of(conversation_id) == "workflow":
        return 1.0 if model_intent(content, reasoning) in ground_truth_intents(recorded) else 0.0
    return multiset_iou(turn_executables(tool_calls), turn_executables(recorded.get("tool_calls")))


def expected_assistant_turns(
    rows: Iterable[Mapping[str, Any]],
) -> dict[tuple[str, int], dict[str, Any]]:
    """(conversation_id, client turn) -> recorded assistant row (L757-802).

    NaN values become None; rows are grouped by ``str(conversation_id)`` (rows without one are
    dropped), stably sorted by ``int(turn or 0)``, and each ``user``/``tool`` row is paired with
    the row right after it if that one is an ``assistant`` row. The assistant row's own turn is
    kept under ``"_assistant_turn"``.
    """
    by_conversation: dict[str, list[dict[str, Any]]] = {}
    for raw in rows:
        row: dict[str, Any] = {}
        for field, value in raw.items():
            try:
                row[field] = None if value != value else value
            except (TypeError, ValueError):
                row[field] = value
        if row.get("conversation_id") is not None:
            by_conversation.setdefault(str(row["conversation_id"]), []).append(row)
    paired: dict[tuple[str, int], dict[str, Any]] = {}
    for conversation_id, conv_rows in by_conversation.items():
        conv_rows.sort(key=lambda r: int(r.get("turn") or 0))
        for client, reply in pairwise(conv_rows):
            if client.get("role") not in ("user", "tool") or reply.get("role") != "assistant":
                continue
            try:
                key = (conversation_id, int(client.get("turn") or 0))
                paired[key] = {**reply, "_assistant_turn": int(reply.get("turn") or 0)}
            except (TypeError, ValueError):
                continue
    return paired


def summarize(
    scores_by_turn: Mapping[TurnKey, float | None], issued: int, *, bins: int = 10
) -> dict[str, Any]:
    """The ``scores.json`` body (L715-750) plus a per-turn score distribution.

    ``scores_by_turn``: every issued turn that has ground truth -> its score, or ``None`` when
    the model produced no output (counted as 0 and as missing). ``issued``: all issued turns
    paired with a recorded assistant row, excluded ones included (L733), across repeats.

    Keys: ``score`` = mean rounded to 4 places, None without scored turns (L729); ``turns``:
    ``issued`` (L733), ``expected`` = scorable issued turns (L722, L734), ``observed`` = those
    with output (L723-727, L735), ``missing`` = expected - observed (L728, L736), ``scored``
    (L737); ``domains`` = per-domain mean (4 places) and count, only non-empty (L739-746);
    ``per_turn`` = score per key, rounded (L715; keyed by client turn here, the reference
    lists the assistant turn); ``distribution`` (ours) = count, unrounded mean, histogram of
    ``bins`` equal bins over [0, 1] (last bin closed).
    """
    if issued < len(scores_by_turn):
        raise ValueError(f"issued={issued} < {len(scores_by_turn)} scorable issued turns")
    # Sorted key order, as the reference accumulates (L668, L678-720): same float sums.
    values = {key: scores_by_turn[key] or 0.0 for key in sorted(scores_by_turn)}
    observed = sum(score is not None for score in scores_by_turn.values())
    by_domain: dict[str, list[float]] = {"coding": [], "workflow": []}
    for key, value in values.items():
        by_domain[domain_of(key[0])].append(value)
    counts = [0] * bins
    for value in values.values():
        counts[min(max(int(value * bins), 0), bins - 1)] += 1
    mean = sum(values.values()) / len(values) if values else None
    return {
        "score": None if mean is None else round(mean, 4),
        "turns": {
            "issued": issued,
            "expected": len(values),
            "observed": observed,
            "missing": len(values) - observed,
            "scored": len(values),
        },
        "domains": {
            domain: {"score": round(sum(vals) / len(vals), 4), "scored": len(vals)}
            for domain, vals in by_domain.items()
            if vals
        },
        "per_turn": [
            {
                "conversation_id": key[0],
                "repeat": key[1],
                "client_turn": key[2],
                "domain": domain_of(key[0]),
                "score": round(values[key], 4),
                **({"missing": True} if scores_by_turn[key] is None else {}),
            }
            for key in values
        ],
        "distribution": {
            "count": len(values),
            "mean": mean,
            "histogram": {"edges": [i / bins for i in range(bins + 1)], "counts": counts},
        },
    }
