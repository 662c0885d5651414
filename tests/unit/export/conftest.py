"""Real run folders for the exporters: the sample trace and the Weka corpus replayed on the
simulator (one simulator and one replay per folder kind for the whole session; each folder is
made the first time a test asks for it)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import Sim, run_cli, start_sim

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "traces" / "sample.jsonl"
WEKA = ROOT / "tests" / "data" / "weka" / "corpus.jsonl"

RUNS = {
    "single": [str(SAMPLE), "--think-time", "none"],
    "sweep": [str(SAMPLE), "--think-time", "none", "--sweep", "concurrency=1,2"],
    "agentx": [str(WEKA), "--tokenizer", "server", "--agentx", "--concurrency", "2",
               "--duration", "2", "--allow-dataset-wrap", "--gpus", "4"],
    "agentx-sweep": [str(WEKA), "--tokenizer", "server", "--agentx", "--duration", "1",
                     "--allow-dataset-wrap", "--gpus", "2", "--sweep", "concurrency=1,2"],
}


@pytest.fixture(scope="session")
def export_sim() -> Iterator[Sim]:
    sim = start_sim("--ttft-ms", "5", "--itl-ms", "0.5", "--output-tokens", "8")
    yield sim
    sim.stop()


@pytest.fixture(scope="session")
def run_folder(export_sim: Sim, tmp_path_factory: pytest.TempPathFactory
               ) -> Callable[[str], Path]:
    """``run_folder(kind)``: the folder of a finished replay of that kind (see RUNS)."""
    made: dict[str, Path] = {}

    def get(kind: str) -> Path:
        if kind not in made:
            out = tmp_path_factory.mktemp("runs") / kind
            res = run_cli("replay", *RUNS[kind], "--endpoint", export_sim.url, "--out",
                          str(out), "--quiet")
            # --agentx runs of a few seconds are INVALID under the 900-s rule: exit 3
            assert res.returncode in (0, 3), res.stderr
            made[kind] = out
        return made[kind]

    return get
