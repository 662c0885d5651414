"""``agentic-bench submission pack RUN_DIR... --submitter NAME --system NAME --division
closed|open --out DIR``: lay out result folders as an MLPerf submission (docs/submission.md)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "submission", help="MLPerf submission packages from run folders (pack)",
        description="Lay out run folders of `run rag-e2e --mlperf`, `rag build-index --mlperf-db "
        "--loadgen mlperf` and `run agentic-edge` as an MLPerf submission that MLCommons' "
        "submission checker reads. See docs/submission.md.")
    actions = p.add_subparsers(dest="submission_command", metavar="ACTION")
    pk = actions.add_parser(
        "pack", help="lay out run folders as <division>/<submitter>/{results,systems,...}",
        description="Copy one or more run folders into an MLPerf submission tree: "
        "results/<system>/<benchmark>/<scenario>/ as the checker reads it (E2E-RAG qna and db: "
        "LoadGen's performance/run_1, accuracy with a hashed accuracy.txt and a truncated log, "
        "TEST09 (qna), user.conf; Edge Agentic: config.yaml, performance/ and accuracy/ JSON), "
        "with templates for the system description and measurements (values marked 'FILL IN:'). "
        "Run folders of one benchmark merge (performance, accuracy and TEST09 runs); packing "
        "again into the same --out adds to it and keeps filled-in templates. Prints what is "
        "still missing.")
    pk.add_argument("run_dirs", type=Path, nargs="+", metavar="RUN_DIR",
                    help="run folders (--out of `agentic-bench run ...` or `rag build-index "
                    "--loadgen mlperf`)")
    pk.add_argument("--submitter", required=True, metavar="NAME",
                    help="your organisation, as the folder and the system JSON name it")
    pk.add_argument("--system", required=True, metavar="NAME",
                    help="system name (results/<NAME>/, systems/<NAME>.json)")
    pk.add_argument("--division", required=True, choices=("closed", "open"),
                    help="closed (MLPerf's configuration, compliance tests) or open")
    pk.add_argument("--out", required=True, type=Path, metavar="DIR",
                    help="submission folder (created; an existing one is added to)")
    pk.add_argument("--json", action="store_true",
                    help="print the result as JSON instead of text")
    pk.set_defaults(func=main_pack)
    p.set_defaults(func=lambda _args: _usage(p))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def main_pack(args: argparse.Namespace) -> int:
    from agentic_bench.submission import departures, describe, pack, read_run, report

    packed = pack(args.run_dirs, submitter=args.submitter, system=args.system,
                  division=args.division, out=args.out)
    rep = report(packed.root)
    if args.division == "closed":
        summaries = [read_run(p).summary for p in args.run_dirs]
        rep.will_fail += [f"departure from MLPerf's configuration: {d}"
                          for d in departures(summaries)]
    if args.json:
        print(json.dumps({**describe(packed), "fill": rep.fill, "missing": rep.missing,
                          "will_fail": rep.will_fail}, indent=2))
        return 0
    print(f"packed {len(args.run_dirs)} run folder(s) into {packed.root}")
    for path in packed.results:
        print(f"  {path.relative_to(packed.root)}")
    if packed.kept:
        print(f"kept {len(packed.kept)} file(s) already there (filled-in templates are not "
              "overwritten)")
    for note in packed.notes:
        print(f"note: {note}")
    print()
    print("\n".join(rep.lines()))
    return 0
