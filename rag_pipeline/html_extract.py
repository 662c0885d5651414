"""Wikipedia HTML page → plain text, by the rules of MLPerf's E2E-RAG ingestion.

Reference: mlcommons/inference b66003e1, ``e2e-rag/read_docs.py`` (``HTMLExtractor``), run by
``scripts/run_ingestion.sh`` 38-43 with ``--text-boundary word``. Rebuilt here from its rules:

1. parse with ``lxml`` when it is installed, else Python's ``html.parser`` (read_docs.py 126-129);
2. drop ``script``, ``style``, ``nav``, ``header``, ``footer`` elements (132-133);
3. drop Wikipedia chrome by CSS selector (279-299, :data:`DROPPED_SELECTORS`): navigation,
   navboxes, message boxes, edit links, citation markers and ``.reference`` / ``.citation``
   elements, hatnotes, category links, external-link boxes, the table of contents and image
   metadata. The ``ol.references`` list itself is *not* a selector there, so any text of a
   reference entry outside its ``cite.citation`` survives — as in the reference;
4. keep the first of :data:`CONTENT_SELECTORS` that matches (301-320) — the whole soup if none;
5. its text is every string, stripped, joined by one space (143: ``get_text(' ', strip=True)``),
   so tables, infoboxes and lists are kept as running text (the structure-preserving helpers in
   read_docs.py are never called);
6. clean (216-242): NFKC, exotic spaces to spaces, CR to LF, runs of spaces to one, runs of LF to
   one, blank lines dropped, each line stripped;
7. boundary pass (``word``, 256-274): a space after ``.!?,:;`` before a letter; ``word- word``
   joined to ``word-word``; the quote "normalisation" (whose literals are plain ASCII quotes and,
   for apostrophes, one triple-quoted literal — so it replaces only the exact text
   ``, "'").replace(`` by ``'``, which the first step has already split, so it never fires);
   every whitespace run to one space. ``sentence`` and ``none``
   are the reference's other two modes.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

DROPPED_TAGS = ("script", "style", "nav", "header", "footer")
DROPPED_SELECTORS = (
    "#mw-navigation", ".navbox", ".navigation-box", ".ambox", ".tmbox",
    ".mw-editsection", ".edit-section", ".editlink",
    "sup.reference", ".reference", ".citation",
    ".hatnote", ".dablink", ".rellink",
    "#catlinks", ".catlinks", ".external-links",
    "#toc", ".toc",
    ".thumbcaption .metadata", ".image-metadata",
)
CONTENT_SELECTORS = (
    "#mw-content-text .mw-parser-output", "#mw-content-text", "main", "article", ".content",
    "#content", "body",
)
BOUNDARIES = ("word", "sentence", "none")
MLPERF_BOUNDARY = "word"  # scripts/run_ingestion.sh 41

_EXOTIC_SPACE = re.compile("[\u00a0\u2000-\u200b\u2028\u2029]")
_SPACES = re.compile(r" +")
_NEWLINES = re.compile(r"\n+")
_WORD_PUNCT = re.compile(r"([.!?,:;])([A-Za-z])")
_HYPHEN_BREAK = re.compile(r"(\w+)-\s+(\w+)")
_WHITESPACE = re.compile(r"\s+")
_SENTENCE_END = re.compile(r"([.!?])([A-Z])")
_ABBREVIATION = re.compile(
    r"\b(Mr|Mrs|Dr|Prof|etc|vs|Inc|Ltd|Corp|U\.S|U\.K|E\.g|I\.e)\.(\s+)([a-z])", re.IGNORECASE)
# read_docs.py 268-269: ``''', "'").replace('''`` parses as one triple-quoted literal
_APOSTROPHE_LITERAL = ', "\'").replace('


def parser_name() -> str:
    """The parser BeautifulSoup gets: ``lxml`` where installed, else ``html.parser``."""
    try:
        import lxml  # noqa: F401
    except ImportError:
        return "html.parser"
    return "lxml"


def _soup(html: str) -> Any:
    from bs4 import BeautifulSoup

    try:
        return BeautifulSoup(html, "lxml")
    except Exception:  # bs4.FeatureNotFound where lxml is absent
        return BeautifulSoup(html, "html.parser")


def main_text(html: str) -> str:
    """Steps 1-5: the page's main content as one space-joined string."""
    soup = _soup(html)
    for element in soup(list(DROPPED_TAGS)):
        element.decompose()
    for selector in DROPPED_SELECTORS:
        for element in soup.select(selector):
            element.decompose()
    content = None
    for selector in CONTENT_SELECTORS:
        content = soup.select_one(selector)
        if content is not None:  # read_docs.py 316 tests truthiness; a bs4 Tag is always true,
            break                # so an empty <main> still wins over <body>
    return str((content or soup).get_text(separator=" ", strip=True))


def clean_text(text: str, boundary: str = MLPERF_BOUNDARY) -> str:
    """Steps 6-7 on extracted text."""
    if boundary not in BOUNDARIES:
        raise ValueError(f"boundary must be one of {BOUNDARIES}, got {boundary!r}")
    text = unicodedata.normalize("NFKC", text)
    text = _EXOTIC_SPACE.sub(" ", text)
    text = text.strip().replace("\r", "\n")
    text = _SPACES.sub(" ", text)
    text = _NEWLINES.sub("\n", text)
    text = "\n".join(line.strip() for line in text.split("\n") if line.strip())
    if boundary == "sentence":
        text = _SENTENCE_END.sub(r"\1 \2", text)
        text = _ABBREVIATION.sub(r"\1.\2\3", text)
    elif boundary == "word":
        text = _WORD_PUNCT.sub(r"\1 \2", text)
        text = _HYPHEN_BREAK.sub(r"\1-\2", text)
        text = text.replace(_APOSTROPHE_LITERAL, "'")
        text = _WHITESPACE.sub(" ", text)
    return text


def extract_page_text(html: str, boundary: str = MLPERF_BOUNDARY) -> str:
    """A Wikipedia page's text as MLPerf's ingestion extracts it (all seven steps)."""
    return clean_text(main_text(html), boundary)
