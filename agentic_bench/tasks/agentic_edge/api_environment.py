"""bfcl-eval's simulated APIs (file system, trading bot, travel booking, …) as a tool executor.

:class:`ApiEnvironment` instantiates the involved classes from
``bfcl_eval/eval_checker/multi_turn_eval/func_source_code/`` and loads the sample's initial
config, as BFCL's ``execute_multi_turn_func_call`` does, then dispatches calls to the public
methods of those instances only. Call text is parsed with ``ast`` (name + literal arguments via
``ast.literal_eval``); nothing is evaluated. Results are formatted like BFCL's (strings as is,
dicts as JSON, anything else ``str()``; failures as ``"Error during execution: ..."``).
"""

from __future__ import annotations

import ast
import copy
import inspect
import json
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from agentic_bench.errors import ConfigError
from agentic_bench.tasks.agentic_edge import bfcl_env

ERROR_PREFIX = "Error during execution: "


def parse_call(text: str) -> tuple[str, list[Any], dict[str, Any]]:
    """``"mv(source='a', destination='b')"`` → ``("mv", [], {...})``; ``ValueError`` if it is
    not a single call of a plain name with literal arguments."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise ValueError(f"not a function call: {exc}") from None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ValueError("expected a call of a plain function name, like f(a=1)")
    try:
        args = [ast.literal_eval(a) for a in node.args]
        kwargs: dict[str, Any] = {}
        for kw in node.keywords:
            if kw.arg is None:
                raise ValueError("**kwargs are not accepted")
            kwargs[kw.arg] = ast.literal_eval(kw.value)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError) as exc:
        raise ValueError(f"arguments must be literals: {exc}") from None
    return node.func.id, args, kwargs


def format_result(result: Any) -> str:
    """BFCL's formatting of a simulated call's return value."""
    if isinstance(result, str):
        return result
    if isinstance(result, dict):
        try:
            return json.dumps(result)
        except (TypeError, ValueError):
            return str(result)
    return str(result)


class ApiEnvironment:
    """Live instances of a sample's simulated API classes; state persists across calls."""

    def __init__(
        self,
        involved_classes: Sequence[str],
        initial_config: Mapping[str, Any] | None = None,
        *,
        long_context: bool = False,
    ) -> None:
        backend = bfcl_env.import_bfcl("constants.executable_backend_config")
        config = dict(initial_config or {})
        self._instances: dict[str, Any] = {}
        self._methods: dict[str, Any] = {}
        self._owner: dict[str, str] = {}
        for class_name in involved_classes:
            module_path = backend.CLASS_FILE_PATH_MAPPING.get(class_name)
            if module_path is None:
                raise ConfigError(f"BFCL has no simulated API class {class_name!r}")
            instance = getattr(bfcl_env.import_bfcl(module_path), class_name)()
            if class_name not in backend.STATELESS_CLASSES:
                scenario = copy.deepcopy(config.get(class_name, {}))
                instance._load_scenario(scenario, long_context=long_context)
            self._instances[class_name] = instance
            for name, method in inspect.getmembers(instance, predicate=inspect.ismethod):
                if not name.startswith("_"):  # later classes win, as in BFCL
                    self._methods[name] = method
                    self._owner[name] = class_name

    @classmethod
    def for_sample(cls, sample: Any) -> ApiEnvironment:
        """From a :class:`~agentic_bench.tasks.agentic_edge.multi_turn.MultiTurnSample`."""
        return cls(sample.involved_classes, sample.initial_config, long_context=sample.long_context)

    @property
    def instances(self) -> Mapping[str, Any]:
        return MappingProxyType(self._instances)

    @property
    def function_names(self) -> frozenset[str]:
        return frozenset(self._methods)

    def owner(self, name: str) -> str | None:
        """The class whose method ``name`` dispatches to."""
        return self._owner.get(name)

    def bind_arguments(
        self, name: str, args: Sequence[Any] = (), kwargs: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """Positional arguments mapped to parameter names (``sort('a')`` → ``{file_name: 'a'}``)."""
        method = self._methods.get(name)
        kwargs = dict(kwargs or {})
        if method is None or not args:
            return kwargs
        try:
            bound = inspect.signature(method).bind_partial(*args, **kwargs)
        except TypeError:
            return kwargs
        return dict(bound.arguments)

    def execute(
        self, name: str, kwargs: Mapping[str, Any] | None = None, args: Sequence[Any] = ()
    ) -> str:
        """Run one call; never raises — failures come back as BFCL-style error strings."""
        method = self._methods.get(name)
        if method is None:
            return f"{ERROR_PREFIX}function {name!r} is not available"
        try:
            return format_result(method(*args, **dict(kwargs or {})))
        except Exception as exc:  # simulated APIs raise freely on bad input
            return f"{ERROR_PREFIX}{exc}"

    def execute_call(self, call: str) -> str:
        """Parse ``call`` with ``ast`` and run it (see :func:`parse_call`)."""
        try:
            name, args, kwargs = parse_call(call)
        except ValueError as exc:
            return f"{ERROR_PREFIX}{exc}"
        return self.execute(name, kwargs, args)
