"""``agentic-bench submission pack RUN_DIR... --submitter NAME --system NAME --division
closed|open --out DIR``: lay out result folders as an MLPerf submission (docs/submission.md)."""

from __future__ import annotations

import argparse
import json
import sys


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "submission", help="MLPerf submission packages from run folders (pack)",
        description="Lay out run folders of `run rag-e2e --mlperf`, `rag build-index --mlperf-db "
        "--loadgen mlperf` and `run agentic-edge` as an MLPerf submission that MLCommons' "
        "submission checker reads. See docs/submission.md.")
    actions = p.add_subparsers(dest="submission_command", metavar="ACTION")
    from agentic_bench.cli.options_command import add_options_command

    add_options_command(actions, "pack", "lay out run folders as "
                        "<division>/<submitter>/{results,systems,...}"
                        ).set_defaults(func=main_pack)  # SubmissionPackOptions
    p.set_defaults(func=lambda _args: _usage(p))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def main_pack(namespace: argparse.Namespace) -> int:
    from agentic_bench.cli.options_command import parse_command
    from agentic_bench.cli.tool_options import SubmissionPackOptions
    from agentic_bench.submission import departures, describe, pack, read_run, report

    args = parse_command(SubmissionPackOptions, namespace.rest, "submission pack")
    packed = pack(args.run_dirs, submitter=args.submitter, system=args.system,
                  division=args.division, out=args.out)
    rep = report(packed.root)
    summaries = [read_run(p).summary for p in args.run_dirs]
    if args.division == "closed":
        rep.will_fail += [f"departure from MLPerf's configuration: {d}"
                          for d in departures(summaries)]
    for path, summary in zip(args.run_dirs, summaries, strict=True):
        if summary.given("complete") is False:  # an interrupted run: never packed silently
            line = (f"{path}: an interrupted run (complete: no, stop reason "
                    f"{summary.given('stop_reason', '-')}); run it again or --resume it first")
            rep.will_fail.append(line)
            print(f"warning: {line}", file=sys.stderr)
    if args.json_output:
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
