"""The line of a value inside a JSON document, found by its path (``requests[3].hash_ids[1]``).

A trace file holding one pretty-printed JSON object gets problems reported at the line of the
field they are about, not at line 1. :func:`lines_of` places every path asked for in one pass
over the text: it follows only the paths' keys and indexes (strings and the other values are
skipped with regular expressions, not parsed), stops after the last one it needs and counts
newlines once, between the places found in order. A file with a problem on every row costs one
pass, not one pass per problem (issue #42 item 14: 1 MB took 18 s when each problem rescanned
from the start). It runs only when there is a problem, on a document that parsed as JSON.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NESTED = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')  # what a container skip looks at
_SCALAR = re.compile(r"[^,\]}\s]*")
_SPACE = re.compile(r"\s*")

Part = str | int
Trie = dict[Part, "Trie"]


def parse_path(path: str) -> list[Part]:
    """``requests[3].hash_ids[1]`` → ``["requests", 3, "hash_ids", 1]``."""
    return [int(index) if index else key for key, index in _PART.findall(path)]


def _ws(text: str, i: int) -> int:
    end = _SPACE.match(text, i)
    return end.end() if end else i


def _skip_value(text: str, i: int) -> int:
    """The index after the value that starts at ``i`` (after blanks)."""
    if i >= len(text):
        return i
    c = text[i]
    if c == '"':
        found = _STRING.match(text, i)
        return found.end() if found else len(text)
    if c not in "{[":
        scalar = _SCALAR.match(text, i)
        return scalar.end() if scalar else i
    depth = 0
    for token in _NESTED.finditer(text, i):
        c = token.group()
        if c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
            if depth == 0:
                return token.end()
    return len(text)


class _Walk:
    """One forward pass placing every wanted path (as parts) at the offset of its value."""

    def __init__(self, text: str, wanted: Trie, count: int) -> None:
        self.text = text
        self.found: dict[tuple[Part, ...], int] = {}
        self.left = count  # wanted paths not placed yet: the walk stops at zero
        self.walk(0, wanted, ())

    def walk(self, i: int, wanted: Trie, prefix: tuple[Part, ...]) -> int | None:
        """Place ``wanted`` members of the container at ``i``; the index after it, or None
        once nothing is left to place (or the value is not a container)."""
        text = self.text
        i = _ws(text, i)
        if i >= len(text) or text[i] not in "{[":
            return None
        is_object = text[i] == "{"
        i += 1
        index = 0
        while True:
            i = _ws(text, i)
            if i >= len(text):
                return None
            if text[i] in "}]":
                return i + 1
            part: Part = index
            if is_object:
                key_end = _skip_value(text, i)
                part = text[i + 1:key_end - 1]
                i = _ws(text, _ws(text, key_end) + 1)  # past ':'
            below = wanted.get(part)
            if below is not None:
                here = (*prefix, part)
                first = here not in self.found  # a repeated key: its first place counts
                self.found.setdefault(here, i)
                if not below:  # a path ends here
                    if first:
                        self.left -= 1
                    if self.left == 0:
                        return None
                    end = _skip_value(text, i)
                else:
                    end_or_none = self.walk(i, below, here)
                    if end_or_none is None and self.left == 0:
                        return None
                    end = end_or_none if end_or_none is not None else _skip_value(text, i)
            else:
                end = _skip_value(text, i)
            i = _ws(text, end)
            index += 1
            if i < len(text) and text[i] == ",":
                i += 1


def lines_of(text: str, paths: Iterable[str]) -> dict[str, int]:
    """The 1-based line of each of ``paths`` in ``text``: the line of its deepest part found
    (1 when none is). One pass over the text, however many paths."""
    parsed = {path: tuple(parse_path(path)) for path in paths}
    wanted: Trie = {}
    for parts in parsed.values():
        node = wanted
        for part in parts:
            node = node.setdefault(part, {})
    leaves = _leaves(wanted)
    found = _Walk(text, wanted, leaves).found if leaves else {}
    line_at: dict[int, int] = {0: 1}
    line, previous = 1, 0
    for offset in sorted(set(found.values())):  # newlines counted once, in order
        line += text.count("\n", previous, offset)
        line_at[offset] = line
        previous = offset
    out = {}
    for path, parts in parsed.items():
        best = 0
        for n in range(len(parts), 0, -1):  # the deepest part found
            if parts[:n] in found:
                best = found[parts[:n]]
                break
        out[path] = line_at[best]
    return out


def _leaves(wanted: Trie) -> int:
    return sum(_leaves(below) if below else 1 for below in wanted.values())


def line_of(text: str, path: str) -> int:
    """1-based line of the deepest part of ``path`` found in ``text`` (1 when none is)."""
    return lines_of(text, [path])[path]
