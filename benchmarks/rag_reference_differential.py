"""Our rebuild of MLPerf E2E-RAG's data rules against the reference code itself.

Runs the reference's own ``read_docs.py`` (HTML → text, all three boundary modes) and
``text_splitter.py`` (fixed 768/32 passages) beside ``rag_pipeline.html_extract`` /
``rag_pipeline.reference_splitter`` on the pages of a generated layout (``rag sample-layout``)
and on random strings; and, where pandas is installed, ``pandas.read_csv(sep='\\t')`` — how the
reference's ``QSL.py`` reads ``frames_dataset.tsv`` — beside ``rag_pipeline.frames_tsv`` on
random files. The reference is imported from a checkout you name (never copied here); its heavy
imports that these two files do not use (PyMuPDF, tqdm) are stubbed when absent.

    git clone https://github.com/mlcommons/inference        # commit b66003e1 was checked
    .venv/bin/python benchmarks/rag_reference_differential.py --reference inference/e2e-rag
    # the TSV part needs pandas: pip install pandas (it is not a dependency of agentic-bench)

One JSON line per check; exit status 1 on any difference.
"""

from __future__ import annotations

import argparse
import csv
import importlib
import json
import random
import sys
import tempfile
import types
from pathlib import Path
from typing import Any

from rag_pipeline.frames_tsv import load_frames_tsv
from rag_pipeline.html_extract import BOUNDARIES, clean_text, extract_page_text
from rag_pipeline.layout_sample import sample_layout
from rag_pipeline.reference_splitter import fixed_passages


def emit(check: str, **fields: Any) -> None:
    print(json.dumps({"check": check, **fields}), flush=True)


def reference_modules(path: Path) -> tuple[Any, Any]:
    for name, attrs in (("fitz", {}), ("tqdm", {"tqdm": lambda *a, **k: None})):
        try:
            importlib.import_module(name)
        except ImportError:
            sys.modules[name] = types.SimpleNamespace(**attrs)  # type: ignore[assignment]
    if "utils" not in sys.modules:  # read_docs.py needs two helpers of utils.py (torch, requests)
        sys.modules["utils"] = types.SimpleNamespace(  # type: ignore[assignment]
            load_url_mapping=lambda d: {},
            get_base_filename=lambda f: f.rsplit(".", 1)[0] if "." in f else f)
    sys.path.insert(0, str(path))
    return importlib.import_module("read_docs"), importlib.import_module("text_splitter")


def check_pages(read_docs: Any, splitter: Any, pages: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        questions = max(1, pages // 15)  # each brings its 10 paragraphs as pages
        sample_layout(Path(tmp), questions=questions, distractors=max(0, pages - 10 * questions))
        files = sorted((Path(tmp) / "doc_html").glob("*.html"))
        diffs = 0
        for path in files:
            html = path.read_text(encoding="utf-8")
            for boundary in BOUNDARIES:
                ref = read_docs.HTMLExtractor(True, True, boundary).extract_text_from_html(html)
                diffs += ref != extract_page_text(html, boundary)
            text = extract_page_text(html)
            diffs += splitter.split_into_fixed_passages(text, 768, 32) != fixed_passages(text)
    emit("pages", pages=len(files), boundaries=len(BOUNDARIES), differences=diffs)
    return diffs


def check_strings(read_docs: Any, splitter: Any, count: int) -> int:
    rng = random.Random(1)
    alphabet = "ab. ,!?-:;\n\tAZ'\"\u00a0\u2003é1"
    diffs = 0
    for _ in range(count):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 2000)))
        for boundary in BOUNDARIES:
            ref = read_docs.HTMLExtractor(True, True, boundary)._clean_text(text)
            diffs += ref != clean_text(text, boundary)
        for length, overlap in ((768, 32), (50, 10), (10, 3)):
            diffs += (splitter.split_into_fixed_passages(text, length, overlap)
                      != fixed_passages(text, length, overlap))
    emit("strings", strings=count, differences=diffs)
    return diffs


def check_tsv(count: int) -> int:
    try:
        import pandas as pd
    except ImportError:
        emit("tsv", skipped="pandas is not installed")
        return 0
    rng = random.Random(3)
    text_cells = ["", "NA", "None", "nan", "x", "a b", "1990", "3.5", "007", "-2", "1e3",
                  'q"uote', "tab\there", "new\nline", "null", "N/A", "  ", "#N/A",
                  "https://en.wikipedia.org/wiki/A"]
    numeric_cells = ["1990", "3.5", "007", "-2", "1e3", "", "NA", "12"]
    diffs = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(count):
            pool = numeric_cells if n % 2 else text_cells
            path = Path(tmp) / f"{n}.tsv"
            with path.open("w", encoding="utf-8", newline="") as fh:
                writer = csv.writer(fh, delimiter="\t", lineterminator="\n")
                writer.writerow(["", "Prompt", "Answer", "wikipedia_link_1", "wikipedia_link_2"])
                for i in range(rng.randint(1, 6)):
                    writer.writerow([i, rng.choice(["x", "a b", "q?", "who"]), rng.choice(pool),
                                     rng.choice(pool), rng.choice(pool)])
            frame = pd.read_csv(path, sep="\t")
            ref = [(row["Prompt"], str(row["Answer"]),
                    [str(row[c]) for c in frame.columns if c.startswith("wikipedia_link_")
                     and pd.notna(row[c]) and row[c] != ""]) for _, row in frame.iterrows()]
            ours = [(q.question, q.answer, q.extra["expected_urls"])
                    for q in load_frames_tsv(path)]
            diffs += ref != ours
    emit("tsv", files=count, differences=diffs)
    return diffs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", type=Path, required=True,
                        help="the e2e-rag folder of an mlcommons/inference checkout")
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--strings", type=int, default=3000)
    parser.add_argument("--tsv-files", type=int, default=2000)
    args = parser.parse_args()
    if not (args.reference / "read_docs.py").is_file():
        parser.error(f"{args.reference}: no read_docs.py (the e2e-rag folder is expected)")
    read_docs, splitter = reference_modules(args.reference.resolve())
    diffs = (check_pages(read_docs, splitter, args.pages)
             + check_strings(read_docs, splitter, args.strings) + check_tsv(args.tsv_files))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
