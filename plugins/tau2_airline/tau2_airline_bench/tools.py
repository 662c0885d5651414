"""The airline tools, ported from tau2 (``tau2/domains/airline/tools.py``, 26.3) onto a
copy-on-write :class:`~tau2_airline_bench.db.AirlineDB`.

Each method follows tau2's statement order (checks, then writes), so partial effects on error,
error messages and return values are tau2's; :func:`call_tool` formats results and errors the
way tau2's ``Environment.get_response`` does. Differences (documented in docs/tau2-airline.md):
entities are copied on their first write instead of deep-copying the database per task, and
``calculate`` evaluates arithmetic with an AST walker (same operators and rounding, exponents
bounded) instead of ``eval``. Equivalence with tau2's own code on every gold action is checked
by ``tests/test_equivalence.py``. Original: MIT, Copyright (c) 2025 Sierra Research.
"""

from __future__ import annotations

import ast
import json
import operator
from copy import deepcopy
from typing import Any

from pydantic import BaseModel

from tau2_airline_bench.db import AirlineDB
from tau2_airline_bench.models import (
    AirportCode,
    Certificate,
    DirectFlight,
    FlightDateStatusAvailable,
    FlightInfo,
    Passenger,
    Payment,
    Reservation,
    ReservationFlight,
    User,
)

READ_TOOLS = frozenset({"get_reservation_details", "get_user_details", "list_all_airports",
                        "search_direct_flight", "search_onestop_flight", "get_flight_status"})
WRITE_TOOLS = frozenset({"book_reservation", "cancel_reservation", "send_certificate",
                         "update_reservation_baggages", "update_reservation_flights",
                         "update_reservation_passengers"})
GENERIC_TOOLS = frozenset({"calculate", "transfer_to_human_agents"})
TOOL_NAMES = READ_TOOLS | WRITE_TOOLS | GENERIC_TOOLS
AIRPORTS = (("SFO", "San Francisco"), ("JFK", "New York"), ("LAX", "Los Angeles"),
            ("ORD", "Chicago"), ("DFW", "Dallas"), ("DEN", "Denver"), ("SEA", "Seattle"),
            ("ATL", "Atlanta"), ("MIA", "Miami"), ("BOS", "Boston"), ("PHX", "Phoenix"),
            ("IAH", "Houston"), ("LAS", "Las Vegas"), ("MCO", "Orlando"), ("EWR", "Newark"),
            ("CLT", "Charlotte"), ("MSP", "Minneapolis"), ("DTW", "Detroit"),
            ("PHL", "Philadelphia"), ("LGA", "LaGuardia"))
NOW = "2024-05-15T15:00:00"
MAX_EXPONENT = 10_000


class AirlineTools:
    """tau2's ``AirlineTools``: the same public methods, arguments and behaviour."""

    def __init__(self, db: AirlineDB) -> None:
        self.db = db

    # --- helpers (tau2's private methods) ---

    def _get_user(self, user_id: str, write: bool = False) -> User:
        if not self.db.has("users", user_id):
            raise ValueError(f"User {user_id} not found")
        return self.db.user(user_id, write)

    def _get_reservation(self, reservation_id: str, write: bool = False) -> Reservation:
        if not self.db.has("reservations", reservation_id):
            raise ValueError(f"Reservation {reservation_id} not found")
        return self.db.reservation(reservation_id, write)

    def _get_flight(self, flight_number: str, write: bool = False) -> Any:
        if not self.db.has("flights", flight_number):
            raise ValueError(f"Flight {flight_number} not found")
        return self.db.flight(flight_number, write)

    def _get_flight_instance(self, flight_number: str, date: str, write: bool = False) -> Any:
        flight = self._get_flight(flight_number, write)
        if date not in flight.dates:
            raise ValueError(f"Flight {flight_number} not found on date {date}")
        return flight.dates[date]

    def _get_new_reservation_id(self) -> str:
        for reservation_id in ["HATHAT", "HATHAU", "HATHAV"]:
            if not self.db.has("reservations", reservation_id):
                return reservation_id
        raise ValueError("Too many reservations")

    def _search_direct_flight(self, date: str, origin: str | None = None,
                              destination: str | None = None,
                              leave_after: str | None = None) -> list[DirectFlight]:
        results = []
        for flight in self.db.values("flights"):
            check = (
                (origin is None or flight.origin == origin)
                and (destination is None or flight.destination == destination)
                and (date in flight.dates)
                and (flight.dates[date].status == "available")
                and (leave_after is None or flight.scheduled_departure_time_est >= leave_after)
            )
            if check:
                results.append(DirectFlight(
                    flight_number=flight.flight_number, origin=flight.origin,
                    destination=flight.destination, status="available",
                    scheduled_departure_time_est=flight.scheduled_departure_time_est,
                    scheduled_arrival_time_est=flight.scheduled_arrival_time_est,
                    available_seats=flight.dates[date].available_seats,
                    prices=flight.dates[date].prices))
        return results

    def _payment_for_update(self, user: User, payment_id: str,
                            total_price: int) -> Payment | None:
        if payment_id not in user.payment_methods:
            raise ValueError("Payment method not found")
        payment_method = user.payment_methods[payment_id]
        if payment_method.source == "certificate":
            raise ValueError("Certificate cannot be used to update reservation")
        elif payment_method.source == "gift_card" and payment_method.amount < total_price:
            raise ValueError("Gift card balance is not enough")
        if payment_method.source == "gift_card":
            payment_method.amount -= total_price
        payment = None
        if total_price != 0:
            payment = Payment(payment_id=payment_id, amount=total_price)
        return payment

    # --- tools ---

    def book_reservation(self, user_id: str, origin: str, destination: str, flight_type: str,
                         cabin: str, flights: list[Any], passengers: list[Any],
                         payment_methods: list[Any], total_baggages: int,
                         nonfree_baggages: int, insurance: str) -> Reservation:
        if all(isinstance(flight, dict) for flight in flights):
            flights = [FlightInfo(**flight) for flight in flights]
        if all(isinstance(passenger, dict) for passenger in passengers):
            passengers = [Passenger(**passenger) for passenger in passengers]
        if all(isinstance(pm, dict) for pm in payment_methods):
            payment_methods = [Payment(**pm) for pm in payment_methods]
        user = self._get_user(user_id)
        reservation_id = self._get_new_reservation_id()
        reservation = Reservation(
            reservation_id=reservation_id, user_id=user_id, origin=origin,
            destination=destination, flight_type=flight_type, cabin=cabin, flights=[],
            passengers=deepcopy(passengers), payment_history=deepcopy(payment_methods),
            created_at=NOW, total_baggages=total_baggages, nonfree_baggages=nonfree_baggages,
            insurance=insurance)
        total_price = 0
        all_flights_date_data: list[tuple[str, str]] = []
        for flight_info in flights:
            flight_number = flight_info.flight_number
            flight = self._get_flight(flight_number)
            flight_date_data = self._get_flight_instance(flight_number, flight_info.date)
            if not isinstance(flight_date_data, FlightDateStatusAvailable):
                raise ValueError(
                    f"Flight {flight_number} not available on date {flight_info.date}")
            if flight_date_data.available_seats[cabin] < len(passengers):
                raise ValueError(f"Not enough seats on flight {flight_number}")
            price = flight_date_data.prices[cabin]
            reservation.flights.append(ReservationFlight(
                origin=flight.origin, destination=flight.destination,
                flight_number=flight_number, date=flight_info.date, price=price))
            all_flights_date_data.append((flight_number, flight_info.date))
            total_price += price * len(passengers)
        if insurance == "yes":
            total_price += 30 * len(passengers)
        total_price += 50 * nonfree_baggages
        for payment_method in payment_methods:
            payment_id = payment_method.payment_id
            amount = payment_method.amount
            if payment_id not in user.payment_methods:
                raise ValueError(f"Payment method {payment_id} not found")
            user_payment_method = user.payment_methods[payment_id]
            if (user_payment_method.source in {"gift_card", "certificate"}
                    and user_payment_method.amount < amount):
                raise ValueError(f"Not enough balance in payment method {payment_id}")
        total_payment = sum(payment.amount for payment in payment_methods)
        if total_payment != total_price:
            raise ValueError(f"Payment amount does not add up, total price is {total_price}, "
                             f"but paid {total_payment}")
        user = self._get_user(user_id, write=True)
        for payment_method in payment_methods:
            payment_id = payment_method.payment_id
            amount = payment_method.amount
            user_payment_method = user.payment_methods[payment_id]
            if user_payment_method.source == "gift_card":
                user_payment_method.amount -= amount
            elif user_payment_method.source == "certificate":
                user.payment_methods.pop(payment_id)
        # tau2 keeps the FlightDateStatus objects; the same instances, now session-owned:
        for flight_number, date in all_flights_date_data:
            self._get_flight_instance(flight_number, date, write=True) \
                .available_seats[cabin] -= len(passengers)
        self.db.put("reservations", reservation_id, reservation)
        user.reservations.append(reservation_id)
        return reservation

    def calculate(self, expression: str) -> str:
        if not all(char in "0123456789+-*/(). " for char in expression):
            raise ValueError("Invalid characters in expression")
        # eval() strips leading spaces and tabs before parsing
        tree = ast.parse(expression.lstrip(" \t"), filename="<string>", mode="eval")
        return str(round(float(_arith(tree.body)), 2))

    def cancel_reservation(self, reservation_id: str) -> Reservation:
        reservation = self._get_reservation(reservation_id, write=True)
        refunds = [Payment(payment_id=p.payment_id, amount=-p.amount)
                   for p in reservation.payment_history]
        reservation.payment_history.extend(refunds)
        reservation.status = "cancelled"
        return reservation  # tau2 does not release seats on cancellation either

    def get_reservation_details(self, reservation_id: str) -> Reservation:
        return self._get_reservation(reservation_id)

    def get_user_details(self, user_id: str) -> User:
        return self._get_user(user_id)

    def list_all_airports(self) -> list[AirportCode]:
        return [AirportCode(iata=iata, city=city) for iata, city in AIRPORTS]

    def search_direct_flight(self, origin: str, destination: str,
                             date: str) -> list[DirectFlight]:
        return self._search_direct_flight(date=date, origin=origin, destination=destination)

    def search_onestop_flight(self, origin: str, destination: str,
                              date: str) -> list[list[DirectFlight]]:
        results = []
        for result1 in self._search_direct_flight(date=date, origin=origin, destination=None):
            result1.date = date
            date2 = (f"2024-05-{int(date[-2:]) + 1}"
                     if "+1" in result1.scheduled_arrival_time_est else date)
            for result2 in self._search_direct_flight(
                    date=date2, origin=result1.destination, destination=destination,
                    leave_after=result1.scheduled_arrival_time_est):
                result2.date = date2
                results.append([result1, result2])
        return results

    def send_certificate(self, user_id: str, amount: int) -> str:
        user = self._get_user(user_id)
        for payment_id in [f"certificate_{i}" for i in (3221322, 3221323, 3221324)]:
            if payment_id not in user.payment_methods:
                user = self._get_user(user_id, write=True)
                user.payment_methods[payment_id] = Certificate(
                    id=payment_id, amount=amount, source="certificate")
                return f"Certificate {payment_id} added to user {user_id} with amount {amount}."
        raise ValueError("Too many certificates")

    def transfer_to_human_agents(self, summary: str) -> str:
        return "Transfer successful"

    def update_reservation_baggages(self, reservation_id: str, total_baggages: int,
                                    nonfree_baggages: int, payment_id: str) -> Reservation:
        reservation = self._get_reservation(reservation_id, write=True)
        user = self._get_user(reservation.user_id, write=True)
        total_price = 50 * max(0, nonfree_baggages - reservation.nonfree_baggages)
        payment = self._payment_for_update(user, payment_id, total_price)
        if payment is not None:
            reservation.payment_history.append(payment)
        reservation.total_baggages = total_baggages
        reservation.nonfree_baggages = nonfree_baggages
        return reservation

    def update_reservation_flights(self, reservation_id: str, cabin: str, flights: list[Any],
                                   payment_id: str) -> Reservation:
        if all(isinstance(flight, dict) for flight in flights):
            flights = [FlightInfo(**flight) for flight in flights]
        reservation = self._get_reservation(reservation_id, write=True)
        user = self._get_user(reservation.user_id, write=True)
        total_price = 0
        reservation_flights = []
        for flight_info in flights:
            matching = next((rf for rf in reservation.flights
                             if rf.flight_number == flight_info.flight_number
                             and rf.date == flight_info.date and cabin == reservation.cabin),
                            None)
            if matching:
                total_price += matching.price * len(reservation.passengers)
                reservation_flights.append(matching)
                continue
            flight = self._get_flight(flight_info.flight_number)
            flight_date_data = self._get_flight_instance(flight_info.flight_number,
                                                         flight_info.date)
            if not isinstance(flight_date_data, FlightDateStatusAvailable):
                raise ValueError(f"Flight {flight_info.flight_number} not available on date "
                                 f"{flight_info.date}")
            if flight_date_data.available_seats[cabin] < len(reservation.passengers):
                raise ValueError(f"Not enough seats on flight {flight_info.flight_number}")
            reservation_flight = ReservationFlight(
                flight_number=flight_info.flight_number, date=flight_info.date,
                price=flight_date_data.prices[cabin], origin=flight.origin,
                destination=flight.destination)
            total_price += reservation_flight.price * len(reservation.passengers)
            reservation_flights.append(reservation_flight)
        total_price -= sum(f.price for f in reservation.flights) * len(reservation.passengers)
        payment = self._payment_for_update(user, payment_id, total_price)
        if payment is not None:
            reservation.payment_history.append(payment)
        reservation.flights = reservation_flights
        reservation.cabin = cabin  # type: ignore[assignment]
        return reservation

    def update_reservation_passengers(self, reservation_id: str,
                                      passengers: list[Any]) -> Reservation:
        if all(isinstance(passenger, dict) for passenger in passengers):
            passengers = [Passenger(**passenger) for passenger in passengers]
        reservation = self._get_reservation(reservation_id, write=True)
        if len(passengers) != len(reservation.passengers):
            raise ValueError("Number of passengers does not match")
        reservation.passengers = deepcopy(passengers)
        return reservation

    def get_flight_status(self, flight_number: str, date: str) -> str:
        return self._get_flight_instance(flight_number, date).status


_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv}
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg}


def _arith(node: ast.AST) -> Any:
    """Arithmetic of ``calculate`` (what tau2's restricted ``eval`` accepts), no ``eval``."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_arith(node.operand))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        base, exp = _arith(node.left), _arith(node.right)
        if abs(exp) > MAX_EXPONENT:
            raise ValueError("Exponent too large")
        return base**exp
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return _BINOPS[type(node.op)](_arith(node.left), _arith(node.right))
    raise ValueError("Invalid expression")


def to_json_str(resp: Any) -> str:
    """tau2's ``Environment.to_json_str``: models dumped, numbers as strings, then JSON."""

    def process(value: Any) -> Any:
        if isinstance(value, BaseModel):
            return value.model_dump()
        if isinstance(value, str) or value is None:
            return value
        if isinstance(value, int | float | bool):
            return str(value)
        if isinstance(value, list):
            return [process(v) for v in value]
        if isinstance(value, tuple):
            return tuple(process(v) for v in value)
        if isinstance(value, dict):
            return {k: process(v) for k, v in value.items()}
        raise ValueError(f"Unsupported type: {type(value)}")

    if not isinstance(resp, str):
        return json.dumps(process(resp), default=str)
    return resp


def call_tool(tools: AirlineTools, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
    """Run one tool call as tau2's environment does: ``(content, error)``."""
    try:
        if name not in TOOL_NAMES:
            raise ValueError(f"Tool '{name}' not found.")
        resp = getattr(tools, name)(**arguments)
    except Exception as e:
        return to_json_str(f"Error: {e}"), True
    return to_json_str(resp), False
