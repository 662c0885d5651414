#!/bin/bash
cd /work/main
M=$(.venv/bin/python -c "from agentic_bench.endpoint.model_file import locate_model; print(locate_model(None))")
B=llama-server
start=$(date +%s)
.venv/bin/agentic-bench run agentic-edge --quick --mode accuracy --out /tmp/bfclcmp/python-server --quiet > /tmp/bfclcmp/a.log 2>&1
echo "A done $(( $(date +%s) - start ))s" >> /tmp/bfclcmp/times
$B -m $M --alias smollm2 --host 127.0.0.1 --port 18081 -c 8192 -np 1 -t 2 -tb 2 --metrics --jinja --no-ui --chat-template-file llama-server-chatml-tools.jinja > /tmp/bfclcmp/srv.log 2>&1 &
SP=$!
sleep 5
start=$(date +%s)
.venv/bin/agentic-bench run agentic-edge --quick --mode accuracy --endpoint http://127.0.0.1:18081/v1 --out /tmp/bfclcmp/llama-server --quiet > /tmp/bfclcmp/b.log 2>&1
echo "B done $(( $(date +%s) - start ))s" >> /tmp/bfclcmp/times
kill $SP
