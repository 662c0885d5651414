#!/usr/bin/env python3
"""Generate two small hand-made Weka traces under $WORK/traces/ (default: ./work/traces)."""
import json
import os

BS = 64
OUT = os.path.join(os.environ.get("WORK", os.path.join(os.path.dirname(os.path.abspath(__file__)), "work")), "traces")


def req(t, typ, model, inn, out, hash_ids, stop="tool_use", api_time=0.6, ttft=0.15,
        input_types=("tool_result",), output_types=("tool_use",)):
    assert len(hash_ids) == inn // BS, (inn, len(hash_ids))
    r = {"t": t, "type": typ, "model": model, "in": inn, "out": out,
         "hash_ids": list(hash_ids), "input_types": list(input_types),
         "output_types": list(output_types), "stop": stop, "api_time": api_time}
    if typ == "s":
        r["ttft"] = ttft
    return r


def chain(prev, inn, start):
    """hash_ids = prev prefix + fresh ids starting at `start` up to floor(inn/64)."""
    n = inn // BS
    assert n >= len(prev)
    return list(prev) + list(range(start, start + n - len(prev)))


M = "claude-test-model"

# ---------------- trace A: parent + one subagent the parent waits for --------
a0 = chain([], 700, 1)            # 10 blocks: 1..10 (first 8 = tool+system prefix 500 tok)
a1 = chain(a0, 900, 11)           # 14 blocks
s0 = chain([], 400, 101)          # 6 blocks (subagent's own context)
s1 = chain(s0, 600, 107)          # 9
s2 = chain(s1, 750, 110)          # 11
a2 = chain(a1, 1100, 15)          # 17
a3 = chain(a2, 1300, 18)          # 20
trace_a = {
    "id": "trace-a",
    "models": [M],
    "block_size": BS,
    "hash_id_scope": "local",
    "tool_tokens": 300,
    "system_tokens": 200,
    "requests": [
        req(0.0, "s", M, 700, 20, a0, input_types=("text",), output_types=("text", "tool_use")),
        req(1.5, "s", M, 900, 15, a1, stop="tool_use"),
        {
            "t": 2.5, "type": "subagent", "agent_id": "agent_001",
            "subagent_type": "Explore", "duration_ms": 4500, "status": "completed",
            "models": [M], "tool_tokens": 100, "system_tokens": 150,
            "requests": [
                req(2.6, "s", M, 400, 10, s0, input_types=("text",)),
                req(4.0, "s", M, 600, 12, s1),
                req(5.5, "s", M, 750, 8, s2, stop="end_turn", output_types=("text",)),
            ],
        },
        # parent waits for the subagent (ends at 2.5 + 4.5 = 7.0)
        req(7.5, "s", M, 1100, 25, a2, input_types=("tool_result",)),
        req(9.0, "n", M, 1300, 30, a3, stop="end_turn", output_types=("text",)),
    ],
}

# ---------------- trace B: plain chained parent, no subagent ------------------
b0 = chain([], 300, 1)            # 4 blocks (first 2 = system prefix 128 tok)
b1 = chain(b0, 520, 5)            # 8
b2 = chain(b1, 610, 9)            # 9
b3 = chain(b2, 845, 10)           # 13
b4 = chain(b3, 1010, 14)          # 15
trace_b = {
    "id": "trace-b",
    "models": [M],
    "block_size": BS,
    "hash_id_scope": "local",
    "tool_tokens": 0,
    "system_tokens": 128,
    "requests": [
        req(0.5, "s", M, 300, 10, b0, input_types=("text",)),
        req(2.0, "s", M, 520, 12, b1),
        req(4.0, "n", M, 610, 5, b2),
        req(6.0, "s", M, 845, 7, b3),
        req(8.0, "s", M, 1010, 9, b4, stop="end_turn", output_types=("text",)),
    ],
}

os.makedirs(OUT, exist_ok=True)
for tr in (trace_a, trace_b):
    with open(os.path.join(OUT, tr["id"] + ".json"), "w") as f:
        json.dump(tr, f, indent=1)
print("wrote", os.listdir(OUT))
