#!/usr/bin/env bash
# `make demo`: run the main job on the embedded endpoint (a real llama.cpp server with
# SmolLM2-135M-Instruct) and print where the results are.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
OUT=${DEMO_OUT:-results/demo-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
start=$(date +%s)
echo "== sample trace replay (embedded endpoint) =="
$BIN/agentic-bench run sample --think-time scaled:0.2 --out "$OUT/sample" || true
end=$(date +%s)
echo
echo "demo finished in $((end - start)) s; results under $OUT/"
