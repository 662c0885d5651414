import sys

from agentic_bench.cli.main import main

sys.exit(main())
