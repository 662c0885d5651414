"""OpenAI tool schemas of the airline tools, built the way tau2 builds them.

tau2 derives each schema from the tool's signature and docstring (``pydantic.create_model``
over the parameters, descriptions from the docstring). The same parameters, types and texts
are listed here and go through ``create_model`` too, so the JSON is tau2's byte for byte
(checked against tau2's own output by ``tests/test_equivalence.py``).
"""

from __future__ import annotations

import functools
from typing import Any

from pydantic import Field, create_model

from tau2_airline_bench.models import (
    CabinClass,
    FlightInfo,
    FlightType,
    Insurance,
    Passenger,
    Payment,
)

_PAY = ("The payment id stored in user profile, such as 'credit_card_7815826', "
        "'gift_card_7815826', 'certificate_7815826'.")
_RES = "The reservation ID, such as 'ZFA04Y'."

# name -> (description, [(parameter, type, description)]), in tau2's tool order
TOOLS: dict[str, tuple[str, list[tuple[str, Any, str]]]] = {
    "book_reservation": ("Book a reservation.", [
        ("user_id", str, "The ID of the user to book the reservation such as 'sara_doe_496'`."),
        ("origin", str, "The IATA code for the origin city such as 'SFO'."),
        ("destination", str, "The IATA code for the destination city such as 'JFK'."),
        ("flight_type", FlightType, "The type of flight such as 'one_way' or 'round_trip'."),
        ("cabin", CabinClass,
         "The cabin class such as 'basic_economy', 'economy', or 'business'."),
        ("flights", list[FlightInfo | dict],
         "An array of objects containing details about each piece of flight."),
        ("passengers", list[Passenger | dict],
         "An array of objects containing details about each passenger."),
        ("payment_methods", list[Payment | dict],
         "An array of objects containing details about each payment method."),
        ("total_baggages", int, "The total number of baggage items to book the reservation."),
        ("nonfree_baggages", int,
         "The number of non-free baggage items to book the reservation."),
        ("insurance", Insurance, "Whether the reservation has insurance."),
    ]),
    "calculate": ("Calculate the result of a mathematical expression.", [
        ("expression", str, "The mathematical expression to calculate, such as '2 + 2'. The "
         "expression can contain numbers, operators (+, -, *, /), parentheses, and spaces."),
    ]),
    "cancel_reservation": ("Cancel the whole reservation.", [("reservation_id", str, _RES)]),
    "get_reservation_details": ("Get the details of a reservation.", [
        ("reservation_id", str, "The reservation ID, such as '8JX2WO'."),
    ]),
    "get_user_details": ("Get the details of a user, including their reservations.", [
        ("user_id", str, "The user ID, such as 'sara_doe_496'."),
    ]),
    "list_all_airports": ("Returns a list of all available airports.", []),
    "search_direct_flight": ("Search for direct flights between two cities on a specific date.", [
        ("origin", str, "The origin city airport in three letters, such as 'JFK'."),
        ("destination", str, "The destination city airport in three letters, such as 'LAX'."),
        ("date", str, "The date of the flight in the format 'YYYY-MM-DD', such as '2024-01-01'."),
    ]),
    "search_onestop_flight": (
        "Search for one-stop flights between two cities on a specific date.", [
            ("origin", str, "The origin city airport in three letters, such as 'JFK'."),
            ("destination", str,
             "The destination city airport in three letters, such as 'LAX'."),
            ("date", str,
             "The date of the flight in the format 'YYYY-MM-DD', such as '2024-05-01'."),
        ]),
    "send_certificate": ("Send a certificate to a user. Be careful!", [
        ("user_id", str,
         "The ID of the user to book the reservation, such as 'sara_doe_496'."),
        ("amount", int, "The amount of the certificate to send."),
    ]),
    "transfer_to_human_agents": (
        "Transfer the user to a human agent, with a summary of the user's issue.\n\n"
        "Only transfer if\n -  the user explicitly asks for a human agent\n -  given the "
        "policy and the available tools, you cannot solve the user's issue.", [
            ("summary", str, "A summary of the user's issue."),
        ]),
    "update_reservation_baggages": ("Update the baggage information of a reservation.", [
        ("reservation_id", str, "The reservation ID, such as 'ZFA04Y'"),
        ("total_baggages", int,
         "The updated total number of baggage items included in the reservation."),
        ("nonfree_baggages", int,
         "The updated number of non-free baggage items included in the reservation."),
        ("payment_id", str, _PAY),
    ]),
    "update_reservation_flights": ("Update the flight information of a reservation.", [
        ("reservation_id", str, _RES),
        ("cabin", CabinClass, "The cabin class of the reservation"),
        ("flights", list[FlightInfo | dict],
         "An array of objects containing details about each piece of flight in the ENTIRE new "
         "reservation. Even if the a flight segment is not changed, it should still be "
         "included in the array."),
        ("payment_id", str, _PAY),
    ]),
    "update_reservation_passengers": ("Update the passenger information of a reservation.", [
        ("reservation_id", str, _RES),
        ("passengers", list[Passenger | dict],
         "An array of objects containing details about each passenger."),
    ]),
    "get_flight_status": ("Get the status of a flight.", [
        ("flight_number", str, "The flight number."),
        ("date", str, "The date of the flight."),
    ]),
}


@functools.cache
def _full() -> tuple[dict[str, Any], ...]:
    out = []
    for name, (description, params) in TOOLS.items():
        fields: dict[str, Any] = {p: (t, Field(..., description=d)) for p, t, d in params}
        model = create_model("parameters", **fields)
        out.append({"type": "function", "function": {
            "name": name, "description": description,
            "parameters": model.model_json_schema()}})
    return tuple(out)


def _strip(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _strip(v) for k, v in node.items() if k not in ("title", "description")
                or not isinstance(v, str)}
    if isinstance(node, list):
        return [_strip(v) for v in node]
    return node


def tool_schemas(compact: bool = False) -> list[dict[str, Any]]:
    """The 14 tools as OpenAI ``tools``; ``compact`` drops parameter titles/descriptions."""
    tools = [dict(t) for t in _full()]
    if not compact:
        return tools
    return [{"type": "function", "function": {
        "name": t["function"]["name"], "description": t["function"]["description"],
        "parameters": _strip(t["function"]["parameters"])}} for t in tools]
