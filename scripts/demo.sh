#!/usr/bin/env bash
# `make demo`: the quick versions of the flagship benchmarks on the embedded endpoint (a real
# llama.cpp server with SmolLM2-135M-Instruct), then a summary table and where the reports are.
# Demo sizes keep it to a few minutes on 2 cores: the 135M model reads the ~3k-token BFCL tool
# prompts at a few hundred tokens/s, so the full --quick sizes (50 BFCL samples + 2 recorded
# sessions, 20 RAG questions) take ~20 min here. DEMO_FULL=1 runs those instead.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
OUT=${DEMO_OUT:-results/demo-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
start=$(date +%s)
runs=()
run() {  # name, args...: a failing benchmark is reported, the demo goes on
    local name=$1; shift
    echo "== $name =="
    local t0=$(date +%s)
    $BIN/agentic-bench run "$@" --out "$OUT/$name" --quiet
    local rc=$?
    echo "   exit $rc (0 VALID, 3 INVALID) in $(( $(date +%s) - t0 )) s -> $OUT/$name/report.html"
    [ -f "$OUT/$name/summary.json" ] && runs+=("$OUT/$name")
}
if [ "${DEMO_FULL:-0}" = 1 ]; then
    edge_size=(); rag_size=()
else
    edge_size=(--samples 12 --perf-sessions 1); rag_size=(--questions 5)
fi
run agentic-edge agentic-edge --quick "${edge_size[@]}"
if $BIN/agentic-bench list 2>/dev/null | grep -q "^  rag-e2e "; then
    run rag-e2e rag-e2e --quick "${rag_size[@]}"
fi
echo
if [ ${#runs[@]} -gt 0 ]; then
    $BIN/agentic-bench compare "${runs[@]}" --out "$OUT"
fi
echo
echo "demo finished in $(( $(date +%s) - start )) s; reports: ${runs[*]/%//report.html}"
