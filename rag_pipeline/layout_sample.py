"""A small corpus in MLPerf E2E-RAG's data layout, built from HotpotQA, for tests and trials.

Writes what the reference's data setup leaves on disk (mlcommons/inference b66003e1,
``e2e-rag/download_docs.py`` and ``QSL.py``):

* ``frames_dataset.tsv`` — an unnamed index column, ``Prompt``, ``Answer``,
  ``wikipedia_link_1..N``, ``reasoning_types`` and ``wiki_links`` (a list literal of the links);
* ``doc_html/`` — one Wikipedia-like HTML page per paragraph, named as download_docs.py names
  them, with the page chrome the extractor must drop (header, navigation, hatnote, table of
  contents, edit links, citation markers, reference list entries, navbox, categories, footer,
  script and style) around the content it must keep (paragraphs, an infobox table, a list);
* ``doc_html/url_mapping.json`` — file name (without ``.html``) → URL.

No MLPerf data is needed; a user with the real files points ``--frames``/``--corpus`` at them
instead.
"""

from __future__ import annotations

import csv
import html
import json
import random
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

from rag_pipeline.corpus import Question
from rag_pipeline.documents import Document
from rag_pipeline.reference_corpus import URL_MAPPING, page_filename

WIKI = "https://en.wikipedia.org/wiki/"


def page_url(title: str) -> str:
    return WIKI + quote(title.replace(" ", "_"), safe="(),'!:")


def _sentences(text: str) -> list[str]:
    parts = [p.strip() for p in text.replace(". ", ".\n").split("\n")]
    return [p for p in parts if p] or [text]


def page_html(doc: Document) -> str:
    """A page in Wikipedia's shape: ``doc.text`` split between a paragraph (with citation
    markers), an infobox row and a bulleted list, inside MediaWiki's chrome."""
    title = html.escape(doc.title)
    sentences = [html.escape(s) for s in _sentences(doc.text)]
    half = max(1, (len(sentences) + 1) // 2)
    lead = " ".join(f"{s}<sup class=\"reference\"><a href=\"#cite_note-{n}\">[{n}]</a></sup>"
                    for n, s in enumerate(sentences[:half], start=1))
    items = "".join(f"<li>{s}</li>" for s in sentences[half:])
    listing = f"<h2>Details<span class=\"mw-editsection\">[edit]</span></h2><ul>{items}</ul>" \
        if items else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8"><title>{title} - Wikipedia</title>
<style>.mw-body {{ color: black; }}</style><script>var wgPageName = "{title}";</script></head>
<body>
<header class="mw-header">Main menu Search Wikipedia Donate Create account Log in</header>
<div id="mw-navigation"><nav id="p-navigation">Main page Contents Current events Random article
</nav></div>
<div id="content" class="mw-body"><h1 id="firstHeading">{title}</h1>
<div id="mw-content-text"><div class="mw-parser-output">
<div class="hatnote">For other uses, see {title} (disambiguation).</div>
<table class="infobox"><tbody><tr><th colspan="2">{title}</th></tr>
<tr><th>Article</th><td>{title} infobox entry</td></tr></tbody></table>
<div id="toc" class="toc"><h2>Contents</h2><ul><li>1 Details</li><li>2 References</li></ul></div>
<p>{lead}</p>
{listing}
<h2>References<span class="mw-editsection">[edit]</span></h2>
<ol class="references"><li id="cite_note-1"><span class="reference-text"><cite class="citation">
Cited source about {title}, 2001.</cite></span></li></ol>
<div role="navigation" class="navbox">Navbox: articles related to {title}</div>
</div></div>
<div id="catlinks" class="catlinks">Categories: {title} topics</div>
</div>
<footer id="footer">This page was last edited on 1 January 2025.</footer>
</body></html>
"""


def write_layout(out: Path, questions: Sequence[Question], distractors: Sequence[Document] = (),
                 ) -> dict[str, int]:
    """Write the layout for ``questions`` (their own paragraphs become pages) plus
    ``distractors`` pages; returns counts."""
    pages: dict[str, Document] = {}
    for question in questions:
        for doc in question.paragraphs:
            pages.setdefault(doc.title, doc)
    for doc in distractors:
        pages.setdefault(doc.title, doc)
    folder = out / "doc_html"
    folder.mkdir(parents=True, exist_ok=True)
    mapping: dict[str, str] = {}
    for doc in pages.values():
        url = page_url(doc.title)
        name = page_filename(url)
        mapping[name] = url
        (folder / f"{name}.html").write_text(page_html(doc), encoding="utf-8")
    (folder / URL_MAPPING).write_text(json.dumps(mapping, indent=2, ensure_ascii=False),
                                      encoding="utf-8")
    width = max((len(q.supporting_titles) for q in questions), default=1)
    links = [f"wikipedia_link_{n}" for n in range(1, width + 1)]
    with (out / "frames_dataset.tsv").open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, delimiter="\t", quotechar='"', lineterminator="\n")
        writer.writerow(["", "Prompt", "Answer", *links, "reasoning_types", "wiki_links"])
        for n, question in enumerate(questions):
            urls = [page_url(t) for t in question.supporting_titles]
            writer.writerow([n, question.question, question.answer,
                             *(urls + [""] * (width - len(urls))), question.type or "",
                             repr(urls)])
    return {"questions": len(questions), "pages": len(pages)}


def sample_layout(out: Path, questions: int = 20, distractors: int = 100,
                  seed: int = 42) -> dict[str, int]:
    """``questions`` HotpotQA questions (seeded) and ``distractors`` other paragraphs, written in
    the reference layout under ``out``."""
    from rag_pipeline.corpus import load_hotpotqa, pooled_corpus, sample_questions

    pool = load_hotpotqa()
    chosen = sample_questions(pool, questions, seed)
    own = {doc.title for q in chosen for doc in q.paragraphs}
    others = [d for d in pooled_corpus(pool[:2000]) if d.title not in own]
    extra = random.Random(seed + 1).sample(others, min(distractors, len(others)))
    return write_layout(out, chosen, extra)
