#!/usr/bin/env bash
# An AgentX concurrency sweep on the simulator, for its Pareto view (sweep.html): throughput per
# GPU against P90 interactivity, one point per concurrency. The simulator's load model makes
# both TTFT and the gaps between tokens grow with the replies in flight (so interactivity falls
# as load rises). The traces: the two MLCommons coding conversations as Weka traces
# (run_embedded.sh writes them); wrap on, so lanes outnumber trees. A 120-s measured phase per
# point is far under the scenario's 900 s: every point reads INVALID for that one rule (each point
# runs the lanes and the AgentX rules; sweep.html then marks no knee).
set -euo pipefail
cd "$(dirname "$0")/../../.."
BIN=.venv/bin
OUT=benchmarks/results/agentx
$BIN/agentic-bench sim --port 8931 --ttft-ms 40 --itl-ms 4 --ttft-per-inflight-ms 15 \
    --itl-per-inflight-ms 1.5 > /tmp/agentx-sweep-sim.log 2>&1 &
SIM=$!
trap 'kill $SIM' EXIT
sleep 2
$BIN/agentic-bench replay $OUT/mlcommons-coding-smollm2.weka.jsonl --endpoint http://127.0.0.1:8931/v1 \
    --tokenizer server --agentx --allow-dataset-wrap --duration 120 --gpus 1 \
    --sweep concurrency=1,2,4,8,16,32 --out $OUT/sweep-sim --overwrite
