"""Run configuration files (#23 item 3): strict checking with file, line and expectation; the
precedence defaults < preset < file < command line; `config show` round-trips; every shipped
example in configs/ validates."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
import yaml

from agentic_bench.cli.config_cmd import effective_options
from agentic_bench.cli.run_cmd import parse_task_args
from agentic_bench.errors import ConfigError
from agentic_bench.options.files import check_benchmark, read_config
from agentic_bench.tasks.registry import load_task

CONFIGS = sorted((Path(__file__).parents[2] / "configs").glob("*.yaml"))


def _file(tmp_path: Path, text: str, name: str = "run.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _parse(path: Path, *argv: str, benchmark: str = "rag-e2e") -> argparse.Namespace:
    return parse_task_args(load_task(benchmark), ["--config", str(path), *argv])


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_every_shipped_example_validates(path: Path) -> None:
    from agentic_bench.cli.config_cmd import parse_for

    config = read_config(path)
    name = check_benchmark(config, None)
    parsed = parse_for(name, ["--config", str(path)])
    assert parsed.out is not None  # each example names its output folder


def test_there_are_examples_for_both_flagships() -> None:
    names = {read_config(p).benchmark for p in CONFIGS}
    assert {"agentic-edge", "rag-e2e", "replay"} <= names and len(CONFIGS) >= 5


def test_values_are_converted_as_the_command_line_would(tmp_path: Path) -> None:
    path = _file(tmp_path, "benchmark: rag-e2e\nquick: true\nquestions: 5\nmax_rounds: 2\n"
                           "cache-dir: /tmp/c\nslo: ttft_p99_ms=100\nflow: single-shot\n")
    parsed = _parse(path)
    assert parsed.quick is True and parsed.questions == 5 and parsed.max_rounds == 2
    assert parsed.cache_dir == Path("/tmp/c") and tuple(parsed.slo) == ("ttft_p99_ms=100",)
    assert parsed.slos == {"ttft_p99_ms": 100.0}  # parsed once, held parsed
    assert parsed.flow == "single-shot"


def test_precedence_defaults_preset_file_command_line(tmp_path: Path) -> None:
    path = _file(tmp_path, "mlperf: true\nmax-rounds: 2\n")
    parsed = _parse(path)
    assert parsed.max_rounds == 2  # the file beats the preset
    assert parsed.sampling == "mlperf" and parsed.accuracy_metric == "judge"  # the preset
    assert _parse(path, "--max-rounds", "4").max_rounds == 4  # the command line beats the file
    assert _parse(path, "--sampling", "ours").sampling == "ours"


@pytest.mark.parametrize(("text", "message"), [
    ("quik: true\n", r"run.yaml:1: quik: not an option of this benchmark \(did you mean 'quick'"),
    ("quick: true\nquestions: ten\n", r"run.yaml:2: questions: expected an integer, got 'ten'"),
    ("questions: true\n", r"run.yaml:1: questions: expected an integer, got true"),
    ("flow: sideways\n", r"run.yaml:1: flow: expected one of multi-hop, single-shot"),
    ("quick: yes please\n", r"run.yaml:1: quick: expected true or false"),
    ("- quick\n", r"run.yaml:1: expected a mapping"),
    ("quick: [true\n", r"run.yaml:2: not valid YAML"),
    ("", r"empty config file"),
    ("help: true\n", r"help: not an option"),
    ("benchmark: agentic-edge\nquick: true\n", r"benchmark: agentic-edge, but this is "
                                               r"`run rag-e2e`"),
])
def test_bad_files_name_file_line_and_expectation(tmp_path: Path, text: str,
                                                  message: str) -> None:
    path = _file(tmp_path, text)
    with pytest.raises(ConfigError, match=message):
        check_benchmark(read_config(path), "rag-e2e")
        _parse(path)


def test_a_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        read_config(tmp_path / "nope.yaml")
    with pytest.raises(ConfigError, match="no benchmark"):
        check_benchmark(read_config(_file(tmp_path, "quick: true\n")), None)


def test_show_round_trips_and_redacts(tmp_path: Path) -> None:
    path = _file(tmp_path, "benchmark: rag-e2e\nquick: true\n"
                           "endpoint: http://user:secret@host:8000/v1\nslo: [accuracy=0.1]\n")
    first = _parse(path)
    shown = effective_options(first, "rag-e2e")
    text = yaml.safe_dump(shown, sort_keys=False)
    assert "secret" not in text and shown["benchmark"] == "rag-e2e"
    again = _parse(_file(tmp_path, text, "shown.yaml"))
    same = {k: v for k, v in vars(again).items() if k not in ("config", "endpoint")}
    assert same == {k: v for k, v in vars(first).items() if k not in ("config", "endpoint")}


def test_cli_config_check_and_run_without_a_benchmark_name(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from agentic_bench.cli.main import main

    good = _file(tmp_path, "benchmark: rag-e2e\nquick: true\n")
    assert main(["config", "check", str(good)]) == 0
    assert "ok" in capsys.readouterr().out
    bad = _file(tmp_path, "benchmark: rag-e2e\nquestions: many\n", "bad.yaml")
    assert main(["config", "check", str(bad)]) == 2
    assert "bad.yaml:2: questions: expected an integer" in capsys.readouterr().err
    assert main(["run", "--config", str(bad)]) == 2  # the file names the benchmark
    assert "bad.yaml:2: questions" in capsys.readouterr().err
    assert main(["config", "show", "rag-e2e", "--config", str(good)]) == 0
    assert "quick: true" in capsys.readouterr().out
