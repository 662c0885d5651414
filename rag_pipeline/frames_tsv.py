"""MLPerf E2E-RAG's question file, ``frames_dataset.tsv``, read as the reference reads it.

Reference: mlcommons/inference b66003e1, ``e2e-rag/QSL.py`` 40-70: ``pandas.read_csv(path,
sep='\\t')``; per row the query is ``Prompt``, the ground truth ``Answer`` and the expected pages
every ``wikipedia_link_*`` cell (in column order) that is neither missing nor empty; sample *i* is
row *i* and a run of N questions takes the first N rows.

Rebuilt without pandas, its reading rules included: a header row; an empty header cell is named
``Unnamed: <position>``; blank lines are skipped; cells are tab-separated with ``"`` quoting; and a
cell whose whole text is one of pandas' default missing-value markers (:data:`PANDAS_NA`) is
missing — so an ``Answer`` of ``None`` or ``NA`` reaches the reference's judge as ``nan``, and we
reproduce that. A column whose every present cell is a number is numeric there, so its cells
reach the reference as ``str(int)`` or, with a missing cell or a decimal among them,
``str(float)`` (``007`` → ``7``, ``1990`` → ``1990.0``); so they do here. (The official file's
columns are text; this matters for hand-made subsets.)
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from rag_pipeline.corpus import CorpusError, Question, title_from_url

# pandas.read_csv's default ``na_values`` (pandas docs, "IO tools", na_values; pandas 2.x)
PANDAS_NA = frozenset({
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
})
LINK_PREFIX = "wikipedia_link_"
_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
REQUIRED = ("Prompt", "Answer")


def _header(cells: list[str]) -> list[str]:
    return [cell if cell else f"Unnamed: {n}" for n, cell in enumerate(cells)]


def _value(cell: str | None) -> str | None:
    return None if cell is None or cell in PANDAS_NA else cell


def _numeric_columns(rows: list[list[str | None]], width: int) -> dict[int, str]:
    """Columns pandas would read as numbers: ``int`` (every cell an integer, none missing) or
    ``float``."""
    kinds: dict[int, str] = {}
    for n in range(width):
        cells = [row[n] if n < len(row) else None for row in rows]
        present = [c for c in cells if c is not None]
        if not present or not all(_FLOAT.fullmatch(c) for c in present):
            continue
        whole = all(_INT.fullmatch(c) for c in present) and len(present) == len(cells)
        kinds[n] = "int" if whole else "float"
    return kinds


def _as_pandas(cell: str | None, kind: str | None) -> str | None:
    if cell is None or kind is None:
        return cell
    return str(int(cell)) if kind == "int" else str(float(cell))


def load_frames_tsv(path: str | Path) -> list[Question]:
    """Every row of ``frames_dataset.tsv`` as a :class:`Question` (id = the row's position).

    ``extra["expected_urls"]`` holds the row's ``wikipedia_link_*`` URLs as written (the
    reference compares them to the corpus URLs as exact strings); ``supporting_titles`` are
    their article titles, for our title-level retrieval figures.
    """
    source = Path(path)
    if not source.is_file():
        raise CorpusError(f"{source}: no such file")
    questions: list[Question] = []
    with source.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t", quotechar='"')
        try:
            header = _header(next(reader))
        except StopIteration:
            raise CorpusError(f"{source}: empty file (expected a header row)") from None
        missing = [name for name in REQUIRED if name not in header]
        if missing:
            raise CorpusError(f"{source}:1: no column {', '.join(missing)} in the header "
                              f"(expected frames_dataset.tsv: Prompt, Answer, wikipedia_link_1..)")
        links = [n for n, name in enumerate(header) if name.startswith(LINK_PREFIX)]
        rows: list[tuple[int, list[str | None]]] = []
        for cells in reader:
            if not cells or all(not cell for cell in cells):
                continue  # pandas skips blank lines
            if len(cells) > len(header):
                raise CorpusError(f"{source}:{reader.line_num}: {len(cells)} cells, the header "
                                  f"has {len(header)}")
            rows.append((reader.line_num, [_value(c) for c in cells]
                         + [None] * (len(header) - len(cells))))
    kinds = _numeric_columns([row for _, row in rows], len(header))
    prompt_at, answer_at = header.index("Prompt"), header.index("Answer")
    types_at = header.index("reasoning_types") if "reasoning_types" in header else None
    for line, row in rows:
        values = [_as_pandas(c, kinds.get(n)) for n, c in enumerate(row)]
        prompt = values[prompt_at]
        if prompt is None:
            raise CorpusError(f"{source}:{line}: empty Prompt")
        urls = [value for n in links if (value := values[n]) is not None]
        answer = values[answer_at]
        questions.append(Question(
            id=str(len(questions)), question=prompt,
            answer="nan" if answer is None else answer,  # str(float('nan')), as QSL passes it
            type=(values[types_at] or "") if types_at is not None else "",
            supporting_titles=tuple(dict.fromkeys(title_from_url(u) for u in urls)),
            extra={"expected_urls": urls},
        ))
    if not questions:
        raise CorpusError(f"{source}: no question rows after the header")
    return questions
