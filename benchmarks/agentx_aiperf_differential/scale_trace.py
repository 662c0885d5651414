#!/usr/bin/env python3
"""Write a copy of a Weka trace with every time scaled by FACTOR (t, api_time, ttft,
think_time, duration_ms (rounded to int ms: AIPerf requires an int) of rows, subagent entries
and their rows). Tokens/hash_ids untouched.
Usage: scale_trace.py IN.json OUT.json FACTOR"""
import json
import sys

src, dst, f = sys.argv[1], sys.argv[2], float(sys.argv[3])
KEYS = ("t", "api_time", "ttft", "think_time", "duration_ms")
def scale(rows):
    for r in rows:
        for k in KEYS:
            if isinstance(r.get(k), (int, float)):
                r[k] = round(r[k] * f) if k == "duration_ms" else round(r[k] * f, 6)
        if r.get("type") == "subagent":
            scale(r.get("requests", []))
tr = json.load(open(src))
scale(tr["requests"])
json.dump(tr, open(dst, "w"), indent=1)
