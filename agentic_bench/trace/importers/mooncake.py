"""Mooncake traces (FAST'25 release) → synthetic sessions that keep the prefix-sharing pattern.

A Mooncake row is ``{"timestamp": ms, "input_length": tokens, "output_length": tokens,
"hash_ids": [...]}`` where each hash id names one 512-token block of the prompt and equal
ids mean equal blocks (ids are chained: block *i*'s id covers the whole prefix up to it).
There is no text and no session id. Each row becomes a single-turn session whose prompt is
built from blocks: the text of a block is a deterministic function of its id (512 words
from a fixed list of three-letter words, ≈ one token and four characters each), so requests that
share leading hash ids share a byte-identical prompt prefix. The last block is cut to
``input_length``; positions beyond the listed ids get filler unique to that row.
``start_offset_s`` is ``(timestamp - first timestamp) / 1000``; ``params.max_tokens`` is
``output_length``; the lengths are also kept as recorded ``usage``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Iterator, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from agentic_bench.trace.importers.common import build_session, fail, iter_jsonl
from agentic_bench.trace.model import Session

BLOCK_TOKENS = 512
WORDS = tuple(  # three-letter words: about one token and four characters each with the space
    "act add age ago aid aim air all and ant any ape arm art ask ate bad bag ban bar bat bay "
    "bed bee bet bid big bin bit bow box boy bud bug bus but buy cab can cap car cat cow cry "
    "cup cut dad day den dew did die dig dim dip dog dot dry due dug dye ear eat egg ego end "
    "era eve eye fan far fat fee few fig fin fit fix fly fog for fox fry fun fur gap gas gel "
    "gem get gin god got gum gun gut guy gym had ham has hat hay hen her hey hid him hip his "
    "hit hog hop hot how hub hue hug hut ice icy ill ink inn ion its jam jar jaw jet job jog "
    "joy jug key kid kin kit lab lad lap law lay leg let lid lie lip lit log lot low mad man "
    "map mat may men met mid mix mob mod mom mop mud mug nap net new nod nor not now nut oak "
    "oar odd off oil old one opt orb ore our out owe owl own pad pal pan par pat paw pay pea "
    "pen pet pie pig pin pit pop pot pro pub pun pup put rag ram ran rap rat raw ray red rib "
    "rid rim rip rob rod rot row rub rug rum run sad sag sat saw say sea see set sew she shy "
    "sin sip sir sit six ski sky sly sob sod son sow soy spa spy sub sue sum sun tab tag tan "
    "tap tar tax tea ten the tie tin tip toe ton too top toy try tub tug two use van vat vet "
    "via vow wag war was wax way web wed wet who why wig win wit woe won yes yet you zip zoo"
    .split())


@lru_cache(maxsize=8192)
def block_words(block_id: Hashable) -> tuple[str, ...]:
    """The 512 words of a block: a pure function of its id (same id → same text)."""
    rng = random.Random(f"mooncake-block:{block_id}")
    return tuple(rng.choice(WORDS) for _ in range(BLOCK_TOKENS))


def prompt_words(hash_ids: Sequence[int], input_length: int, row_key: str) -> list[str]:
    """``input_length`` words: block texts in ``hash_ids`` order, then unique filler."""
    words: list[str] = []
    n_blocks = math.ceil(input_length / BLOCK_TOKENS)
    for i in range(n_blocks):
        block_id: Hashable = hash_ids[i] if i < len(hash_ids) else f"{row_key}/{i}"
        need = min(BLOCK_TOKENS, input_length - len(words))
        words.extend(block_words(block_id)[:need])
    return words


def _int(path: Path, line: int, row: dict[str, Any], key: str, minimum: int) -> int:
    value = row.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise fail(path, line, key, f"must be an integer, got {value!r}")
    if value < minimum:
        raise fail(path, line, key, f"must be >= {minimum}, got {value}")
    return int(value)


def read_rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """Validated rows ``(line, {timestamp, input_length, output_length, hash_ids})``."""
    rows = []
    for line, row in iter_jsonl(path):
        ts = row.get("timestamp")
        if isinstance(ts, bool) or not isinstance(ts, int | float) or ts < 0:
            raise fail(path, line, "timestamp", f"must be milliseconds >= 0, got {ts!r}")
        ids = row.get("hash_ids", [])
        if not isinstance(ids, list) or not all(
                isinstance(h, int) and not isinstance(h, bool) for h in ids):
            raise fail(path, line, "hash_ids", "must be a list of integers")
        rows.append((line, {"timestamp": ts, "input_length": _int(path, line, row,
                                                                  "input_length", 1),
                            "output_length": _int(path, line, row, "output_length", 1),
                            "hash_ids": ids}))
    if not rows:
        raise fail(path, 0, "", "no rows in file")
    return rows


def import_mooncake(path: Path) -> Iterator[Session]:
    """One single-turn session per row, in timestamp order."""
    rows = read_rows(path)
    t0 = min(r["timestamp"] for _, r in rows)
    for line, row in sorted(rows, key=lambda r: (r[1]["timestamp"], r[0])):
        words = prompt_words(row["hash_ids"], row["input_length"], f"line{line}")
        data = {
            "session_id": f"mooncake-{line}",
            "start_offset_s": (row["timestamp"] - t0) / 1000.0,
            "turns": [{"user": " ".join(words), "steps": [{
                "kind": "llm", "params": {"max_tokens": row["output_length"]},
                "usage": {"input_tokens": row["input_length"],
                          "output_tokens": row["output_length"]}}]}],
            "metadata": {"source": "mooncake", "source_line": line,
                         "timestamp_ms": row["timestamp"], "hash_blocks": len(row["hash_ids"]),
                         "prompt": "synthetic (block text derived from hash ids)"},
        }
        yield build_session(data, path, line)


def source_shared_fraction(path: Path) -> float:
    """Fraction of prompt blocks (hash ids) that repeat a prefix of an earlier request."""
    from agentic_bench.trace.stats import shared_block_fraction

    rows = sorted(read_rows(path), key=lambda r: (r[1]["timestamp"], r[0]))
    shared, total = shared_block_fraction(r["hash_ids"] for _, r in rows)
    return shared / total if total else 0.0


def imported_shared_fraction(sessions: Sequence[Session]) -> float:
    """The same measure on imported sessions: 512-word blocks of each prompt, in start order."""
    from agentic_bench.trace.stats import shared_block_fraction

    ordered = sorted(sessions, key=lambda s: s.start_offset_s or 0.0)

    def blocks(session: Session) -> list[tuple[str, ...]]:
        words = session.turns[0].user.split(" ")
        return [tuple(words[i:i + BLOCK_TOKENS]) for i in range(0, len(words), BLOCK_TOKENS)]

    shared, total = shared_block_fraction(blocks(s) for s in ordered)
    return shared / total if total else 0.0
