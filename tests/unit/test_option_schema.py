"""One run-configuration schema (#23 item 3): flags, --help, files, config show, worker recipes,
the run record and the resume identity all come from the option declarations; every flag of
``replay`` and ``run`` round-trips through a YAML file (config → flags → config); validated
options are frozen."""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from agentic_bench.cli.config_cmd import effective_options, model_for, parse_for
from agentic_bench.errors import ConfigError
from agentic_bench.options.parser import build_parser
from agentic_bench.options.schema import (
    from_recipe,
    identity,
    public_options,
    recipe_data,
    specs,
    to_argv,
)
from agentic_bench.tasks.registry import load_task, task_options, task_recipe
from tests.unit.option_values import option_value

COMMANDS = ["replay", "sample", "agentic-edge", "rag-e2e", "rag-agent", "tau2-airline",
            "sim", "record", "serve", "rag build-index", "compare", "report", "validate",
            "import", "new-task", "traces stats", "traces convert", "traces build",
            "submission pack", "rag sample-layout", "export",
            "traces verify"]  # #32, #41: every command's options


def _write(tmp_path: Path, data: dict[str, Any], name: str = "all.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


@pytest.mark.parametrize("name", COMMANDS)
def test_every_flag_round_trips_config_flags_config(tmp_path: Path, name: str) -> None:
    found = specs(model_for(name))
    data = {"benchmark": name, **{s.flag.lstrip("-"): option_value(s) for s in found.values()}}
    # every option at once off its default breaks the rules between them (--sweep with
    # --search, --loadgen with --workers: test_rules_between_options): each is checked alone
    first = parse_for(name, ["--config", str(_write(tmp_path, data))], combinations=False)
    for spec in found.values():  # every option took the file's (non-default) value
        assert getattr(first, spec.name) != spec.default, spec.name
    argv = to_argv(first)  # config → flags
    positional = sum(s.positional for s in found.values())  # TRACE, DIR..., FORMAT IN
    assert sum(a.startswith("--") for a in argv) >= len(found) - positional  # one flag each
    again = parse_for(name, argv, combinations=False)
    assert again == first
    shown = effective_options(again, name)  # → config
    assert parse_for(name, ["--config", str(_write(tmp_path, shown, "shown.yaml"))],
                     combinations=False) == first


@pytest.mark.parametrize("name", COMMANDS)
def test_help_is_generated_from_the_declarations(name: str) -> None:
    model = model_for(name)
    text = build_parser(model, prog="x").format_help()
    for spec in specs(model).values():
        shown = spec.metavar or spec.flag if spec.positional else spec.flag  # DIR..., TRACE
        assert shown in text, shown
    assert "--config FILE" in text


def test_the_scenario_default_is_the_benchmarks_own() -> None:
    class Fake:
        name, summary, default_scenario = "fake", "a fake", "offline"
        options = load_task("sample").options

    model = task_options(Fake())
    assert model.model_fields["scenario"].default == "offline"
    assert "default offline" in build_parser(model, prog="x").format_help()
    assert parse_for("sample", []).scenario == "single-stream"


def test_validated_options_are_frozen_and_so_is_a_run() -> None:
    from agentic_bench.options.common import common
    from agentic_bench.run.plan import Run

    options = parse_for("rag-e2e", ["--quick"])
    with pytest.raises(ValidationError, match="frozen"):
        options.quick = False  # type: ignore[misc]
    run = Run(common(options), "rag-e2e", None, common(options).replay(model="m"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.command = "other"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.replay.model = "other"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.load.concurrency = 3  # type: ignore[misc]  # a view, not a copy to change


def test_a_worker_recipe_is_the_options_as_json_validated_again() -> None:
    options = parse_for("rag-e2e", ["--quick", "--endpoint", "http://u:pw@h:1/v1",
                                    "--cache-dir", "/tmp/c", "--slo", "ttft_p99_ms=9"])
    recipe = task_recipe("rag-e2e", options)
    text = json.dumps(recipe)  # plain data: no pickled Namespace
    name, data = json.loads(text)[1]
    assert name == "rag-e2e" and data["endpoint"] == "http://u:pw@h:1/v1"  # not redacted
    assert from_recipe(type(options), data) == options
    assert recipe_data(options) == data


def test_the_run_record_options_are_redacted_and_complete() -> None:
    options = parse_for("rag-e2e", ["--quick", "--endpoint", "http://u:pw@h:1/v1",
                                    "--judge-endpoint", "http://k:secret@j:2/v1",
                                    "--server-metrics", "http://m:hidden@h:9400/metrics"])
    shown = public_options(options)
    assert set(shown) == set(specs(type(options)))
    assert "pw" not in json.dumps(shown) and "secret" not in json.dumps(shown)
    assert "hidden" not in json.dumps(shown)  # a repeatable URL option: each one redacted
    assert shown["server_metrics"] == ["http://***@h:9400/metrics"]
    assert shown["judge_api_key_env"] == "JUDGE_API_KEY"  # only the variable's name


def test_the_resume_identity_is_what_the_schema_declares() -> None:
    options = parse_for("rag-e2e", ["--quick", "--out", "o", "--quiet", "--workers", "2"])
    ident = identity(options)
    for kept in ("quick", "max_rounds", "endpoint", "scenario", "max_tokens", "think_time"):
        assert kept in ident
    for left in ("out", "resume", "quiet", "workers", "grace", "cache_dir", "judge_api_key_env",
                 "overwrite", "slo"):
        assert left not in ident
    assert ident == {n: v for n, v in public_options(options).items()
                     if specs(type(options))[n].identity}


def test_resume_refuses_other_identity_options_and_names_the_flag(tmp_path: Path) -> None:
    from agentic_bench.metrics.resume import prepare_resume

    then = parse_for("rag-e2e", ["--quick"])
    run = {"type": "run", "record_version": 2, "config": {}, "options": public_options(then)}
    (tmp_path / "records.jsonl").write_text(json.dumps(run) + "\n", encoding="utf-8")
    now = parse_for("rag-e2e", ["--quick", "--max-rounds", "2"])
    with pytest.raises(ConfigError, match=r"--max-rounds: 5 then, 2 now"):
        prepare_resume(tmp_path, {}, None, options=identity(now))
    # an output option is not identity: a resume with another --grace or --quiet continues
    same = parse_for("rag-e2e", ["--quick", "--grace", "5", "--quiet"])
    state = prepare_resume(tmp_path, {}, None, options=identity(same))
    assert state.done == set()


def test_an_old_run_record_without_options_is_compared_on_its_config(tmp_path: Path) -> None:
    from agentic_bench.metrics.resume import prepare_resume

    run = {"type": "run", "config": {"history": "recorded", "model": None}}
    (tmp_path / "records.jsonl").write_text(json.dumps(run) + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="option 'history' differs"):
        prepare_resume(tmp_path, {"history": "live", "model": None}, None,
                       options={"history": "live"})


@pytest.mark.parametrize(("text", "message"), [
    ("slo: [1, ttft_p99_ms=2]\n", r"run.yaml:1: slo\[0\]: expected a list of text values"),
    ("slo: [nope]\n", r"run.yaml:1: slo: --slo 'nope': expected KEY=VALUE"),
    ("think-time: later\n", r"run.yaml:1: think-time: --think-time 'later'"),
    ("session_header: ['bad header']\n", r"run.yaml:1: session_header: .*not an HTTP header"),
    ("sweep: speed=1,2\n", r"run.yaml:1: sweep: --sweep 'speed=1,2'"),
    ("retrieve-k: 2.5\n", r"run.yaml:1: retrieve-k: expected an integer, got 2.5"),
    ("request_timeout: fast\n", r"run.yaml:1: request_timeout: expected a number, got 'fast'"),
    ("cache-dir: 3\n", r"run.yaml:1: cache-dir: expected a path, got 3"),
    ("max-rounds: 2\nmax_rounds: 3\n", r"run.yaml:2: max_rounds: given twice \(line 1 sets "
                                       r"max-rounds\)"),
])
def test_a_bad_value_names_file_line_key_path_and_expectation(tmp_path: Path, text: str,
                                                              message: str) -> None:
    path = tmp_path / "run.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        parse_for("rag-e2e", ["--config", str(path)])


def test_a_bad_flag_value_names_the_flag() -> None:
    with pytest.raises(ConfigError, match=r"--think-time: --think-time 'soon'"):
        parse_for("rag-e2e", ["--think-time", "soon"])
    with pytest.raises(ConfigError, match=r"^trace: required \(a path\)"):
        parse_for("replay", [])


def test_replay_takes_a_config_file(tmp_path: Path) -> None:
    trace = Path(__file__).parents[2] / "traces" / "sample.jsonl"
    path = _write(tmp_path, {"benchmark": "replay", "trace": str(trace), "scenario": "offline",
                             "concurrency": 2})
    options = parse_for("replay", ["--config", str(path), "--concurrency", "3"])
    assert options.trace == trace and options.scenario == "offline"
    assert options.concurrency == 3  # the command line wins over the file
    wrong = _write(tmp_path, {"benchmark": "rag-e2e", "trace": str(trace)}, "wrong.yaml")
    with pytest.raises(ConfigError, match="benchmark: rag-e2e"):
        parse_for("replay", ["--config", str(wrong)])


class LegacyTask:
    """A plugin task written before option models: ``add_arguments`` only."""

    name, summary, default_scenario = "legacy", "old style", "single-stream"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        g = parser.add_argument_group("legacy")
        g.add_argument("--quick", action="store_true", help="short")
        g.add_argument("--steps", type=int, default=3, metavar="N", help="steps")
        g.add_argument("--ratio", type=float, help="a ratio")
        g.add_argument("--mode", choices=("a", "b"), default="a", help="mode")
        g.add_argument("--tag", action="append", help="tags")
        g.add_argument("--data", type=Path, help="a file")

    def workload(self, args: Any) -> Any:
        return args


def test_a_legacy_add_arguments_task_gets_a_derived_model(tmp_path: Path) -> None:
    from agentic_bench.tasks.registry import parse_task_options

    task = LegacyTask()
    options = parse_task_options(task, ["--quick", "--steps", "5", "--tag", "x", "--tag", "y",
                                        "--mode", "b", "--data", "d.json", "--ratio", "0.5"])
    assert (options.quick, options.steps, options.tag, options.mode) == (True, 5, ("x", "y"), "b")
    assert options.data == Path("d.json") and options.ratio == 0.5
    assert options.endpoint == "embedded"  # the common options come with it
    assert parse_task_options(task, []).steps == 3
    path = tmp_path / "run.yaml"
    path.write_text("steps: many\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"run.yaml:1: steps: expected an integer"):
        parse_task_options(task, ["--config", str(path)])
    assert "legacy:" in build_parser(task_options(task), prog="x").format_help()


@pytest.mark.parametrize("path", sorted((Path(__file__).parents[2] / "configs").glob("*.yaml")),
                         ids=lambda p: p.name)
def test_config_schema_accepts_the_shipped_examples_and_refuses_a_wrong_key(
        path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema validates the JSON Schema "
                                     "`config schema` prints (installed with the test extras)")
    from agentic_bench.cli.main import main

    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert main(["config", "schema", data["benchmark"]]) == 0
    schema = json.loads(capsys.readouterr().out)
    jsonschema.validate(data, schema)  # dashed and underscored keys, one value for a list
    with pytest.raises(jsonschema.ValidationError, match="quik"):
        jsonschema.validate({**data, "quik": True}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**data, "seed": "many"}, schema)


def test_a_run_saves_its_options_as_a_config_file(tmp_path: Path) -> None:
    from agentic_bench.options.files import write_run_config

    options = parse_for("rag-e2e", ["--quick", "--out", "o", "--endpoint", "http://u:pw@h:1/v1",
                                    "--overwrite"])
    path = write_run_config(tmp_path, "rag-e2e", public_options(options))
    assert path == tmp_path / "config.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# the options of this run") and "pw" not in text
    saved = yaml.safe_load(text)
    assert saved["benchmark"] == "rag-e2e" and saved["quick"] is True
    assert not {"out", "resume", "overwrite", "retry_errors"} & set(saved)  # no one-shot action
    assert None not in saved.values()
    again = parse_for("rag-e2e", ["--config", str(path)])
    assert again.quick and again.out is None and again.endpoint == "http://***@h:1/v1"
    point = parse_for("rag-e2e", ["--quick", "--sweep", "concurrency=1,2"])
    assert write_run_config(tmp_path / "p", "rag-e2e", public_options(point)) is None
    assert write_run_config(tmp_path, "rag-e2e", public_options(point), sweep_folder=True)
    assert write_run_config(tmp_path, "rag-e2e", {}) is None  # a run built without the schema


def test_the_command_line_runs_the_same_options_again() -> None:
    import shlex

    from agentic_bench.options.schema import command_line

    options = parse_for("rag-e2e", ["--quick", "--endpoint", "http://u:pw@h:1/v1?token=abc",
                                    "--slo", "ttft_p99_ms=5", "--out", "x y", "--resume", "r",
                                    "--max-rounds", "2"])
    line = command_line(["agentic-bench", "run", "rag-e2e"], options)
    assert "pw" not in line and "abc" not in line  # URLs redacted
    assert "--out" not in line and "--resume" not in line  # a new folder, not this one
    argv = shlex.split(line)
    assert argv[:3] == ["agentic-bench", "run", "rag-e2e"]
    again = parse_for("rag-e2e", argv[3:])
    same = {k for k in type(options).model_fields if k not in ("endpoint", "out", "resume")}
    assert {k: getattr(again, k) for k in same} == {k: getattr(options, k) for k in same}
    replay = parse_for("replay", ["t.jsonl", "--concurrency", "2", "--scenario", "concurrency"])
    assert command_line(["agentic-bench", "replay"], replay) == \
        "agentic-bench replay t.jsonl --scenario concurrency --concurrency 2"


@pytest.mark.parametrize(("sweep", "key"), [("concurrency=2,8", "concurrency"),
                                            ("rate=0.5,4", "rate")])
def test_a_sweep_points_recorded_options_name_its_load(sweep: str, key: str,
                                                       tmp_path: Path) -> None:
    """#32: each point runs under its own copy of the options (``model_copy(update=...)``),
    so the options it records (config.yaml, the run record, the resume identity) and the load
    it runs agree, value for value — not the base options with the load swapped in."""
    from agentic_bench.options.schema import command_line as rerun
    from agentic_bench.options.schema import identity, public_options
    from agentic_bench.run.plan import Run
    from agentic_bench.run.sweep import point_options
    from agentic_bench.tasks.trace_replay import trace_workload

    base = parse_for("replay", ["t.jsonl", "--sweep", sweep, "--sessions", "20"])
    workload = trace_workload(Path(__file__).parents[2] / "traces" / "sample.jsonl")
    for value in (2.0, 8.0) if key == "concurrency" else (0.5, 4.0):
        point = point_options(workload, base, key, value, tmp_path / f"{key}-{value:g}")
        run = Run(point, "replay", None, point.replay(model="m"))
        load = point.load  # what the scheduler gets
        shown, ident = public_options(point), identity(point)
        assert getattr(load, key) == value == shown[key] == ident[key]
        assert load.scenario == shown["scenario"] == ident["scenario"]
        assert run.public()["load"][key] == value
        assert shown["out"] == str(tmp_path / f"{key}-{value:g}")
        line = rerun(["agentic-bench", "replay"], point)
        assert shown.get("sweep") is None and "--sweep" not in line
        assert line == run.command_line
        assert line.count(f"--{key} {value:g}") == 1


@pytest.mark.parametrize(("argv", "message"), [
    (["--sweep", "concurrency=1,2", "--search", "concurrency=1:8"], "choose one"),
    (["--retry-errors"], "--retry-errors goes with --resume"),
    (["--loadgen", "mlperf", "--workers", "2", "--scenario", "offline"], "runs once in one"),
    (["--target-qps", "3"], "need --loadgen mlperf"),
    (["--concurrency", "4"], "does nothing with --scenario single-stream"),
])
def test_rules_between_options(argv: list[str], message: str, tmp_path: Path) -> None:
    """#32: the rules between options are the options model's validators — refused where the
    options are parsed (command line and --config file alike), before a run is planned."""
    with pytest.raises(ConfigError, match=message):
        parse_for("replay", ["t.jsonl", *argv])
    data = {"benchmark": "replay", "trace": "t.jsonl"}
    flags = iter(argv)
    for flag in flags:
        data[flag.lstrip("-")] = True if flag == "--retry-errors" else yaml.safe_load(next(flags))
    with pytest.raises(ConfigError, match=message):
        parse_for("replay", ["--config", str(_write(tmp_path, data))])
