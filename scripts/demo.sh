#!/usr/bin/env bash
# `make demo`: the quick versions of the flagship benchmarks on the embedded endpoint (a real
# llama.cpp server with SmolLM2-135M-Instruct), then their headline figures and where the reports
# are. Demo sizes keep it to a few minutes on 2 cores: the 135M model reads the ~3k-token BFCL tool
# prompts at a few hundred tokens/s, so the full --quick sizes (50 BFCL samples + 2 recorded
# sessions, 20 RAG questions) take ~20 min here. DEMO_FULL=1 runs those instead.
#
# Exit status: 0 when every step ran and wrote its results, whatever their verdict (a run that
# reads INVALID — SmolLM2 does not pass MLPerf's accuracy gates — is a result, not a failure);
# 1 when a step failed (a crash, bad input, a missing benchmark or a missing summary).
# AGENTIC_BENCH overrides the command (tests use it to force a failing step).
set -uo pipefail
cd "$(dirname "$0")/.."
AB=${AGENTIC_BENCH:-.venv/bin/agentic-bench}
OUT=${DEMO_OUT:-results/demo-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
start=$(date +%s)
failed=()
runs=()
run() {  # name, args...: every step runs; a failed one is reported and fails the demo
    local name=$1; shift
    echo "== $name =="
    local t0
    t0=$(date +%s)
    "$AB" run "$@" --out "$OUT/$name" --quiet
    local rc=$?
    local verdict="failed"
    case $rc in 0) verdict="VALID" ;; 3) verdict="INVALID" ;; esac
    echo "   $verdict (exit $rc) in $(( $(date +%s) - t0 )) s -> $OUT/$name/report.html"
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
        failed+=("$name (exit $rc)")
    elif [ ! -f "$OUT/$name/summary.json" ]; then
        failed+=("$name (no summary.json)")
    else
        runs+=("$OUT/$name")
    fi
}
if [ "${DEMO_FULL:-0}" = 1 ]; then
    edge_size=(); rag_size=()
else
    edge_size=(--samples 12 --perf-sessions 1); rag_size=(--questions 5)
fi
run agentic-edge agentic-edge --quick "${edge_size[@]}"
if "$AB" list 2>/dev/null | grep -q "^  rag-e2e "; then
    run rag-e2e rag-e2e --quick "${rag_size[@]}"
else
    echo "== rag-e2e =="
    echo "   not installed (\`$AB list\` does not show it): pip install -e '.[rag]'"
    failed+=("rag-e2e (not installed)")
fi
echo
for dir in "${runs[@]}"; do
    echo "-- $dir"
    grep -E "^(Result is|Config|Accuracy|Inline IoU|Sessions)" "$dir/summary.txt" || true
done
echo
echo "demo finished in $(( $(date +%s) - start )) s; reports: ${runs[*]/%//report.html}"
if [ ${#failed[@]} -gt 0 ]; then
    echo "demo FAILED: ${failed[*]}" >&2
    exit 1
fi
