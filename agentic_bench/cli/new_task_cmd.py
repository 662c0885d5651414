"""``agentic-bench new-task NAME``: scaffold a benchmark plugin package."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from agentic_bench.cli.options_command import add_options_command

    parser = add_options_command(
        sub, "new-task",
        "scaffold a benchmark plugin (task, dataset, tools, scorer, "
        "tests)")
    parser.set_defaults(func=main)


def main(namespace: argparse.Namespace) -> int:
    from agentic_bench.cli.options_command import parse_command
    from agentic_bench.cli.tool_options import NewTaskOptions
    from agentic_bench.scaffold import create
    from agentic_bench.tasks.registry import discover

    args = parse_command(NewTaskOptions, namespace.rest, "new-task")
    root, names = create(args.name, args.dir, package=args.package, force=args.force)
    if names.name in discover():
        print(f"note: a benchmark named {names.name!r} is already installed "
              f"({discover()[names.name].source}); installing this one will clash")
    print(f"created {root}/ (package {names.package}, distribution {names.dist})")
    print("next:")
    print(f"  cd {root} && python -m pytest          # its own tests, no server needed")
    print(f"  pip install -e {root}                  # registers the `{names.name}` benchmark")
    print(f"  agentic-bench run {names.name} --quick")
    return 0
