"""Equivalence fingerprints: this package's tools vs tau2's own code, on the same calls.

A fingerprint holds, for every airline task, the sha256 of each gold action's tool output
(exact text, as the model would see it), its error flag, and tau2's DB hash after the gold
actions; plus a set of probe call sequences that exercise error paths, the sha256 of the
tool schemas, and of each task's user scenario as tau2 renders it for its user simulator.
Only hashes are stored (no dataset text). ``scripts/make_reference.py`` builds the reference
with tau2's own code (an environment with tau2's dependencies); ``tests/test_equivalence.py``
compares this package's fingerprint with it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from typing import Any

from tau2_airline_bench.data import load_tasks

Call = tuple[str, dict[str, Any]]
Runner = Callable[[list[Call]], tuple[list[tuple[str, bool]], str]]

_PAYMENT_OFF = [{"payment_id": "credit_card_4421486", "amount": 1}]
PROBES: dict[str, list[Call]] = {
    "unknown_tool": [("fly_me_to_the_moon", {})],
    "missing_argument": [("get_user_details", {})],
    "extra_argument": [("get_user_details", {"user_id": "mia_li_3668", "x": 1})],
    "unknown_user": [("get_user_details", {"user_id": "nobody_0000"})],
    "unknown_reservation": [("cancel_reservation", {"reservation_id": "ZZZZZZ"})],
    "calculate": [("calculate", {"expression": e}) for e in
                  ("2 + 3 * 4", "10 / 4", "2 ** 10", "(1.5 + 2) * 3", "7 // 2", "-3 + 1",
                   "abc", "1 / 0", "1 +", "  2  ")],
    "airports_and_status": [("list_all_airports", {}),
                            ("get_flight_status", {"flight_number": "HAT001",
                                                   "date": "2024-05-15"}),
                            ("get_flight_status", {"flight_number": "HAT001",
                                                   "date": "1999-01-01"}),
                            ("get_flight_status", {"flight_number": "XXX999",
                                                   "date": "2024-05-15"})],
    "search": [("search_direct_flight", {"origin": "JFK", "destination": "SEA",
                                         "date": "2024-05-20"}),
               ("search_onestop_flight", {"origin": "JFK", "destination": "SEA",
                                          "date": "2024-05-20"}),
               ("search_onestop_flight", {"origin": "DTW", "destination": "SEA",
                                          "date": "2024-05-17"})],
    "certificates": [("send_certificate", {"user_id": "mia_li_3668", "amount": 100})] * 4,
    "bad_updates": [
        ("update_reservation_passengers", {"reservation_id": "4WQ150", "passengers": []}),
        ("update_reservation_baggages", {"reservation_id": "4WQ150", "total_baggages": 3,
                                         "nonfree_baggages": 3, "payment_id": "nope"}),
        ("update_reservation_flights", {"reservation_id": "4WQ150", "cabin": "first",
                                        "flights": [], "payment_id": "nope"}),
        ("update_reservation_flights", {"reservation_id": "4WQ150", "cabin": "economy",
                                        "flights": [{"flight_number": "HAT001"}],
                                        "payment_id": "nope"}),
    ],
    "bad_bookings": [
        ("book_reservation", {"user_id": "mia_li_3668", "origin": "JFK", "destination": "SEA",
                              "flight_type": "one_way", "cabin": "economy",
                              "flights": [{"flight_number": "HAT136", "date": "2024-05-20"}],
                              "passengers": [{"first_name": "Mia", "last_name": "Li",
                                              "dob": "1990-04-05"}],
                              "payment_methods": _PAYMENT_OFF, "total_baggages": 0,
                              "nonfree_baggages": 0, "insurance": "no"}),
        ("book_reservation", {"user_id": "mia_li_3668", "origin": "JFK", "destination": "SEA",
                              "flight_type": "one_way", "cabin": "first", "flights": [],
                              "passengers": [], "payment_methods": [], "total_baggages": 0,
                              "nonfree_baggages": 0, "insurance": "no"}),
        ("book_reservation", {"user_id": "mia_li_3668", "origin": "JFK", "destination": "SEA",
                              "flight_type": "one_way", "cabin": "economy", "flights": [],
                              "passengers": [], "payment_methods": [], "total_baggages": 0,
                              "nonfree_baggages": 0, "insurance": "no"}),
    ],
}


def _sha(text: str) -> str:
    # pydantic error texts carry its version in a URL; compare them without it
    return hashlib.sha256(re.sub(r"errors\.pydantic\.dev/[\d.]+/", "errors.pydantic.dev/",
                                 text).encode()).hexdigest()


def gold_calls(task: dict[str, Any]) -> list[Call]:
    actions = (task.get("evaluation_criteria") or {}).get("actions") or []
    return [(a["name"], dict(a.get("arguments") or {})) for a in actions]


def fingerprint(run: Runner, schemas: list[dict[str, Any]], initial_hash: str,
                scenario: Callable[[dict[str, Any]], str]) -> dict[str, Any]:
    def one(calls: list[Call]) -> dict[str, Any]:
        outputs, db_hash = run(calls)
        return {"outputs": [_sha(c) for c, _ in outputs], "errors": [e for _, e in outputs],
                "db_hash": db_hash}

    return {
        "initial_db_hash": initial_hash,
        "schemas_sha256": hashlib.sha256(json.dumps(schemas).encode()).hexdigest(),
        "tasks": {t["id"]: one(gold_calls(t)) for t in load_tasks()},
        "probes": {name: one(calls) for name, calls in PROBES.items()},
        "user_scenarios": {t["id"]: _sha(scenario(t)) for t in load_tasks()},
    }


def ours() -> dict[str, Any]:
    """This package's fingerprint."""
    from tau2_airline_bench.db import AirlineDB
    from tau2_airline_bench.schemas import tool_schemas
    from tau2_airline_bench.tools import AirlineTools, call_tool
    from tau2_airline_bench.user import scenario_text

    def run(calls: list[Call]) -> tuple[list[tuple[str, bool]], str]:
        db = AirlineDB()
        tools = AirlineTools(db)
        return [call_tool(tools, name, json.loads(json.dumps(args)))
                for name, args in calls], db.hash()

    return fingerprint(run, tool_schemas(), AirlineDB().hash(), scenario_text)


def tau2_own() -> dict[str, Any]:  # pragma: no cover - needs tau2's dependencies
    """tau2's fingerprint, from tau2's own environment code (see scripts/make_reference.py)."""
    from tau2.data_model.message import ToolCall
    from tau2.data_model.tasks import Task
    from tau2.domains.airline.environment import get_environment

    def run(calls: list[Call]) -> tuple[list[tuple[str, bool]], str]:
        env = get_environment()
        out = []
        for i, (name, args) in enumerate(calls):
            msg = env.get_response(ToolCall(id=str(i), name=name,
                                            arguments=json.loads(json.dumps(args))))
            out.append((msg.content, bool(msg.error)))
        return out, env.get_db_hash()

    env = get_environment()
    return fingerprint(run, [t.openai_schema for t in env.get_tools()], env.get_db_hash(),
                       lambda task: str(Task.model_validate(task).user_scenario))
