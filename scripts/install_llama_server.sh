#!/usr/bin/env bash
# Build llama.cpp's own `llama-server` from the llama-cpp-python 0.3.36 sdist (the same llama.cpp
# tree as the embedded endpoint's wheel) for `--endpoint llama-server`.
#
#   scripts/install_llama_server.sh .venv/bin/pip
#
# Idempotent: reuses a binary already in .wheels/ or in the per-user cache (so a fresh clone on
# the same machine does not rebuild); otherwise downloads the sdist from PyPI and builds only the
# `llama-server` target (~6 min on 2 cores) with portable x86-64 flags (AVX2/FMA/F16C, no native
# tuning) and without the web UI (nothing reaches for npm or a model hub). The binary is kept in
# .wheels/llama-server-<version> and ~/.cache/agentic-bench/wheels/.
set -euo pipefail

PIP="${1:-pip}"
VERSION="0.3.36"
NAME="llama-server-$VERSION"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WHEELS="$ROOT/.wheels"
USER_WHEELS="${XDG_CACHE_HOME:-$HOME/.cache}/agentic-bench/wheels"

works() { [ -x "$1" ] && "$1" --version >/dev/null 2>&1; }

if works "$WHEELS/$NAME"; then
  echo "install_llama_server: $WHEELS/$NAME already built" >&2
  exit 0
fi
mkdir -p "$WHEELS"
if works "$USER_WHEELS/$NAME"; then
  cp "$USER_WHEELS/$NAME" "$WHEELS/$NAME"
  echo "install_llama_server: reusing $USER_WHEELS/$NAME" >&2
  exit 0
fi
if ! command -v cmake >/dev/null 2>&1; then
  echo "install_llama_server: cmake not found; installing it into the venv" >&2
  "$PIP" install --quiet cmake
  export PATH="$(dirname "$(command -v "$PIP" || echo "$PIP")"):$PATH"
fi

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
echo "install_llama_server: building llama-server from llama-cpp-python==$VERSION's llama.cpp tree (several minutes)" >&2
"$PIP" download --quiet --no-deps --no-binary :all: -d "$WORK" "llama-cpp-python==$VERSION"
tar -xzf "$WORK"/llama_cpp_python-"$VERSION".tar.gz -C "$WORK"
SRC="$WORK/llama_cpp_python-$VERSION/vendor/llama.cpp"
FLAGS=(-DCMAKE_BUILD_TYPE=Release -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_UI=OFF
       -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF
       -DLLAMA_BUILD_EXAMPLES=OFF -DBUILD_SHARED_LIBS=OFF)
if [ "$(uname -m)" = "x86_64" ]; then
  FLAGS+=(-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON)
fi
cmake -S "$SRC" -B "$WORK/build" "${FLAGS[@]}" >"$WORK/cmake.log" 2>&1 || {
  tail -30 "$WORK/cmake.log" >&2; exit 1; }
cmake --build "$WORK/build" --target llama-server -j "$(nproc 2>/dev/null || echo 2)" \
  >"$WORK/build.log" 2>&1 || { tail -30 "$WORK/build.log" >&2; exit 1; }
cp "$WORK/build/bin/llama-server" "$WHEELS/$NAME"
mkdir -p "$USER_WHEELS" && cp -f "$WHEELS/$NAME" "$USER_WHEELS/$NAME" 2>/dev/null || true
works "$WHEELS/$NAME" || { echo "install_llama_server: the built binary does not run" >&2; exit 1; }
echo "install_llama_server: ok, $WHEELS/$NAME" >&2
