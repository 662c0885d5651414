#!/usr/bin/env bash
# Install llama-cpp-python 0.3.36 (+ its server's dependencies) for the embedded endpoint.
#
#   scripts/install_llama.sh .venv/bin/pip
#
# Idempotent: reuses a wheel already in .wheels/ (next to this script's folder); otherwise builds
# one from the PyPI sdist (source-only, ~6-7 min on 2 cores) and keeps it there for next time.
# On x86_64 the build disables GGML_NATIVE: the native (AVX-512/AMX) build crashes in decode on
# some CPUs; AVX/AVX2/FMA/F16C is safe and fast.
set -euo pipefail

PIP="${1:-pip}"
VERSION="0.3.36"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WHEELS="$ROOT/.wheels"
# a second, per-user copy so a fresh clone on the same machine (CI) also skips the build
USER_WHEELS="${XDG_CACHE_HOME:-$HOME/.cache}/agentic-bench/wheels"
# the server extra of llama-cpp-python 0.3.36 (pyproject.toml [server]), installed by name so
# the wheel is never rebuilt for them
SERVER_DEPS=(
  "uvicorn>=0.22.0"
  "fastapi>=0.100.0"
  "pydantic-settings>=2.0.1"
  "sse-starlette>=1.6.1"
  "starlette-context>=0.3.6,<0.4"
  "PyYAML>=5.1"
)

PY="$(dirname "$(command -v "$PIP" || echo "$PIP")")/python"
[ -x "$PY" ] || PY="python3"

installed="$("$PY" -c 'import importlib.metadata as m; print(m.version("llama_cpp_python"))' 2>/dev/null || true)"

find_wheel() {
  ls -1 "$WHEELS"/llama_cpp_python-"$VERSION"-*.whl 2>/dev/null | head -n 1 || true
}

wheel="$(find_wheel)"
if [ -z "$wheel" ]; then
  cached="$(ls -1 "$USER_WHEELS"/llama_cpp_python-"$VERSION"-*.whl 2>/dev/null | head -n 1 || true)"
  if [ -n "$cached" ]; then
    mkdir -p "$WHEELS" && cp "$cached" "$WHEELS"/ && wheel="$(find_wheel)"
    echo "install_llama: reusing $cached" >&2
  fi
fi
if [ -z "$wheel" ] && [ "$installed" != "$VERSION" ]; then
  mkdir -p "$WHEELS"
  if [ "$(uname -m)" = "x86_64" ]; then
    export CMAKE_ARGS="${CMAKE_ARGS:-} -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
  fi
  echo "install_llama: building llama-cpp-python==$VERSION (several minutes; CMAKE_ARGS=${CMAKE_ARGS:-})" >&2
  "$PIP" wheel --no-deps -w "$WHEELS" "llama-cpp-python==$VERSION"
  wheel="$(find_wheel)"
  if [ -z "$wheel" ]; then
    echo "install_llama: the build produced no wheel in $WHEELS" >&2
    exit 1
  fi
fi
if [ -n "$wheel" ]; then
  mkdir -p "$USER_WHEELS" && cp -n "$wheel" "$USER_WHEELS"/ 2>/dev/null || true
fi

if [ "$installed" = "$VERSION" ]; then
  echo "install_llama: llama-cpp-python $VERSION already installed" >&2
else
  echo "install_llama: installing $wheel" >&2
  "$PIP" install --quiet "$wheel"
fi
"$PIP" install --quiet "${SERVER_DEPS[@]}"
"$PY" -c 'import llama_cpp, llama_cpp.server.app; print("install_llama: ok, llama-cpp-python", llama_cpp.__version__)'
