"""Command lines and configuration files into one validated, frozen options model.

The parser is generated from the model (:mod:`agentic_bench.options.schema`): each field a flag
with its help, metavar, choices and group. Its defaults are suppressed, so the parsed namespace
holds only what the command line said; values are then merged, lowest first, from the model's
defaults, a preset the options ask for (rag-e2e's ``--mlperf``), a configuration file and the
command line, and validated once, strictly. A bad value is reported where it came from: the
file, the key's line and key path (``slo[1]``), or the flag.
"""

from __future__ import annotations

import argparse
import difflib
import json
import textwrap
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from agentic_bench.errors import ConfigError
from agentic_bench.options.files import ConfigFile, check_benchmark, read_config
from agentic_bench.options.schema import OptionsModel, OptionSpec, specs

M = TypeVar("M", bound=OptionsModel)
Preset = Callable[[Any], Mapping[str, Any]]


class _Parser(argparse.ArgumentParser):
    """Errors in two lines — what is wrong (an unknown option with the nearest known one) and
    where help is — not the whole usage with the error last."""

    def error(self, message: str) -> Any:  # argparse's signature (NoReturn)
        if message.startswith("unrecognized arguments: "):
            unknown = message.removeprefix("unrecognized arguments: ").split()
            flags = [o for a in self._actions for o in a.option_strings]
            first = next((u for u in unknown if u.startswith("-")), unknown[0])
            near = difflib.get_close_matches(first.split("=", 1)[0], flags, n=1)
            hint = f" (did you mean {near[0]}?)" if near else ""
            message = f"unknown option {first}{hint}" if first.startswith("-") else \
                f"unexpected argument {first!r}"
        self.exit(2, f"{self.prog}: error: {message}\nsee `{self.prog} --help`\n")


def build_parser(model: type[OptionsModel], *, prog: str, description: str | None = None,
                 epilog: str | None = None, config_flag: bool = True) -> argparse.ArgumentParser:
    """An argparse parser for ``model``: the most specific options first (a benchmark's own,
    then the common ones), each in its ``--help`` group."""
    text = "\n\n".join(textwrap.fill(p, 79) for p in (description or "").split("\n\n"))
    parser = _Parser(prog=prog, description=text or None, epilog=epilog,
                     formatter_class=argparse.RawDescriptionHelpFormatter,
                     argument_default=argparse.SUPPRESS)
    found = specs(model)
    groups: dict[str, Any] = {}
    for name in found:
        spec = found[name]
        group = groups.get(spec.group) or groups.setdefault(
            spec.group, parser.add_argument_group(spec.group))
        _add(group, spec)
    if config_flag:
        parser.add_argument_group("configuration file").add_argument(
            "--config", metavar="FILE", help="options from a YAML or JSON file (keys: these "
            "options without their dashes, e.g. 'concurrency: 4'; `agentic-bench config check "
            "FILE` validates one); the command line wins over the file, the file over a preset")
    return parser


def _add(group: Any, spec: OptionSpec) -> None:
    help_text = spec.help.replace("%", "%%")
    if spec.kind == "switch":
        group.add_argument(spec.flag, action="store_true", help=help_text, dest=spec.name)
        return
    kwargs: dict[str, Any] = {"help": help_text, "metavar": spec.metavar}
    if spec.choices is not None:
        kwargs["choices"] = spec.choices
        if spec.metavar is None:  # argparse shows the choices
            del kwargs["metavar"]
    if spec.scalar in (int, float, Path):
        kwargs["type"] = spec.scalar
    if spec.kind == "list" and not spec.positional:
        kwargs["action"] = "append"
    if spec.positional:  # a default, not SUPPRESS: argparse would convert that string
        # a list takes every word left (none: the model says what is missing)
        group.add_argument(spec.flag, nargs="*" if spec.kind == "list" else "?", default=None,
                           **kwargs)
    else:
        group.add_argument(spec.flag, dest=spec.name, **kwargs)


def parse_options(model: type[M], argv: Sequence[str], *, prog: str,
                  description: str | None = None, preset: Preset | None = None,
                  benchmark: str | None = None, epilog: str | None = None,
                  combinations: bool = True) -> M:
    """``argv`` (which may name ``--config FILE``) as a validated ``model``;
    ``combinations=False``: each option checked alone, not the rules between them."""
    parser = build_parser(model, prog=prog, description=description, epilog=epilog)
    namespace = parser.parse_args(list(argv))
    explicit = {k: v for k, v in vars(namespace).items()  # ([]: a positional list not given)
                if k in model.model_fields and v is not None and v != []}
    config = None
    if getattr(namespace, "config", None):
        config = read_config(namespace.config)
        if benchmark is not None:
            check_benchmark(config, benchmark)
    return resolve(model, explicit, config, preset, combinations)


def resolve(model: type[M], explicit: Mapping[str, Any], config: ConfigFile | None = None,
            preset: Preset | None = None, combinations: bool = True) -> M:
    """Defaults < preset < file < ``explicit`` (the command line's values), validated."""
    from_file: dict[str, Any] = {}
    lines: dict[str, tuple[int, str]] = {}
    if config is not None:
        from_file, lines = file_values(model, config)
    merged = {**from_file, **explicit}
    file_lines = {k: v for k, v in lines.items() if k not in explicit}  # where a value came from
    if preset is None:
        return _validate(model, merged, config, file_lines, combinations)
    # the preset reads the options it completes: the rules between options wait for it
    options = _validate(model, merged, config, file_lines, combinations=False)
    extra = {k: v for k, v in preset(options).items() if k not in merged}
    if not extra:  # nothing completed: these options stand, validated once; now the rules
        return options.check_combinations() if combinations else options
    return _validate(model, {**extra, **merged}, config, file_lines, combinations)


def file_values(model: type[OptionsModel], config: ConfigFile
                ) -> tuple[dict[str, Any], dict[str, tuple[int, str]]]:
    """The file's keys as fields (``max-rounds`` or ``max_rounds``), unknown keys refused with
    the nearest option; one value for a list option becomes a list of one. Also each field's
    line and key as written."""
    found = specs(model)
    by_key = {**{s.flag.lstrip("-"): s for s in found.values()}, **found}
    values: dict[str, Any] = {}
    lines: dict[str, tuple[int, str]] = {}
    for key, value, line in config.entries:
        spec = by_key.get(key) or by_key.get(key.replace("-", "_"))
        if spec is None:
            near = difflib.get_close_matches(
                key, [s.flag.lstrip("-") for s in found.values()], n=1)
            hint = f" (did you mean '{near[0]}'?)" if near else ""
            raise ConfigError(f"{config.path}:{line}: {key}: not an option of this "
                              f"benchmark{hint}")
        if spec.name in lines:
            raise ConfigError(f"{config.path}:{line}: {key}: given twice (line "
                              f"{lines[spec.name][0]} sets {lines[spec.name][1]})")
        if spec.kind == "list" and not isinstance(value, list):
            value = [value]
        values[spec.name] = value
        lines[spec.name] = (line, key)
    return values, lines


def _validate(model: type[M], data: dict[str, Any], config: ConfigFile | None,
              lines: dict[str, tuple[int, str]], combinations: bool = True) -> M:
    """``data`` validated as JSON (strictly: no ``"3"`` for a number; paths become text and
    tuples lists on the way, as in a file); ``lines``: the file's
    line and key of each value the file gave (the others came from the command line).
    ``combinations=False``: each option alone (the model's rules between options wait)."""
    try:
        return model.model_validate_json(json.dumps(data, default=str),
                                         context={"combinations": combinations})
    except ValidationError as exc:
        raise ConfigError(_explain(model, exc, config, lines)) from None


def _explain(model: type[OptionsModel], exc: ValidationError, config: ConfigFile | None,
             lines: dict[str, tuple[int, str]]) -> str:
    """The first error, said where its value came from."""
    error = exc.errors()[0]
    loc = error["loc"]
    name = str(loc[0]) if loc else ""
    spec = specs(model).get(name)
    index = "".join(f"[{i}]" for i in loc[1:])
    if spec is None:
        return f"{name}: {error['msg']}"
    if error["type"] == "missing":
        return f"{spec.flag}: required ({spec.expected()})"
    shown = _shown(error.get("input"))
    if error["type"] in ("value_error", "assertion_error"):
        what = str(error["msg"]).removeprefix("Value error, ").removeprefix("Assertion failed, ")
    else:
        what = f"expected {spec.expected()}, got {shown}"
    if name in lines and config is not None:
        line, key = lines[name]
        return f"{config.path}:{line}: {key}{index}: {what}"
    return f"{spec.flag}{index}: {what}"


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return repr(value)


__all__ = ["Preset", "build_parser", "file_values", "parse_options", "resolve"]
