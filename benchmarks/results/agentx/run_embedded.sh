#!/usr/bin/env bash
# The 30-minute AgentX-style run on the embedded endpoint (SmolLM2-135M, llama.cpp, 2 cores),
# 2 lanes, over the two MLCommons coding conversations converted to Weka traces with the
# served model's own tokenizer, requests that would not fit its 4,096-token context dropped.
set -euo pipefail
cd "$(dirname "$0")/../../.."
BIN=.venv/bin
OUT=benchmarks/results/agentx
# 1. the traces: token counts and block hashes under SmolLM2's tokenizer (no text)
$BIN/agentic-bench traces convert tests/data/mlcommons_edge/agentic_coding_excerpt.jsonl \
    --to weka --out $OUT/mlcommons-coding-smollm2.weka.jsonl --tokenizer server --endpoint embedded
# 2. the run: --agentx (trajectory start 0.25:0.75, 10 warm-up requests per lane, idle cap 10 s,
#    first-user cache bust, replies held to their recorded length), 1,800 s measured
$BIN/agentic-bench replay $OUT/mlcommons-coding-smollm2.weka.jsonl --agentx --concurrency 2 \
    --allow-dataset-wrap --max-context 3900 --duration 1800 \
    --out $OUT/embedded-2lanes-1800s --overwrite
