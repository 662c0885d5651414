"""``agentic-bench list``: benchmarks, scenarios, history policies, one line each."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("list", help="list benchmarks, scenarios and policies")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from agentic_bench.load.spec import SCENARIOS
    from agentic_bench.tasks.registry import discover

    print("benchmarks:")
    for name, ref in sorted(discover().items()):
        try:
            summary = ref.load().summary
        except Exception as exc:
            summary = f"BROKEN: {exc}"
        print(f"  {name:<16} {summary}  [{ref.source}]")
    print("scenarios:")
    for name, text in SCENARIOS.items():
        print(f"  {name:<16} {text}")
    print("history policies:")
    print("  recorded         send the recorded history; score the reply, do not feed it back")
    print("  live             feed the model's replies back; tools answered from the recording")
    return 0
