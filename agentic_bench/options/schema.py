"""Run options as declarations: one strict pydantic model per option set, everything else derived.

A benchmark's options (and the options every run shares, :mod:`agentic_bench.options.common`) are a
:class:`OptionsModel` whose fields are declared with :func:`option`::

    class MyOptions(OptionsModel):
        option_group: ClassVar[str] = "my-benchmark"
        quick: bool = option(False, help="two questions only")
        max_steps: int = option(4, metavar="N", help="LLM calls per user turn (4)")

From the model come the command-line flags and ``--help`` (:mod:`agentic_bench.options.parser`),
the checking of a configuration file (file, line, key path and what was expected), ``config
show``, the worker recipe (the options as JSON), the ``options`` of the ``run`` record (URLs
redacted, API keys only by the name of their variable) and the resume identity (the options
declared ``identity=True``). A validated model is frozen: nothing changes it afterwards.

How a field's type becomes a flag: ``bool`` is a switch (default False), ``int``/``float``/
``str``/``Path`` (optionally ``| None``) take one value, ``Literal[...]`` one of its choices,
``tuple[str, ...]`` is repeatable (a list in a file). ``positional=True`` makes the field an
argument without dashes (``replay TRACE``). A value with a syntax of its own (``--think-time
scaled:0.5``, ``--sweep concurrency=1,4``) is a :class:`TextValue` — parsed once, when the options
are validated, and held parsed; a repeatable one (``--slo``) a :class:`TextList`. Either is
written back as the text it was given wherever the options are shown or stored.
"""

from __future__ import annotations

import functools
import inspect
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic_core import core_schema

from agentic_bench.errors import ConfigError
from agentic_bench.transport.url import redact_url

M = TypeVar("M", bound="OptionsModel")


class TextValue:
    """An option value with a syntax of its own: ``parse(text)`` once, at validation (a
    :class:`~agentic_bench.errors.ConfigError` there is the option's error), ``str(value)`` the
    text again (records, ``config show``, worker recipes, the command line that reruns it)."""

    @classmethod
    def parse(cls, text: str) -> Self:
        raise NotImplementedError

    @classmethod
    def _validated(cls, value: Any) -> Self:
        if isinstance(value, cls):
            return value
        if not isinstance(value, str):
            raise ValueError(f"expected text, got {value!r}")
        try:
            return cls.parse(value)
        except ConfigError as exc:
            raise ValueError(str(exc)) from None

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any,
                                     handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.json_or_python_schema(  # JSON (files, the command line): text
            json_schema=core_schema.no_info_after_validator_function(
                cls._validated, core_schema.str_schema()),
            python_schema=core_schema.no_info_plain_validator_function(cls._validated),
            serialization=core_schema.to_string_ser_schema())

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: core_schema.CoreSchema,
                                     handler: GetJsonSchemaHandler) -> dict[str, Any]:
        return {"type": "string"}


class TextList:
    """A repeatable option value with a syntax (``--slo A=1 --slo B=2,C=3``): ``parse(texts)``
    once, at validation; iterating it gives the texts as given, which is how it is stored."""

    texts: tuple[str, ...]

    @classmethod
    def parse(cls, texts: tuple[str, ...]) -> Self:
        raise NotImplementedError

    def __iter__(self) -> typing.Iterator[str]:
        return iter(self.texts)

    def __len__(self) -> int:
        return len(self.texts)

    @classmethod
    def _validated(cls, value: Any) -> Self:
        if isinstance(value, cls):
            return value
        if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
            raise ValueError(f"expected a list of text values, got {value!r}")
        try:
            return cls.parse(tuple(value))
        except ConfigError as exc:
            raise ValueError(str(exc)) from None

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any,
                                     handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.json_or_python_schema(  # JSON: a list of texts, each checked
            json_schema=core_schema.no_info_after_validator_function(
                cls._validated, core_schema.list_schema(core_schema.str_schema())),
            python_schema=core_schema.no_info_plain_validator_function(cls._validated),
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda value: list(value.texts)))

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: core_schema.CoreSchema,
                                     handler: GetJsonSchemaHandler) -> dict[str, Any]:
        return {"type": "array", "items": {"type": "string"}}


class OptionsModel(BaseModel):
    """Base of every option set: strict types, unknown keys refused, frozen once validated."""

    model_config = ConfigDict(strict=True, frozen=True, extra="forbid")
    # the --help group of fields that name none, and whether they identify a run for --resume
    option_group: ClassVar[str] = "options"
    identity_default: ClassVar[bool] = True

    def check_combinations(self) -> Self:
        """The rules between this model's options (none here; the run options have some)."""
        return self


def option(default: Any = None, *, help: str, metavar: str | None = None,
           group: str | None = None, identity: bool | None = None, redact: bool = False,
           positional: bool = False, example: Any = None, flag: str | None = None) -> Any:
    """Declare one option: its default, ``--help`` text and how it is shown and compared.

    ``redact``: a URL whose credentials are hidden wherever the options are shown or stored.
    ``identity``: whether ``--resume`` refuses a run continued with another value (default: the
    model's ``identity_default``). ``example``: a valid non-default value (for options whose
    text must follow a syntax; the round-trip tests use it). ``flag``: the command-line flag
    when it cannot be the field's name (``--json`` for a field ``json_report``: ``json`` is a
    pydantic method); a file takes either as its key."""
    extra: dict[str, Any] = {"metavar": metavar, "group": group, "identity": identity,
                             "redact": redact or None, "positional": positional or None,
                             "example": example, "flag": flag}
    return Field(default, description=help,
                 json_schema_extra={k: v for k, v in extra.items() if v is not None})


Kind = Literal["switch", "value", "list"]


@dataclass(frozen=True)
class OptionSpec:
    """What a declared field means on the command line and in a file."""

    name: str  # the field (argparse dest, key in files and records)
    flag: str  # --max-steps, or the bare name of a positional argument
    kind: Kind
    scalar: type  # int, float, str or Path (bool for a switch)
    choices: tuple[Any, ...] | None
    default: Any
    help: str
    metavar: str | None
    group: str
    identity: bool
    redact: bool
    positional: bool
    example: Any

    def expected(self) -> str:
        if self.kind == "switch":
            return "true or false"
        if self.choices is not None:
            return "one of " + ", ".join(str(c) for c in self.choices)
        one = {int: "an integer", float: "a number", Path: "a path"}.get(self.scalar,
                                                                         "a text value")
        return f"a list of {one.split(' ', 1)[1]}s (or one)" if self.kind == "list" else one


def _unwrap(annotation: Any) -> Any:
    """``X | None`` → X; anything else → itself."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


@functools.cache
def specs(model: type[OptionsModel]) -> dict[str, OptionSpec]:
    """Every field of ``model`` as an :class:`OptionSpec`: the most derived class's first (a
    benchmark's own options before the common ones), each class's in declaration order."""
    out: dict[str, OptionSpec] = {}
    for name in _most_specific_first(model):
        info = model.model_fields[name]
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        annotation = _unwrap(info.annotation)
        choices: tuple[Any, ...] | None = None
        kind: Kind = "value"
        scalar: type
        if annotation is bool:
            kind, scalar = "switch", bool
            if info.default is not False:
                raise TypeError(f"{model.__name__}.{name}: a switch defaults to False")
        elif typing.get_origin(annotation) is tuple:
            kind, scalar = "list", typing.get_args(annotation)[0]
        elif typing.get_origin(annotation) is Literal:
            choices = typing.get_args(annotation)
            scalar = type(choices[0])
        elif annotation in (int, float, str, Path):
            scalar = annotation
        elif isinstance(annotation, type) and issubclass(annotation, TextValue):
            scalar = str
        elif isinstance(annotation, type) and issubclass(annotation, TextList):
            kind, scalar = "list", str
        else:
            raise TypeError(f"{model.__name__}.{name}: {annotation!r} is not an option type")
        positional = bool(extra.get("positional"))
        identity = extra.get("identity")
        owner = _declared_in(model, name)
        out[name] = OptionSpec(
            name=name, kind=kind,
            flag=name if positional else str(extra.get("flag") or "--" + name.replace("_", "-")),
            scalar=scalar, choices=choices, default=info.default, help=info.description or "",
            metavar=typing.cast("str | None", extra.get("metavar")),
            group=str(extra.get("group") or owner.option_group),
            identity=owner.identity_default if identity is None else bool(identity),
            redact=bool(extra.get("redact")), positional=positional,
            example=extra.get("example"))
    return out


def _most_specific_first(model: type[OptionsModel]) -> list[str]:
    """The fields, those of the most derived class first (a benchmark's own options, then the
    common ones), each class's in declaration order."""
    owners = {name: _declared_in(model, name) for name in model.model_fields}
    return [name for cls in model.__mro__ for name in owners if owners[name] is cls]


def _declared_in(model: type[OptionsModel], name: str) -> type[OptionsModel]:
    """The class in ``model``'s ancestry that first declares ``name`` (its ``option_group``
    and ``identity_default`` apply to the field)."""
    for cls in reversed(model.__mro__):
        if isinstance(cls, type) and issubclass(cls, OptionsModel) and \
                name in inspect.get_annotations(cls):
            return cls
    return model


def checked(check: Any, value: Any) -> Any:
    """``check(value)``, its :class:`~agentic_bench.errors.ConfigError` turned into the
    ``ValueError`` pydantic reports as the option's error (for field validators)."""
    try:
        return check(value)
    except ConfigError as exc:
        raise ValueError(str(exc)) from None


def public_options(options: OptionsModel, *, exclude_none: bool = False) -> dict[str, Any]:
    """The options as plain JSON data, for records and ``config show``: paths as text, tuples
    as lists, URLs declared ``redact`` with their credentials hidden."""
    out: dict[str, Any] = {}
    found = specs(type(options))
    dumped = options.model_dump(mode="json")
    for name in found:
        value = dumped[name]
        if value is None and exclude_none:
            continue
        if found[name].redact and isinstance(value, str):
            value = redact_url(value)
        elif found[name].redact and isinstance(value, list):
            value = [redact_url(v) if isinstance(v, str) else v for v in value]
        out[name] = value
    return out


def identity(options: OptionsModel) -> dict[str, Any]:
    """The part of the options that identifies a run (``--resume`` compares it)."""
    found = specs(type(options))
    return {k: v for k, v in public_options(options).items() if found[k].identity}


def json_schema(model: type[OptionsModel], benchmark: str) -> dict[str, Any]:
    """The JSON Schema of a configuration file for ``model``: each option under both of its
    spellings (``max_rounds``, ``max-rounds``), ``benchmark`` fixed to ``benchmark``, nothing
    else allowed."""
    schema = model.model_json_schema()
    properties: dict[str, Any] = {"benchmark": {"const": benchmark,
                                                "description": "what this file configures"}}
    for name, spec in specs(model).items():
        entry = schema["properties"][name]
        if spec.kind == "list":  # a file may give one value for a list option
            entry = {**entry, "anyOf": [{"type": "array", "items": entry.get("items", {})},
                                        entry.get("items", {})]}
            entry.pop("type", None)
            entry.pop("items", None)
        properties[name] = entry
        dashed = spec.flag.lstrip("-")
        if dashed != name:
            properties[dashed] = {"$ref": f"#/properties/{name}"}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": f"agentic-bench {benchmark} configuration", "type": "object",
            "properties": properties, "additionalProperties": False,
            **({"$defs": schema["$defs"]} if "$defs" in schema else {})}


def to_argv(options: OptionsModel, *, skip: typing.Collection[str] = (),
            redacted: bool = False) -> list[str]:
    """The command line that gives back ``options`` (values that differ from the defaults;
    none of the fields in ``skip``; ``redacted``: URLs as :func:`public_options` shows them)."""
    shown = public_options(options) if redacted else None
    argv: list[str] = []
    for name, spec in specs(type(options)).items():
        value = getattr(options, name)
        if name in skip or value == spec.default:
            continue
        if shown is not None:
            value = shown[name]
        if spec.kind == "switch":
            argv.append(spec.flag)
        elif spec.positional:
            argv += [str(item) for item in value] if spec.kind == "list" else [str(value)]
        elif spec.kind == "list":
            for item in value:
                argv += [spec.flag, str(item)]
        else:
            argv += [spec.flag, str(value)]
    return argv


def command_line(prefix: list[str], options: OptionsModel) -> str:
    """The shell command that runs ``options`` again into a new folder (``prefix``:
    ``agentic-bench run NAME`` or ``agentic-bench replay``): the flags that differ from the
    defaults, URLs redacted, without the one-shot ``--out``/``--resume``/``--overwrite``/
    ``--retry-errors`` (as a saved config.yaml)."""
    import shlex

    from agentic_bench.options.files import NOT_SAVED

    return shlex.join([*prefix, *to_argv(options, skip=NOT_SAVED, redacted=True)])


def recipe_data(options: OptionsModel) -> dict[str, Any]:
    """The options as JSON data a worker process validates again (nothing redacted)."""
    dumped = options.model_dump(mode="json")
    return {name: dumped[name] for name in specs(type(options))}


def from_recipe(model: type[M], data: dict[str, Any]) -> M:
    import json

    return model.model_validate_json(json.dumps(data))


__all__ = ["OptionSpec", "OptionsModel", "TextList", "TextValue", "checked", "command_line",
           "from_recipe", "identity", "json_schema", "option", "public_options", "recipe_data",
           "specs", "to_argv"]
