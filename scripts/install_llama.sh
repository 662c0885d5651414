#!/usr/bin/env bash
# Install llama-cpp-python 0.3.36 for `--endpoint inproc` (the model in-process; tests that check
# grammars with it load it too).
# Its server is not used (removed from the embedded endpoint on 2026-12-06: llama.cpp's own
# llama-server serves), so its server extra (uvicorn, fastapi, ...) is not installed.
#
#   scripts/install_llama.sh .venv/bin/pip
#
# Idempotent: installs the wheel of the llama.cpp bundle (.wheels/llama.cpp-0.3.36-shared/, or the
# per-user copy in ~/.cache/agentic-bench/wheels/); when there is none, scripts/build_llama_cpp.sh
# compiles llama.cpp once (~7 min on 2 cores) into that bundle: the wheel and llama.cpp's own
# llama-server (scripts/install_llama_server.sh) share the same libraries, so `make install`
# compiles llama.cpp once. On x86_64 the build disables GGML_NATIVE: the native (AVX-512/AMX)
# build crashes in decode on some CPUs; AVX/AVX2/FMA/F16C is safe and fast.
set -euo pipefail

PIP="${1:-pip}"
VERSION="0.3.36"
HERE="$(cd "$(dirname "$0")" && pwd)"

PY="$(dirname "$(command -v "$PIP" || echo "$PIP")")/python"
[ -x "$PY" ] || PY="python3"

installed="$("$PY" -c 'import importlib.metadata as m; print(m.version("llama_cpp_python"))' 2>/dev/null || true)"

if [ "$installed" = "$VERSION" ]; then
  echo "install_llama: llama-cpp-python $VERSION already installed" >&2
else
  bundle="$(bash "$HERE/build_llama_cpp.sh" "$PIP")"
  wheels=("$bundle"/llama_cpp_python-"$VERSION"-*.whl)
  wheel="${wheels[0]}"
  if [ ! -f "$wheel" ]; then
    echo "install_llama: no llama_cpp_python-$VERSION wheel in $bundle" >&2
    exit 1
  fi
  echo "install_llama: installing $wheel" >&2
  "$PIP" install --quiet "$wheel"
fi
"$PY" -c 'import llama_cpp; print("install_llama: ok, llama-cpp-python", llama_cpp.__version__)'
