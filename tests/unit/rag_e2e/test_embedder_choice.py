"""--embedder takes any sentence-transformers model (#20 item 2): a directory or a cached hub
id, e5 prefixes when the model needs them, a clear refusal otherwise; never a download."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agentic_bench.errors import ConfigError
from agentic_bench.tasks.rag_e2e.index_cache import e5_prefixes, make_embedder


def test_e5_prefixes() -> None:
    assert e5_prefixes("intfloat/e5-base-v2") == ("query: ", "passage: ")
    assert e5_prefixes("multilingual_e5_small") == ("query: ", "passage: ")
    assert e5_prefixes("all-MiniLM-L6-v2") == ("", "")


def test_a_model_directory_is_the_same_model_as_the_builtin() -> None:
    pytest.importorskip("sentence_transformers")
    from rag_pipeline.embedders.local import packaged_minilm_path

    builtin = make_embedder("minilm")
    by_path = make_embedder(str(packaged_minilm_path()))
    assert by_path.name.startswith("st:/") and by_path.name != builtin.name  # own cache key
    texts = ["Paris is the capital of France.", "Bees make honey."]
    assert np.allclose(by_path.embed_passages(texts), builtin.embed_passages(texts), atol=1e-6)


@pytest.mark.parametrize("name", ["no-such-model", "nobody/not-a-cached-model-xyz"])
def test_unknown_models_are_refused_without_a_download(name: str) -> None:
    with pytest.raises(ConfigError, match="--embedder"):
        make_embedder(name)


def test_a_directory_without_a_model_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no sentence-transformers model"):
        make_embedder(str(tmp_path))


def test_raw_text_for_an_e5_model_when_asked() -> None:
    """MLPerf's reference embeds the raw text (no e5 prefixes): --embed-prefixes none; the
    index key then differs (+raw), so the two never share an index."""
    pytest.importorskip("aiohttp")
    with_prefixes = make_embedder("e5-base-v2", "http://127.0.0.1:9/v1")
    raw = make_embedder("e5-base-v2", "http://127.0.0.1:9/v1", prefixes=False)
    assert (with_prefixes.query_prefix, with_prefixes.passage_prefix) == ("query: ", "passage: ")
    assert (raw.query_prefix, raw.passage_prefix) == ("", "")
    assert raw.name == with_prefixes.name + "+raw"
    plain = make_embedder("minilm-like", "http://127.0.0.1:9/v1", prefixes=False)
    assert not plain.name.endswith("+raw")  # nothing to drop: the same model and key
