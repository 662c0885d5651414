"""Copy-on-write database views and tool behaviour not covered by the tau2 fingerprint."""

from __future__ import annotations

import pytest

from tau2_airline_bench.db import AirlineDB, base_db
from tau2_airline_bench.tools import AirlineTools, call_tool, to_json_str


def test_writes_never_touch_the_shared_database() -> None:
    before = AirlineDB().hash()
    db = AirlineDB()
    tools = AirlineTools(db)
    out, error = call_tool(tools, "cancel_reservation", {"reservation_id": "4WQ150"})
    assert not error and '"status": "cancelled"' in out
    assert base_db().tables["reservations"]["4WQ150"].status is None
    assert db.reservation("4WQ150").status == "cancelled"
    assert AirlineDB().hash() == before != db.hash()
    assert set(db.changed()["reservations"]) == {"4WQ150"}


def test_sessions_are_isolated() -> None:
    a, b = AirlineDB(), AirlineDB()
    call_tool(AirlineTools(a), "send_certificate", {"user_id": "mia_li_3668", "amount": 50})
    assert "certificate_3221322" in a.user("mia_li_3668").payment_methods
    assert "certificate_3221322" not in b.user("mia_li_3668").payment_methods


def test_iteration_keeps_tau2_order() -> None:
    db = AirlineDB()
    first = next(iter(base_db().tables["flights"]))
    db.edit("flights", first)
    assert next(db.values("flights")).flight_number == first
    assert sum(1 for _ in db.values("flights")) == len(base_db().tables["flights"])


def test_calculate_has_no_eval_and_bounded_powers() -> None:
    tools = AirlineTools(AirlineDB())
    assert call_tool(tools, "calculate", {"expression": "(100 + 50) * 2 / 3"}) == ("100.0",
                                                                                   False)
    out, error = call_tool(tools, "calculate", {"expression": "9 ** 9 ** 9"})
    assert error and "Exponent too large" in out
    out, error = call_tool(tools, "calculate", {"expression": "__import__('os')"})
    assert error and "Invalid characters" in out


@pytest.mark.parametrize("value,text", [("x", "x"), (3, '"3"'), ([1.5], '["1.5"]'),
                                        ({"a": None}, '{"a": null}')])
def test_to_json_str_is_tau2s(value: object, text: str) -> None:
    assert to_json_str(value) == text


def test_plugin_sources_never_eval() -> None:
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "tau2_airline_bench"
    calls = [(p.name, n.func.id) for p in root.glob("*.py")
             for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
             if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
             and n.func.id in {"eval", "exec", "compile", "__import__"}]
    assert not calls, calls
