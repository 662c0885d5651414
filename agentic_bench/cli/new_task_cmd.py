"""``agentic-bench new-task NAME``: scaffold a benchmark plugin package."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "new-task", help="scaffold a benchmark plugin (task, dataset, tools, scorer, tests)",
        description="Write a plugin package NAME/ that registers benchmark NAME through the "
        "agentic_bench.plugins entry point and passes its own tests. Next: `pip install -e "
        "NAME`, `agentic-bench run NAME`. Tutorial: docs/adding-a-task.md.")
    p.add_argument("name", help="benchmark name, e.g. my-qa (lowercase, digits, hyphens)")
    p.add_argument("--dir", type=Path, default=Path("."), metavar="PARENT",
                   help="where to create NAME/ (default: the current directory)")
    p.add_argument("--package", metavar="PKG", help="import name (default: <name>_bench)")
    p.add_argument("--force", action="store_true", help="write into an existing directory")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from agentic_bench.scaffold import create
    from agentic_bench.tasks.registry import discover

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
