"""``--mlperf`` through LoadGen as MLPerf v6.1 E2E-RAG submits: the reference's settings file,
its compliance TEST09 file, and a run folder laid out as the submission checker reads one.

What :func:`loadgen_preset` adds to the ``--mlperf`` preset when LoadGen issues the questions:
the model key ``e2e-rag-qna`` and ``mlperf_user.conf`` (the values of mlcommons/inference
b66003e1 ``e2e-rag/user.conf``), so LoadGen also reads its built-in mlperf.conf and the
official seeds apply (the checker's ``seeds``, ``tools/submission/submission_checker/
constants.py`` 240-244); the submission layout (``performance/run_1/``, ``accuracy/``,
``TEST09/``, ``user.conf``); LoadGen's token count = the answer's (stage ``generate``), as the
reference SUT reports the answer generator's tokens (``e2e-rag/reference_SUT.py`` 257-262,
318-330: an answer without a count counts its words, at least 1), with LoadGen's token
latencies off as there (the conf decides them: ``loadgen/mlperf.conf`` 96-111 names no
``e2e-rag-qna``; :mod:`agentic_bench.loadgen.settings`); and, for ``--loadgen-mode TEST09``,
``mlperf_test09_audit.config`` (the values of ``compliance/TEST09/e2e-rag-qna/audit.config``).
Options given explicitly win.

:func:`write_artifacts` writes the judge's ``accuracy.txt`` beside the summary (as before) and,
for an accuracy-mode run in the submission layout, into ``accuracy/`` too, where the checker
reads it (``constants.py`` ACCURACY_RESULT_PATH); its ``hash=`` line is added when the run is
packed (``agentic-bench submission pack``), with the truncated log it hashes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentic_bench.metrics.summary_model import Summary

HERE = Path(__file__).resolve().parent
USER_CONF = HERE / "mlperf_user.conf"
TEST09_AUDIT = HERE / "mlperf_test09_audit.config"
CONF_MODEL = "e2e-rag-qna"
ANSWER_STAGE = "generate"


def loadgen_preset(args: Any, preset: dict[str, Any]) -> dict[str, Any]:
    """The LoadGen part of ``--mlperf`` (nothing when LoadGen does not issue the run)."""
    if not getattr(args, "mlperf", False):
        return {}
    if (getattr(args, "loadgen", None) or preset.get("loadgen")) != "mlperf":
        return {}
    out: dict[str, Any] = {"loadgen_model": CONF_MODEL, "loadgen_conf": USER_CONF,
                           "loadgen_layout": "submission", "loadgen_token_stage": ANSWER_STAGE}
    if getattr(args, "loadgen_mode", None) == "TEST09":
        out["loadgen_audit"] = TEST09_AUDIT
    return out


def write_artifacts(out_dir: Path, summary: Summary | dict[str, Any],
                    records: list[dict[str, Any]]) -> list[Path]:
    """The judge's ``accuracy.txt`` (run and ``report``), also in ``accuracy/`` for a LoadGen
    accuracy run laid out for submission."""
    from agentic_bench.tasks.rag_e2e.judge import write_artifacts as judge_artifacts

    written = judge_artifacts(out_dir, summary, records)
    lg = Summary.of(summary).loadgen or {}
    if written and lg.get("log_dir") == "accuracy":
        target = Path(out_dir) / "accuracy" / written[0].name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(written[0].read_text(encoding="utf-8"), encoding="utf-8")
        written.append(target)
    return written
