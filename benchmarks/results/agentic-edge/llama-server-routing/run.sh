#!/bin/bash
# #45 item 4: BFCL (50 stratified samples, native tool calls) on llama-server with our tool-call
# routing in front (agentic_bench/endpoint/routing_proxy.py), the same SmolLM2-135M Q4_1 file as
# ../llama-server-vs-shim/. Run from anywhere; writes /tmp/bfcl-routing/.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
OUT=/tmp/bfcl-routing
mkdir -p "$OUT"
M=$(.venv/bin/python -c "from agentic_bench.endpoint.model_file import locate_model; print(locate_model(None))")
# the proxy starts llama-server itself (on 18941) and serves 18940; what `--endpoint embedded`
# starts for this workload, here on fixed ports and 1 slot as the earlier table's llama-server
PYTHONPATH=. .venv/bin/python -m agentic_bench.endpoint.routing_proxy --port 18940 \
  --upstream-port 18941 -- .wheels/llama.cpp-0.3.36-shared/llama-server -m "$M" --alias smollm2 \
  --host 127.0.0.1 --port 18941 -c 8192 -np 1 -t 2 -tb 2 --metrics --jinja --no-ui \
  --chat-template-file agentic_bench/endpoint/templates/smollm2-tools.jinja > "$OUT/srv.log" 2>&1 &
SP=$!
trap 'kill $SP' EXIT
sleep 6
start=$(date +%s)
.venv/bin/agentic-bench run agentic-edge --quick --mode accuracy \
  --endpoint http://127.0.0.1:18940/v1 --out "$OUT/routing" --quiet > "$OUT/run.log" 2>&1
echo "routing done $(( $(date +%s) - start ))s" | tee -a "$OUT/times"
# the same through --endpoint embedded (the launcher the harness itself uses):
#   .venv/bin/agentic-bench run agentic-edge --quick --mode accuracy --out "$OUT/embedded"
