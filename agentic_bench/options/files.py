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

Each value is checked against the option it sets, before anything runs, by the options'
schema (:mod:`agentic_bench.options.parser`): a switch takes ``true``/``false``, a number option a
number, an option with choices one of them, a repeatable option a list (or one value); an unknown
key is refused with the nearest option's name. Errors say the file, the key's line and key path
and what was expected (exit status 2). This module reads the file and keeps each key's line.

Precedence, lowest first: the option defaults, a preset the file or the command line asks for
(``--mlperf``), the file, the command line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentic_bench.errors import ConfigError

META_KEYS = frozenset({"benchmark"})


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


# one-shot actions a saved configuration must not repeat (continuing or replacing that folder),
# and how the terminal shows it (a resume read from the file would otherwise turn quiet)
NOT_SAVED = frozenset({"out", "resume", "retry_errors", "overwrite", "quiet"})


def write_run_config(out: Path, benchmark: str, shown: dict[str, Any], *,
                     sweep_folder: bool = False) -> Path | None:
    """``out/config.yaml``: the run's validated options as a file that ``run --config`` (or
    ``replay --config`` for a replay) takes back — the run again, into a new folder. ``shown``
    is already redacted (URLs without credentials; API keys only by variable name). Nothing
    is written for a run configured without the options schema (``shown`` empty), nor for one
    point of a ``--sweep``/``--search``: the sweep writes its own into its folder
    (``sweep_folder``)."""
    import yaml

    if not shown or (not sweep_folder and (shown.get("sweep") or shown.get("search"))):
        return None
    kept = {k: v for k, v in shown.items() if v is not None and k not in NOT_SAVED}
    command = "replay" if benchmark == "replay" else "run"
    path = out / "config.yaml"
    head = (f"# the options of this run (URLs redacted): agentic-bench {command} --config {path}"
            f" runs it again; --resume {out} continues it")
    body = yaml.safe_dump({"benchmark": benchmark, **kept}, sort_keys=False)
    path.write_text(f"{head}\n{body}", encoding="utf-8")
    return path


# what a file's ``benchmark:`` names when it configures a command rather than a benchmark
COMMANDS = ("replay", "sim", "record", "serve", "rag build-index", "compare", "report",
            "validate", "import", "new-task", "traces stats", "traces convert", "traces build",
            "submission pack", "rag sample-layout")


def command_of(name: str) -> str:
    """The command line that ``benchmark: NAME`` configures: ``run NAME``, or the command."""
    return name if name in COMMANDS else f"run {name}"


def check_benchmark(config: ConfigFile, benchmark: str | None) -> str:
    """The benchmark to run: the command line's, which must agree with the file's if both."""
    if benchmark and config.benchmark and benchmark != config.benchmark:
        raise ConfigError(f"{config.path}: benchmark: {config.benchmark}, but this is "
                          f"`{command_of(benchmark)}`")
    name = benchmark or config.benchmark
    if not name:
        raise ConfigError(f"{config.path}: no benchmark: add 'benchmark: NAME' to the file or "
                          "name it on the command line")
    return name
