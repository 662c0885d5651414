"""A valid value of an option other than its default, as a config file holds it: shared by the
option-schema round trip (tests/unit/test_option_schema.py) and the MLPerf departure rule's
property test (tests/unit/test_mlperf_departure_rule.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentic_bench.options.schema import OptionSpec


def option_value(spec: OptionSpec) -> Any:
    """A valid value other than the default, as a YAML file would hold it."""
    if spec.example is not None:
        return list(spec.example) if isinstance(spec.example, tuple) else spec.example
    if spec.kind == "switch":
        return True
    if spec.choices is not None:
        return next(c for c in reversed(spec.choices) if c != spec.default)
    one = {int: 7, float: 2.5, Path: f"/tmp/ab/{spec.name}", str: f"v-{spec.name}"}
    if spec.kind == "list":
        second = {int: 8, float: 3.5, Path: f"/tmp/ab/{spec.name}-2", str: f"v-{spec.name}-2"}
        return [one[spec.scalar], second[spec.scalar]]
    value = one[spec.scalar]
    return value + 1 if value == spec.default else value
