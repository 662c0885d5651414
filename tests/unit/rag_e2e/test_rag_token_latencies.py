"""#43 E2E-RAG item 9: LoadGen's token latencies are off for E2E-RAG, as in the reference run.

Transcription of the reference rule (mlcommons/inference b66003e1): ``e2e-rag/reference_mlperf.py``
203-208 builds a fresh ``lg.TestSettings()`` (``loadgen/test_settings.h`` 268:
``use_token_latencies = false``) and reads ``user.conf`` with ``FromConfig``, which reads the
built-in ``loadgen/mlperf.conf`` first; that file turns token latencies on per model
(96-111: llama2-70b, mixtral, llama3_1, deepseek-r1, whisper, gpt-oss-120b...), never for
``e2e-rag-qna``, and ``e2e-rag/user.conf`` does not either. Ours turned them on by default.
"""

from __future__ import annotations

import importlib.util

import pytest

from agentic_bench.loadgen.settings import SettingsPlan, build_test_settings, plan_settings
from agentic_bench.options.load import LoadSpec
from agentic_bench.options.loadgen import LoadgenOptions
from agentic_bench.tasks.rag_e2e.loadgen_files import CONF_MODEL, USER_CONF


def _plan(model: str) -> SettingsPlan:
    opts = LoadgenOptions(scenario="offline", conf=USER_CONF, model=model)
    return plan_settings(opts, LoadSpec(scenario="offline"), {}, 824, "rag-e2e")


def test_with_a_conf_the_files_decide_token_latencies_from_loadgens_default_off() -> None:
    assert _plan(CONF_MODEL).defaults["use_token_latencies"] is False
    no_conf = plan_settings(LoadgenOptions(scenario="offline"), LoadSpec(scenario="offline"),
                            {}, 10, "bench")
    assert no_conf.defaults["use_token_latencies"] is True  # quick runs keep them


@pytest.mark.skipif(importlib.util.find_spec("mlperf_loadgen") is None,
                    reason="mlperf_loadgen (mlcommons-loadgen) not installed")
def test_loadgen_settings_of_the_e2e_rag_preset_have_token_latencies_off() -> None:
    import mlperf_loadgen as lg

    assert lg.TestSettings().use_token_latencies is False  # test_settings.h 268
    ts = build_test_settings(lg, _plan(CONF_MODEL))
    assert ts.use_token_latencies is False
    # the same files turn them on for a model mlperf.conf lists (mlperf.conf 97: llama2-70b)
    assert build_test_settings(lg, _plan("llama2-70b")).use_token_latencies is True
