"""The LoadGen config files a run used, copied into its folder, and the query count fitted.

``--loadgen-conf FILE`` is copied to ``<run>/user.conf`` (the copy is the file LoadGen reads, so
the folder holds exactly what was used). With ``--loadgen-layout submission`` a conf (or
``--loadgen-audit`` file) that asks for more queries than the run's sample set holds has its
``min_query_count`` lines cut to that size — the rule mlcommons/inference's
``e2e-rag/run_compliance_test09.sh`` 119-122 applies to its audit.config for a smaller
``PERF_COUNT`` — so a small run issues each sample once instead of repeating it up to the
official count; a comment line above each cut line keeps the official value.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

USER_CONF = "user.conf"
AUDIT_CONF = "audit.config"
_MIN_QUERIES = re.compile(r"^(\s*)([^\s.#=]+)\.([^\s.#=]+)\.min_query_count(\s*=\s*)(\d+)(.*)$")


def fit_min_query_count(text: str, model: str, scenario: str, size: int) -> tuple[str, list[int]]:
    """``text`` with every ``min_query_count`` line that applies to ``model``/``scenario``
    (or a ``*`` wildcard) and asks for more than ``size`` cut to ``size``; also the values cut."""
    cut: list[int] = []
    lines = []
    for line in text.splitlines():
        m = _MIN_QUERIES.match(line)
        if (m is not None and m.group(2) in (model, "*") and m.group(3) in (scenario, "*")
                and int(m.group(5)) > size):
            cut.append(int(m.group(5)))
            lines.append(f"# agentic-bench: {size} samples in this run; the official value "
                         f"is {m.group(5)}")
            line = f"{m.group(1)}{m.group(2)}.{m.group(3)}.min_query_count{m.group(4)}{size}"
            line += m.group(6)
        lines.append(line)
    return "\n".join(lines) + ("\n" if text.endswith("\n") or lines else ""), cut


def copy_conf(src: Path, dest: Path, *, model: str, scenario: str,
              fit_to: int | None) -> dict[str, object]:
    """Copy ``src`` to ``dest`` (fitted to ``fit_to`` samples when given); what was done."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    info: dict[str, object] = {"source": str(src), "file": dest.name}
    if fit_to is None:
        if not (dest.exists() and dest.samefile(src)):
            shutil.copyfile(src, dest)
        return info
    text, cut = fit_min_query_count(src.read_text(encoding="utf-8"), model, scenario, fit_to)
    dest.write_text(text, encoding="utf-8")
    if cut:
        info["min_query_count_cut"] = {"from": max(cut), "to": fit_to}
    return info


def read_keys(path: Path, names: tuple[str, ...]) -> dict[str, float]:
    """Values of ``*.*.<name> = value`` style lines for the given setting names (the last line
    of each name wins; inline ``#`` comments dropped)."""
    found: dict[str, float] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if "=" not in line:
            continue
        key, value = (part.strip() for part in line.split("=", 1))
        parts = key.split(".")
        if len(parts) >= 3 and parts[-1] in names:
            try:
                found[parts[-1]] = float(value)
            except ValueError:
                continue
    return found
