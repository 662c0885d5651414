"""No code path evaluates model output: no eval/exec/shell calls anywhere in the sources."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__"}
FORBIDDEN_ATTRS = {("os", "system"), ("os", "popen"), ("subprocess", "getoutput")}


def test_sources_never_eval_or_exec() -> None:
    offenders = []
    for base in ("agentic_bench", "rag_pipeline", "plugins"):
        for path in (ROOT / base).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call):
                    continue
                fn = node.func
                if isinstance(fn, ast.Name) and fn.id in FORBIDDEN_CALLS:
                    offenders.append(f"{path}:{node.lineno} {fn.id}()")
                if (isinstance(fn, ast.Attribute) and isinstance(fn.value, ast.Name)
                        and (fn.value.id, fn.attr) in FORBIDDEN_ATTRS):
                    offenders.append(f"{path}:{node.lineno} {fn.value.id}.{fn.attr}()")
                for kw in node.keywords:
                    if kw.arg == "shell" and isinstance(kw.value, ast.Constant) and kw.value.value:
                        offenders.append(f"{path}:{node.lineno} shell=True")
    assert not offenders, offenders
