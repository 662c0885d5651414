"""#43: departures as a rule over the effective options.

For every option of rag-e2e (``--mlperf``), agentic-edge (held to MLPerf's configuration in
every run) and ``rag build-index`` (e2e-rag-db through LoadGen), setting it to a value other
than the configuration's, on a run that otherwise departs nowhere, either is listed as free
(with its reason) or produces a departure — a hand-written one (data, models, sampling, ...)
or the rule's (``agentic_bench/tasks/mlperf_departures.py``). An option added later falls under
the rule until someone lists it, with a reason.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agentic_bench.options.schema import OptionsModel, OptionSpec, recipe_data, specs
from agentic_bench.tasks.agentic_edge import mlperf_config as edge_config
from agentic_bench.tasks.mlperf_departures import plain, stale_entries
from agentic_bench.tasks.rag_e2e import mlperf_config as rag_config
from agentic_bench.tasks.rag_e2e.options import BuildIndexOptions
from agentic_bench.tasks.registry import load_task, parse_task_options
from tests.unit.option_values import option_value

ROOT = Path(__file__).resolve().parents[2]
EXCERPT = ROOT / "tests" / "data" / "mlcommons_edge" / "agentic_coding_excerpt.jsonl"
CORPUS = {"pages": 2515, "passages": 107_484, "parser": "lxml"}
RAG_OFFICIAL = ("--mlperf", "--frames", "frames_dataset.tsv", "--corpus", "doc_html",
                "--embedder", "/models/e5-base-v2", "--reranker", "late-interaction",
                "--reranker-model", "/models/colbertv2.0", "--model", "gpt-oss-120b",
                "--grade-endpoint", "http://g/v1", "--grade-model", "openai/gpt-oss-20b",
                "--judge-endpoint", "http://j/v1", "--judge-model",
                "meta-llama/Llama-3.1-8B-Instruct", "--reference-dir", "/src/inference",
                "--perf-cache", "llm_logs.json")  # a LoadGen performance run (#43 E2E-RAG 1)
EDGE_OFFICIAL = ("--perf-trace", "/data/agentic_coding_2.5h.jsonl")
DB_OFFICIAL = {"mlperf_db": True, "corpus": "doc_html", "loadgen": "mlperf", "out": "run",
               "embedder": "/models/e5-base-v2"}


def _changed(options: OptionsModel, spec: OptionSpec) -> OptionsModel:
    """``options`` with ``spec``'s field set to a value other than the one it has (the others
    as they are: the effective options of such a run), each option checked alone."""
    data = recipe_data(options)
    current = json.dumps(data[spec.name])
    for candidate in (option_value(spec), plain(spec.default), *(spec.choices or ())):
        if json.dumps(candidate) != current:
            data[spec.name] = candidate
            break
    return type(options).model_validate_json(json.dumps(data),
                                             context={"combinations": False})


def _with(options: OptionsModel, **values: Any) -> OptionsModel:
    """``options`` with ``values`` set (a file's or a command line's, on top of the rest)."""
    data = {**recipe_data(options), **values}
    return type(options).model_validate_json(json.dumps(data),
                                             context={"combinations": False})


@dataclass(frozen=True)
class Bench:
    official: Callable[[], Any]
    departures: Callable[[Any], list[str]]
    free: dict[str, str]
    judged: frozenset[str]


def _rag() -> Any:
    return parse_task_options(load_task("rag-e2e"), RAG_OFFICIAL, combinations=False)


def _edge(*extra: str) -> Any:
    return parse_task_options(load_task("agentic-edge"), [*EDGE_OFFICIAL, *extra],
                              combinations=False)


def _db() -> Any:
    return BuildIndexOptions.model_validate_json(json.dumps(DB_OFFICIAL),
                                                 context={"combinations": False})


def _edge_departures(options: Any, sha256: str = edge_config.MLPERF_PERF_SHA256) -> list[str]:
    return edge_config.departures(
        options, mlcommons_trace=True, bfcl=edge_config.BFCL_PIN, perf_sha256=sha256,
        perf_file=(edge_config.MLPERF_CONVERSATIONS, edge_config.MLPERF_REQUESTS))


BENCHES = {
    # the question count is what the run asks: --questions N, else all 824
    "rag-e2e": Bench(_rag, lambda o: rag_config.departures(o, o.questions or 824, CORPUS),
                     rag_config.FREE, rag_config.JUDGED),
    "agentic-edge": Bench(_edge, _edge_departures, edge_config.FREE, edge_config.JUDGED),
    "rag build-index": Bench(
        _db, lambda o: rag_config.db_departures(o, o.embedder, o.limit or 2515),
        rag_config.DB_FREE, rag_config.DB_JUDGED),
}


def _model(bench: str) -> type[OptionsModel]:
    from agentic_bench.cli.config_cmd import model_for

    model: type[OptionsModel] = model_for(bench)
    return model


CASES = [(bench, name) for bench in BENCHES for name in specs(_model(bench))]


@pytest.fixture(autouse=True)
def _loadgen_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The --mlperf preset as on a machine with LoadGen (it then issues the run)."""
    monkeypatch.setattr(rag_config, "loadgen_available", lambda: True)


@pytest.mark.parametrize("bench", list(BENCHES))
def test_the_official_runs_depart_nowhere(bench: str) -> None:
    b = BENCHES[bench]
    official = b.official()
    assert type(official) is _model(bench)
    assert b.departures(official) == []


@pytest.mark.parametrize("bench", list(BENCHES))
def test_the_tables_name_fields_once_each_with_a_reason(bench: str) -> None:
    b = BENCHES[bench]
    assert stale_entries(_model(bench), b.judged, b.free) == []
    assert all(reason.strip() for reason in b.free.values())


@pytest.mark.parametrize(("bench", "name"), CASES)
def test_every_option_off_the_configuration_is_free_or_a_departure(bench: str,
                                                                    name: str) -> None:
    b = BENCHES[bench]
    if name in b.free:
        return  # cannot change the work: the table says why
    official = b.official()
    spec = specs(_model(bench))[name]
    changed = _changed(official, spec)
    assert plain(getattr(changed, name)) != plain(getattr(official, name))
    gone = b.departures(changed)
    assert gone, f"{bench} {spec.flag} {getattr(changed, name)!r}: no departure"
    if name not in b.judged:  # the rule's text names the flag
        assert any(d.startswith((spec.flag, f"no {spec.flag}")) for d in gone), gone


# What the hand-written checks let through before #43 (each test fails on that code).

def test_max_tokens_and_temperature_on_rag_mlperf_are_departures() -> None:
    gone = BENCHES["rag-e2e"].departures(_with(_rag(), max_tokens=512, temperature=0.5))
    assert gone == [
        "--max-tokens 512 (MLPerf configuration: not set; it rewrites every call's, where "
        "MLPerf sends 4096 for grading and 10240 otherwise)",
        "--temperature 0.5 (MLPerf configuration: not set; it rewrites every call's, where "
        "MLPerf sends 1.0)"]


def test_a_remote_embedder_named_e5_base_v2_is_a_departure() -> None:
    gone = BENCHES["rag-e2e"].departures(_with(_rag(), embedder_url="http://u:secret@emb/v1"))
    assert len(gone) == 1 and gone[0].startswith(
        "--embedder-url http://***@emb/v1 (MLPerf configuration: not set; an embedder behind")
    assert "secret" not in gone[0]


def test_rag_loadgen_overrides_are_departures() -> None:
    gone = BENCHES["rag-e2e"].departures(_with(
        _rag(), sessions=10, duration=60.0, loadgen_token_stage="decompose",
        loadgen_audit="/tmp/audit.config"))
    assert [d.split(" (")[0] for d in gone] == [
        "--sessions 10", "--duration 60", "--loadgen-audit /tmp/audit.config",
        "--loadgen-token-stage decompose"]
    # TEST09: the preset's own audit.config is no departure
    from agentic_bench.tasks.rag_e2e.loadgen_files import TEST09_AUDIT

    assert BENCHES["rag-e2e"].departures(_with(
        _rag(), loadgen_mode="TEST09", loadgen_audit=str(TEST09_AUDIT))) == []


def test_edge_seed_7_is_a_departure() -> None:
    gone = _edge_departures(_edge("--seed", "7"))
    assert gone == ["--seed 7 (MLPerf configuration: 42; config.yaml's seeds, which the "
                    "reference's compliance check requires to be 42, compliance/checker.py "
                    "124-141)"]


def test_an_option_from_a_file_counts_as_much_as_one_typed(tmp_path: Path) -> None:
    config = tmp_path / "edge.yaml"
    config.write_text("benchmark: agentic-edge\nseed: 7\nretries: 2\n", encoding="utf-8")
    gone = _edge_departures(_edge("--config", str(config)))
    assert [d.split(" (")[0] for d in gone] == ["--retries 2", "--seed 7"]


@pytest.mark.parametrize(("argv", "flag"), [
    (("--retries", "2"), "--retries 2"),
    (("--resume", "results/edge", "--retry-errors"), "--retry-errors"),
    (("--request-timeout", "60"), "--request-timeout 60"),
    (("--sessions", "3"), "--sessions 3"),
    (("--duration", "600"), "--duration 600"),
    (("--max-errors", "5"), "--max-errors 5"),
    (("--stop-after-failures", "8"), "--stop-after-failures 8"),
])
def test_edge_detection_gaps_are_departures(argv: tuple[str, ...], flag: str) -> None:
    assert any(d.startswith(flag + " ") or d.startswith(flag + " (")
               for d in _edge_departures(_edge(*argv)))


def test_every_edge_run_runs_on_after_failures_as_the_reference() -> None:
    """The default-on --stop-after-failures 8 stopped a run the reference would finish: the
    task's preset sets 0 (an explicit value wins, and departs)."""
    assert _edge().stop_after_failures == 0
    assert parse_task_options(load_task("agentic-edge"), []).stop_after_failures == 0
    assert _edge("--stop-after-failures", "8").stop_after_failures == 8
    assert _rag().stop_after_failures == 0  # rag-e2e --mlperf too


@pytest.mark.parametrize(("field", "value", "flag"), [
    ("embed_backend", "torch-bf16", "--embed-backend torch-bf16"),
    ("embed_backend", "onnx-int8", "--embed-backend onnx-int8"),
    ("embed_backend", "auto", "--embed-backend auto"),
    ("loadgen_conf", "my.conf", "--loadgen-conf my.conf"),
    ("loadgen_model", "llama2-70b", "--loadgen-model llama2-70b"),
    ("db_workers", 8, "--db-workers 8"),
])
def test_e2e_rag_db_options_are_departures(field: str, value: Any, flag: str) -> None:
    gone = BENCHES["rag build-index"].departures(_with(_db(), **{field: value}))
    assert len(gone) == 1 and gone[0].startswith(flag + " (MLPerf configuration: "), gone


# The performance file: recognised by its counts, pinned by its SHA-256.

def test_an_edited_performance_file_of_the_same_shape_is_a_departure(tmp_path: Path) -> None:
    from agentic_bench.trace.mlcommons_agentic import load_conversations

    rows = EXCERPT.read_text(encoding="utf-8").splitlines()
    first = json.loads(rows[0])
    first["content"] = first["content"].replace("Consider", "Considre", 1)
    edited = tmp_path / "agentic_coding_2.5h.jsonl"
    edited.write_text("\n".join([json.dumps(first), *rows[1:]]) + "\n", encoding="utf-8")
    shape = [(c.id, len(c.rows)) for c in load_conversations(edited)]
    assert shape == [(c.id, len(c.rows)) for c in load_conversations(EXCERPT)]
    digest = edge_config.file_sha256(edited)
    assert digest == hashlib.sha256(edited.read_bytes()).hexdigest()
    assert digest != edge_config.file_sha256(EXCERPT)
    gone = _edge_departures(_edge(), digest)  # MLPerf's counts, another file
    assert gone == [f"performance file /data/agentic_coding_2.5h.jsonl is not MLPerf's "
                    f"agentic_coding_2.5h.jsonl: SHA-256 {digest[:16]}... (MLPerf's, "
                    "mlcommons/endpoints ea332753: b7da8c4ffbe1cabd...)"]
    assert _edge_departures(_edge()) == []  # the pinned digest


def test_the_workload_records_the_performance_files_digest() -> None:
    from argparse import Namespace

    from agentic_bench.tasks.agentic_edge.edge_workload import build_workload

    args = Namespace(mode="performance", tool_mode="native", samples=None, quick=False,
                     multi_turn_samples=0, perf_trace=EXCERPT, perf_sessions=None,
                     accuracy_target=None, max_steps=25, agent="loop", turn_timeout=None,
                     tool_delays=False)
    info = build_workload(args).info  # type: ignore[arg-type]
    assert info["performance_file"] == {
        "conversations": 2, "requests": 71,
        "sha256": hashlib.sha256(EXCERPT.read_bytes()).hexdigest()}
    assert any(d.startswith("performance file ") and "holds 2 conversations" in d
               for d in info["mlperf"]["departures"])

