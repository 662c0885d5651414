"""Run configuration files: a benchmark's options kept as YAML (or JSON), checked strictly.

A file is one mapping. Its keys are the options of ``agentic-bench run BENCHMARK`` — spelled as
on the command line without the dashes (``max-rounds``) or as Python names (``max_rounds``) —
plus an optional ``benchmark`` naming what it configures::

    benchmark: rag-e2e
    mlperf: true
    frames: data/frames_dataset.tsv
    corpus: doc_html/
    endpoint: http://big:8000/v1
    slo: [ttft_p99_ms=2000]

Each value is checked against the option it sets, before anything runs: a switch takes
``true``/``false``, a number option a number, an option with choices one of them, a repeatable
option a list (or one value); an unknown key is refused with the nearest option's name. Errors
say the file, the key's line and what was expected (exit status 2).

Precedence, lowest first: the option defaults, a preset the file or the command line asks for
(``--mlperf``), the file, the command line.
"""

from __future__ import annotations

import argparse
import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentic_bench.errors import ConfigError

META_KEYS = frozenset({"benchmark"})
_REFUSED = frozenset({"help", "config", "version"})


@dataclass(frozen=True)
class ConfigFile:
    """A parsed file: the benchmark it names (if any) and each key with its line."""

    path: Path
    benchmark: str | None
    entries: tuple[tuple[str, Any, int], ...]


def read_config(path: str | Path) -> ConfigFile:
    """Parse ``path`` (YAML or JSON) into a :class:`ConfigFile`; ConfigError on bad input."""
    import yaml

    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read the config file ({exc.strerror or exc})") \
            from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark is not None else str(source)
        raise ConfigError(f"{where}: not valid YAML/JSON ({getattr(exc, 'problem', exc)})") \
            from None
    if data is None:
        raise ConfigError(f"{source}: empty config file (expected a mapping of options)")
    if not isinstance(data, dict) or not isinstance(node, yaml.MappingNode):
        raise ConfigError(f"{source}:1: expected a mapping of option: value, "
                          f"got {type(data).__name__}")
    lines = {str(k.value): k.start_mark.line + 1 for k, _ in node.value}
    benchmark = data.get("benchmark")
    if benchmark is not None and not isinstance(benchmark, str):
        raise ConfigError(f"{source}:{lines.get('benchmark', 1)}: benchmark: expected a name")
    entries = tuple((str(k), v, lines.get(str(k), 1)) for k, v in data.items()
                    if str(k) not in META_KEYS)
    return ConfigFile(source, benchmark, entries)


def _options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """Every settable option by its spellings: ``max-rounds``, ``max_rounds``."""
    found: dict[str, argparse.Action] = {}
    for action in parser._actions:
        if not action.option_strings or action.dest in _REFUSED or \
                isinstance(action, argparse._HelpAction | argparse._VersionAction):
            continue
        for flag in action.option_strings:
            if flag.startswith("--"):
                found[flag[2:]] = action
        found[action.dest] = action
    return found


def _kind(action: argparse.Action) -> str:
    if isinstance(action, argparse._StoreTrueAction | argparse._StoreFalseAction):
        return "switch"
    if isinstance(action, argparse._AppendAction) or action.nargs in ("*", "+"):
        return "list"
    return "value"


def _convert(action: argparse.Action, value: Any, where: str) -> Any:
    """One scalar for ``action``, as argparse would have made it from the command line."""
    if isinstance(value, bool) or isinstance(value, dict | list) or value is None:
        raise ConfigError(f"{where}: expected {_expected(action)}, got {_shown(value)}")
    convert = action.type
    try:
        result = convert(str(value)) if callable(convert) else str(value)
    except (TypeError, ValueError, argparse.ArgumentTypeError, ConfigError) as exc:
        detail = "" if action.type in (int, float) else f" ({exc})"
        raise ConfigError(f"{where}: expected {_expected(action)}, got {_shown(value)}"
                          f"{detail}") from None
    if action.choices is not None and result not in action.choices:
        choices = ", ".join(str(c) for c in action.choices)
        raise ConfigError(f"{where}: expected one of {choices}, got {_shown(value)}")
    return result


def _expected(action: argparse.Action) -> str:
    known = {int: "an integer", float: "a number"}
    if action.type in known:
        return known[action.type]
    if action.choices is not None:
        return "one of " + ", ".join(str(c) for c in action.choices)
    return "a text value"


def _shown(value: Any) -> str:
    return repr(value) if not isinstance(value, bool) else str(value).lower()


def config_defaults(parser: argparse.ArgumentParser, config: ConfigFile) -> dict[str, Any]:
    """The file's options as parser defaults (``dest → value``), every key checked."""
    options = _options(parser)
    out: dict[str, Any] = {}
    for key, value, line in config.entries:
        where = f"{config.path}:{line}: {key}"
        action = options.get(key) or options.get(key.replace("-", "_"))
        if action is None:
            near = difflib.get_close_matches(key, [k for k in options if "_" not in k], n=1)
            hint = f" (did you mean '{near[0]}'?)" if near else ""
            raise ConfigError(f"{where}: not an option of this benchmark{hint}")
        kind = _kind(action)
        if kind == "switch":
            if not isinstance(value, bool):
                raise ConfigError(f"{where}: expected true or false, got {_shown(value)}")
            out[action.dest] = value if isinstance(action, argparse._StoreTrueAction) \
                else not value
        elif kind == "list":
            items = value if isinstance(value, list) else [value]
            out[action.dest] = [_convert(action, item, where) for item in items]
        else:
            out[action.dest] = _convert(action, value, where)
    return out


def check_benchmark(config: ConfigFile, benchmark: str | None) -> str:
    """The benchmark to run: the command line's, which must agree with the file's if both."""
    if benchmark and config.benchmark and benchmark != config.benchmark:
        raise ConfigError(f"{config.path}: benchmark: {config.benchmark}, but this is "
                          f"`run {benchmark}`")
    name = benchmark or config.benchmark
    if not name:
        raise ConfigError(f"{config.path}: no benchmark: add 'benchmark: NAME' to the file or "
                          "name it on the command line")
    return name
