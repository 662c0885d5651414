"""Departures from an MLPerf configuration as a rule over the effective options (#43).

An MLPerf benchmark's configuration is its options model's defaults with the values its preset
sets on top (rag-e2e's ``--mlperf``, agentic-edge's own preset, e2e-rag-db's): :func:`expected`.
A run's *effective* options are the validated model instance — defaults < preset < file <
command line — so an option given in a file counts as much as one typed. Every field whose
effective value differs from the configuration's is a departure, except

- the fields the benchmark's hand-written checks judge (``judged``): those checks keep their
  texts and reference citations, and may accept more than one value (any path ending in
  ``e5-base-v2``, ``--temperature 0``, ...);
- the fields listed as free (``free``, each with the reason it cannot change the work).

Everything else — an option added later included — is named by :func:`rule_departures` with
its flag and both values, so no option can change an official run unnoticed; the property test
``tests/unit/test_mlperf_departure_rule.py`` sets every option of every model in turn.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from agentic_bench.options.schema import OptionsModel, OptionSpec, TextList, TextValue, specs
from agentic_bench.transport.url import redact_url

# Options of every run that cannot change the work an MLPerf run asks of the system under test:
# where its files go and what is printed, credentials, observation beside the run, and hints to
# routers that the model never reads.
COMMON_FREE: dict[str, str] = {
    "endpoint": "where the model is served: the system under test's address, not the work",
    "api_key_env": "the name of the variable holding the API key: credentials only",
    "api_key_header": "which HTTP header carries the API key: credentials only",
    "transport": "our HTTP client (raw or aiohttp): the same request bytes, timed another way",
    "session_header": "the session id in an HTTP header for routers (the Edge reference sends "
                      "X-Session-ID itself); the model never reads it",
    "session_user": "the session id in the body's OpenAI 'user' field, for routers; it asks "
                    "nothing of the model",
    "traceparent": "a W3C trace header, so the server's own traces join the run's",
    "otel_endpoint": "the run's spans exported after it ends (and a traceparent header)",
    "server_metrics": "the server's Prometheus endpoint scraped beside the run",
    "server_metrics_interval": "how often --server-metrics scrapes",
    "slo": "extra constraints on the verdict; MLPerf's own gates are applied unchanged",
    "out": "where the run's files are written",
    "quiet": "what is printed on stdout",
    "overwrite": "an earlier run in --out moved aside before this one writes",
    "grace": "read only after Ctrl-C, which leaves the run incomplete (not MLPerf's) anyway",
}


# What the rule adds to its text for options of every run (a benchmark adds its own).
COMMON_NOTES: dict[str, str] = {
    "max_errors": "issuing stops after N errors, where the reference issues every request",
    "resume": "a run continued in a second sitting, where MLPerf's is one run",
    "retry_errors": "failed requests asked again, where the reference counts them failed",
}


def plain(value: Any) -> Any:
    """``value`` as comparable data: paths and parsed text values as text, sequences as lists."""
    if isinstance(value, Path | TextValue):
        return str(value)
    if isinstance(value, TextList | tuple | list):
        return [plain(v) for v in value]
    return value


def expected(model: type[OptionsModel], preset: Mapping[str, Any]) -> dict[str, Any]:
    """The configuration as options: ``model``'s defaults with ``preset`` over them."""
    return {name: preset.get(name, spec.default) for name, spec in specs(model).items()}


def _shown(value: Any, spec: OptionSpec) -> str:
    value = plain(value)
    if value is None or value == []:
        return "not set"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, list):
        return ", ".join(redact_url(str(v)) if spec.redact else str(v) for v in value)
    text = f"{value:g}" if isinstance(value, float) else str(value)
    return redact_url(text) if spec.redact else text


def _text(spec: OptionSpec, have: Any, want: Any, note: str | None) -> str:
    given = spec.flag if spec.kind == "switch" else f"{spec.flag} {_shown(have, spec)}"
    if spec.kind == "switch" and not have:
        given = f"no {spec.flag}"
    return f"{given} (MLPerf configuration: {_shown(want, spec)}{'; ' + note if note else ''})"


def rule_departures(options: Any, model: type[OptionsModel], preset: Mapping[str, Any], *,
                    judged: Collection[str], free: Mapping[str, str],
                    notes: Mapping[str, str] | None = None) -> list[str]:
    """Every field of ``model`` neither ``judged`` nor ``free`` whose value in ``options``
    differs from the configuration (``preset`` over the defaults), in words. A field
    ``options`` lacks (a test's namespace) counts as the configuration's value."""
    notes = {**COMMON_NOTES, **(notes or {})}
    out: list[str] = []
    for name, want in expected(model, preset).items():
        if name in judged or name in free:
            continue
        have = getattr(options, name, want)
        if plain(have) != plain(want):
            out.append(_text(specs(model)[name], have, want, notes.get(name)))
    return out


def stale_entries(model: type[OptionsModel], judged: Collection[str],
                  free: Mapping[str, str]) -> list[str]:
    """Names in the tables that are no field of ``model``, and fields listed in both."""
    fields = specs(model)
    return sorted({n for n in [*judged, *free] if n not in fields} | (set(judged) & set(free)))


__all__ = ["COMMON_FREE", "COMMON_NOTES", "expected", "plain", "rule_departures",
           "stale_entries"]
