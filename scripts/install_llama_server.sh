#!/usr/bin/env bash
# llama.cpp's own `llama-server`, the embedded endpoint (`--endpoint embedded`/`llama-server`,
# `agentic-bench serve`), from the same llama.cpp build as the llama-cpp-python wheel that
# `--endpoint inproc` uses (scripts/build_llama_cpp.sh).
#
#   scripts/install_llama_server.sh .venv/bin/pip
#
# Idempotent: the binary lives in the llama.cpp bundle, .wheels/llama.cpp-0.3.36-shared/
# llama-server, beside the shared libraries it loads (RPATH $ORIGIN), with a per-user copy in
# ~/.cache/agentic-bench/wheels/ (so a fresh clone on the same machine does not rebuild). After
# scripts/install_llama.sh this only checks the binary; when the bundle is missing it is built
# (~7 min on 2 cores, llama.cpp compiled once for both; no web UI, no npm, no model hub).
set -euo pipefail

PIP="${1:-pip}"
HERE="$(cd "$(dirname "$0")" && pwd)"

bundle="$(bash "$HERE/build_llama_cpp.sh" "$PIP")"
if ! "$bundle/llama-server" --version >/dev/null 2>&1; then
  "$bundle/llama-server" --version >&2 || true
  echo "install_llama_server: $bundle/llama-server does not run" >&2
  exit 1
fi
echo "install_llama_server: ok, $bundle/llama-server" >&2
