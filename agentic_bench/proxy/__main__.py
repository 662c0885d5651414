"""``python -m agentic_bench.proxy ...`` = ``agentic-bench record ...`` (the same options model,
:class:`agentic_bench.options.serving.RecordOptions`; bad options exit 2 with the reason)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from agentic_bench.errors import UsageError
    from agentic_bench.options.parser import parse_options
    from agentic_bench.options.serving import RecordOptions
    from agentic_bench.proxy import ProxyConfig, run_proxy

    try:
        options = parse_options(RecordOptions, sys.argv[1:] if argv is None else argv,
                                prog="python -m agentic_bench.proxy",
                                description=RecordOptions.description, benchmark="record")
        return run_proxy(ProxyConfig.from_options(options))
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
