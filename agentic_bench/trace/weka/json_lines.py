"""The line of a value inside a JSON document, found by its path (``requests[3].hash_ids[1]``).

A trace file holding one pretty-printed JSON object gets problems reported at the line of the
field they are about, not at line 1. The scan is a small hand-written pass over the text that
follows only the path's keys and indexes (strings and nested values are skipped, not parsed),
so it costs one pass over the bytes before the field; it runs only when there is a problem.
"""

from __future__ import annotations

import re

_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
_WS = " \t\r\n"


def parse_path(path: str) -> list[str | int]:
    """``requests[3].hash_ids[1]`` → ``["requests", 3, "hash_ids", 1]``."""
    return [int(index) if index else key for key, index in _PART.findall(path)]


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _skip_string(text: str, i: int) -> int:
    """``text[i]`` is the opening quote; returns the index after the closing one."""
    i += 1
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            return i + 1
        i += 1
    return i


def _skip_value(text: str, i: int) -> int:
    i = _skip_ws(text, i)
    if i >= len(text):
        return i
    c = text[i]
    if c == '"':
        return _skip_string(text, i)
    if c in "{[":
        depth = 0
        while i < len(text):
            c = text[i]
            if c == '"':
                i = _skip_string(text, i)
                continue
            if c in "{[":
                depth += 1
            elif c in "}]":
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1
        return i
    while i < len(text) and text[i] not in ",}]" + _WS:
        i += 1
    return i


def _find(text: str, i: int, part: str | int) -> int | None:
    """The start of member ``part`` of the container that starts at ``i``."""
    i = _skip_ws(text, i)
    if i >= len(text) or text[i] not in "{[":
        return None
    is_object = text[i] == "{"
    i += 1
    index = 0
    while True:
        i = _skip_ws(text, i)
        if i >= len(text) or text[i] in "}]":
            return None
        if is_object:
            key_end = _skip_string(text, i)
            key = text[i + 1:key_end - 1]
            i = _skip_ws(text, key_end)
            i = _skip_ws(text, i + 1)  # past ':'
            if key == part:
                return i
        elif index == part:
            return i
        i = _skip_ws(text, _skip_value(text, i))
        index += 1
        if i < len(text) and text[i] == ",":
            i += 1


def line_of(text: str, path: str) -> int:
    """1-based line of the deepest part of ``path`` found in ``text`` (1 when none is)."""
    i: int | None = 0
    best = 0
    for part in parse_path(path):
        assert i is not None
        i = _find(text, i, part)
        if i is None:
            break
        best = i
    return text.count("\n", 0, best) + 1
