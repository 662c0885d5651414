#!/usr/bin/env bash
# All differential runs (sequential). Output: diff/logs, diff/runs, diff/run_all.log
cd "$(dirname "$0")"
WORK=${WORK:-$PWD/work}
for C in 1 2; do
  for TOOL in aiperf aiperf_sim ours; do
    ./run_diff.sh hand   $WORK/traces        $C 2 $TOOL
    ./run_diff.sh real2  $WORK/traces_real2  $C 2 $TOOL
    ./run_diff.sh t0291s $WORK/traces_0291s  $C 1 $TOOL
  done
done
# ours on the ORIGINAL trace_0291 with its own time scaling (cross-check of the scaled copy)
./run_diff.sh t0291orig $WORK/traces_0291orig 1 1 ours --think-time scaled:0.01
