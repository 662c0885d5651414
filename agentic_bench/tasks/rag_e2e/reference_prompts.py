"""``--reference-dir``: MLPerf E2E-RAG's own prompt texts, read from a checkout at run time.

The texts are never copied into agentic-bench: they are read from the reference's source files
with :mod:`ast` (parsed, never executed) each time a run starts, and the summary names each file
with its SHA-256. What is read (mlcommons/inference b66003e1 ``e2e-rag/``):

- ``multi_shot_retrieval.py``: the module constants ``RELEVANCE_CHECK_PROMPT``,
  ``SUFFICIENCY_CHECK_PROMPT`` and ``QUERY_GENERATION_PROMPT``; the f-string assigned to
  ``prompt`` in ``generate_answer``; the f-strings that format documents, the kept-page header
  and the search history (``evaluate_document_relevance``, ``check_sufficiency``,
  ``generate_answer``, ``generate_search_queries``) and the literals used when there is
  nothing to show;
- ``accuracy_eval.py``: ``JUDGE_PROMPT``.

Any of these missing or shaped differently is a :class:`ConfigError` naming the file and what
was expected, before anything is sent.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass
from pathlib import Path

from agentic_bench.errors import ConfigError
from rag_pipeline.loop_prompts import PromptSet

LOOP_FILE, JUDGE_FILE = "multi_shot_retrieval.py", "accuracy_eval.py"
# expressions inside the reference's f-strings → our template fields
_FIELDS = {"i + 1": "n", "content": "content", "snippet": "snippet",
           "len(kept_documents)": "count", "q": "query", "count": "count",
           "question": "question", "kept_docs_text": "kept_docs", "str(e)": "error"}


@dataclass(frozen=True, slots=True)
class ReferencePrompts:
    loop: PromptSet
    judge: str  # JUDGE_PROMPT: {question}, {ground_truth}, {llm_answer}
    files: tuple[dict[str, str], ...]


def reference_folder(path: Path) -> Path:
    """``path`` itself when it holds the reference's files, else its ``e2e-rag/``."""
    for folder in (path, path / "e2e-rag"):
        if (folder / LOOP_FILE).is_file() and (folder / JUDGE_FILE).is_file():
            return folder
    raise ConfigError(f"--reference-dir {path}: no {LOOP_FILE} and {JUDGE_FILE} there or in its "
                      "e2e-rag/ (expected a checkout of mlcommons/inference or its e2e-rag/)")


class _Source:
    def __init__(self, path: Path) -> None:
        self.path = path
        data = path.read_bytes()
        self.sha256 = hashlib.sha256(data).hexdigest()
        try:
            self.tree = ast.parse(data, filename=str(path))
        except SyntaxError as exc:
            raise ConfigError(f"{path}:{exc.lineno}: not Python source ({exc.msg})") from None

    def fail(self, what: str) -> ConfigError:
        return ConfigError(f"{self.path}: cannot read {what} (the reference's layout changed? "
                           "expected mlcommons/inference e2e-rag/ as of b66003e1)")

    def constant(self, name: str) -> str:
        for node in self.tree.body:
            if (isinstance(node, ast.Assign) and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Name) and node.targets[0].id == name
                    and isinstance(node.value, ast.Constant)
                    and isinstance(node.value.value, str)):
                return node.value.value
        raise self.fail(f"the string constant {name}")

    def function(self, name: str) -> ast.FunctionDef:
        for node in self.tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == name:
                return node
        raise self.fail(f"the function {name}()")

    def assigned(self, func: str, target: str, *, augmented: bool, kind: type) -> list[ast.expr]:
        """The values of ``target = ...`` (or ``+=``) in ``func`` of the given node type."""
        out: list[ast.expr] = []
        for node in ast.walk(self.function(func)):
            name: ast.expr
            if augmented and isinstance(node, ast.AugAssign):
                name, value = node.target, node.value
            elif not augmented and isinstance(node, ast.Assign) and len(node.targets) == 1:
                name, value = node.targets[0], node.value
            else:
                continue
            if isinstance(name, ast.Name) and name.id == target and isinstance(value, kind):
                out.append(value)
        return out

    def template(self, func: str, target: str, *, augmented: bool = True,
                 index: int = 0) -> str:
        found = self.assigned(func, target, augmented=augmented, kind=ast.JoinedStr)
        if len(found) <= index:
            raise self.fail(f"the f-string assigned to {target} in {func}()")
        return self._format(found[index], f"{func}() {target}")

    def literal(self, func: str, target: str) -> str:
        found = [v.value for v in self.assigned(func, target, augmented=False, kind=ast.Constant)
                 if isinstance(v, ast.Constant) and isinstance(v.value, str) and v.value]
        if not found:
            raise self.fail(f"the text assigned to {target} in {func}()")
        return str(found[0])

    def fallback(self, func: str, target: str) -> str:
        """The constant a conditional expression assigned to ``target`` falls back to."""
        for value in self.assigned(func, target, augmented=False, kind=ast.IfExp):
            assert isinstance(value, ast.IfExp)
            if isinstance(value.orelse, ast.Constant) and isinstance(value.orelse.value, str):
                return value.orelse.value
        raise self.fail(f"the fallback text of {target} in {func}()")

    def feedback_lines(self, func: str) -> list[str]:
        """The ``"feedback"`` values of the dicts ``func`` returns, in source order, as
        templates (a ``.get("feedback", default)`` gives its default)."""
        out: list[tuple[int, str]] = []
        for node in ast.walk(self.function(func)):
            if not (isinstance(node, ast.Return) and isinstance(node.value, ast.Dict)):
                continue
            for key, value in zip(node.value.keys, node.value.values, strict=True):
                if not (isinstance(key, ast.Constant) and key.value == "feedback"):
                    continue
                if (isinstance(value, ast.Call) and len(value.args) == 2
                        and isinstance(value.args[1], ast.Constant)):
                    value = value.args[1]
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    text = value.value.replace("{", "{{").replace("}", "}}")
                    out.append((node.lineno, text))
                elif isinstance(value, ast.JoinedStr):
                    out.append((node.lineno, self._format(value, f"{func}() feedback")))
        return [text for _, text in sorted(out)]  # ast.walk is breadth-first: source order

    def _format(self, node: ast.expr, where: str) -> str:
        assert isinstance(node, ast.JoinedStr)
        parts: list[str] = []
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                parts.append(value.value.replace("{", "{{").replace("}", "}}"))
            elif (isinstance(value, ast.FormattedValue) and value.conversion == -1
                  and value.format_spec is None
                  and ast.unparse(value.value) in _FIELDS):
                parts.append("{" + _FIELDS[ast.unparse(value.value)] + "}")
            else:
                raise self.fail(f"{where}: an f-string part this reader does not know")
        return "".join(parts)


def read_reference_prompts(path: Path) -> ReferencePrompts:
    """Every prompt text of the reference loop and judge, from the checkout at ``path``."""
    folder = reference_folder(path)
    loop, judge = _Source(folder / LOOP_FILE), _Source(folder / JUDGE_FILE)
    doc = loop.template("check_sufficiency", "kept_docs_text")
    for func in ("generate_answer", "generate_search_queries"):
        if loop.template(func, "kept_docs_text") != doc:
            raise loop.fail(f"{func}(): documents formatted unlike check_sufficiency()")
    feedback = loop.feedback_lines("generate_search_queries")
    if len(feedback) != 4 or "{error}" not in feedback[3]:
        raise loop.fail("generate_search_queries()'s four feedback lines (empty reply, no JSON, "
                        "no feedback key, failure)")
    try:
        prompts = PromptSet(
            relevance=loop.constant("RELEVANCE_CHECK_PROMPT"),
            sufficiency=loop.constant("SUFFICIENCY_CHECK_PROMPT"),
            queries=loop.constant("QUERY_GENERATION_PROMPT"),
            answer=loop.template("generate_answer", "prompt", augmented=False),
            new_doc=loop.template("evaluate_document_relevance", "new_docs_text"),
            kept_header=loop.template("evaluate_document_relevance", "kept_docs_text",
                                      augmented=False),
            kept_doc=loop.template("evaluate_document_relevance", "kept_docs_text"),
            doc=doc,
            history_line=loop.template("generate_search_queries", "history_text"),
            no_docs=loop.literal("check_sufficiency", "kept_docs_text"),
            no_history=loop.literal("generate_search_queries", "history_text"),
            first_feedback=loop.fallback("generate_search_queries", "feedback_text"),
            feedback_empty=feedback[0], feedback_no_json=feedback[1],
            feedback_default=feedback[2], feedback_error=feedback[3],
            source=tuple({"path": str(s.path), "sha256": s.sha256} for s in (loop, judge)),
        )
    except ValueError as exc:
        raise ConfigError(f"{loop.path}: {exc}") from None
    template = judge.constant("JUDGE_PROMPT")
    try:
        template.format(question="", ground_truth="", llm_answer="")
    except (KeyError, IndexError, ValueError):
        raise judge.fail("JUDGE_PROMPT with {question}, {ground_truth} and {llm_answer}") from None
    return ReferencePrompts(prompts, template, prompts.source)
