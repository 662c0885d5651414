#!/usr/bin/env bash
# Build llama.cpp ONCE for both its users: llama.cpp's own `llama-server` (the embedded endpoint)
# and llama-cpp-python 0.3.36's wheel (`--endpoint inproc`), from the same tree
# (the llama-cpp-python sdist's vendor/llama.cpp).
#
#   scripts/build_llama_cpp.sh .venv/bin/pip      # prints the bundle's folder on stdout
#
# The bundle, .wheels/llama.cpp-<version>-shared/, holds
#   llama_cpp_python-<version>-py3-none-linux_x86_64.whl   (the bindings + the libraries below)
#   llama-server                                          (RPATH $ORIGIN: runs from this folder)
#   libllama.so*, libggml*.so*, libllama-common.so*, libmtmd.so*, ...
# Idempotent: reuses the bundle in .wheels/ or in the per-user cache (~/.cache/agentic-bench/
# wheels/, so a fresh clone on the same machine does not rebuild); otherwise downloads the sdist
# from PyPI, compiles llama.cpp with cmake as shared libraries + the `llama-server` target (~7 min
# on 2 cores), then packs the wheel around those libraries with LLAMA_BUILD=OFF (no second
# compile, seconds). Portable x86-64 flags (AVX/AVX2/FMA/F16C, GGML_NATIVE=OFF: the native
# AVX-512/AMX build crashes in decode on some CPUs); no web UI, no OpenSSL, no curl.
set -euo pipefail

PIP="${1:-pip}"
VERSION="0.3.36"
BUNDLE="llama.cpp-$VERSION-shared"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WHEELS="$ROOT/.wheels"
USER_WHEELS="${XDG_CACHE_HOME:-$HOME/.cache}/agentic-bench/wheels"

log() { echo "build_llama_cpp: $*" >&2; }
# a bundle is whole when its wheel is there and its llama-server runs
whole() {
  [ -d "$1" ] && ls "$1"/llama_cpp_python-"$VERSION"-*.whl >/dev/null 2>&1 \
    && [ -x "$1/llama-server" ] && "$1/llama-server" --version >/dev/null 2>&1
}
# copy a bundle folder via a temporary name, so a half copy is never taken for a bundle
put() {
  mkdir -p "$(dirname "$2")" && rm -rf "$2.part" && cp -a "$1" "$2.part" \
    && rm -rf "$2" && mv "$2.part" "$2"
}

if whole "$WHEELS/$BUNDLE"; then
  log "$WHEELS/$BUNDLE already built"
elif whole "$USER_WHEELS/$BUNDLE"; then
  put "$USER_WHEELS/$BUNDLE" "$WHEELS/$BUNDLE"
  log "reusing $USER_WHEELS/$BUNDLE"
else
  if ! command -v cmake >/dev/null 2>&1; then
    log "cmake not found; installing it into the venv"
    "$PIP" install --quiet cmake
    PATH="$(dirname "$(command -v "$PIP" || echo "$PIP")"):$PATH"
    export PATH
  fi
  WORK="$(mktemp -d)"
  trap 'rm -rf "$WORK"' EXIT
  log "compiling llama.cpp from llama-cpp-python==$VERSION's sdist, once for llama-server and the wheel (several minutes)"
  "$PIP" download --quiet --no-deps --no-binary :all: -d "$WORK" "llama-cpp-python==$VERSION"
  tar -xzf "$WORK"/llama_cpp_python-"$VERSION".tar.gz -C "$WORK"
  SDIST="$WORK/llama_cpp_python-$VERSION"
  # shared libraries as llama-cpp-python builds them (LLAMA_CURL off, the common library on),
  # plus the server; every target gets RPATH $ORIGIN, so the libraries travel beside it
  # shellcheck disable=SC2016  # $ORIGIN is for the dynamic loader, not the shell
  FLAGS=(-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON
         -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON '-DCMAKE_INSTALL_RPATH=$ORIGIN'
         -DLLAMA_BUILD_COMMON=ON -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON
         -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF
         -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF)
  if [ "$(uname -m)" = "x86_64" ]; then
    FLAGS+=(-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON)
  fi
  cmake -S "$SDIST/vendor/llama.cpp" -B "$WORK/build" "${FLAGS[@]}" >"$WORK/cmake.log" 2>&1 || {
    tail -30 "$WORK/cmake.log" >&2; log "cmake configure failed"; exit 1; }
  cmake --build "$WORK/build" --target llama llama-common mtmd llama-server \
    -j "$(nproc 2>/dev/null || echo 2)" >"$WORK/build.log" 2>&1 || {
    tail -30 "$WORK/build.log" >&2; log "the llama.cpp build failed"; exit 1; }
  STAGE="$WORK/$BUNDLE"
  mkdir -p "$STAGE" "$SDIST/llama_cpp/lib"
  cp -a "$WORK/build/bin/llama-server" "$WORK"/build/bin/lib*.so* "$STAGE"/
  # the wheel: the Python package with these same libraries in llama_cpp/lib (where its ctypes
  # loader looks), nothing compiled; the sdist's .gitignore would drop lib/ from the wheel
  cp -L "$WORK"/build/bin/lib*.so* "$SDIST/llama_cpp/lib/"
  rm -f "$SDIST"/llama_cpp/lib/libllama-server-impl.so*  # the server's own, not the bindings'
  rm -f "$SDIST/.gitignore"
  CMAKE_ARGS="-DLLAMA_BUILD=OFF -DLLAVA_BUILD=OFF" \
    "$PIP" wheel --quiet --no-deps -w "$STAGE" "$SDIST" >"$WORK/wheel.log" 2>&1 || {
    tail -30 "$WORK/wheel.log" >&2; log "packing the wheel failed"; exit 1; }
  whole "$STAGE" || { log "the build produced no working bundle (wheel + llama-server)"; exit 1; }
  put "$STAGE" "$WHEELS/$BUNDLE"
  log "built $WHEELS/$BUNDLE"
fi
if ! whole "$USER_WHEELS/$BUNDLE"; then
  put "$WHEELS/$BUNDLE" "$USER_WHEELS/$BUNDLE" 2>/dev/null || true
fi
echo "$WHEELS/$BUNDLE"
