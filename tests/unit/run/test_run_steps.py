"""The steps of a run (#32 item 3), each on its own: the output folder (``run/folder.py``),
the segment strategy's sizing (``run/segments.py``) and whether a run is complete
(``run/summary.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentic_bench.contracts import Segment, SessionSource, Workload
from agentic_bench.endpoint.resolve import Endpoint
from agentic_bench.errors import ConfigError
from agentic_bench.metrics.resume import ResumeState
from agentic_bench.options.common import CommonOptions
from agentic_bench.options.load import LaneSpec
from agentic_bench.options.parser import resolve
from agentic_bench.options.replay_command import ReplayCommandOptions
from agentic_bench.run.folder import claim_out, resume_command
from agentic_bench.run.plan import Run, check_plan
from agentic_bench.run.segments import stream_count
from agentic_bench.run.summary import RunFacts, complete


def workload(size: int = 3, trees: bool = False) -> Workload:
    def never(_: Any) -> Any:
        raise AssertionError

    return Workload("w", SessionSource(size, never), never, trees=trees)


def plan(lanes: LaneSpec | None = None, **given: Any) -> Run:
    """A run of options validated from ``given`` (as a file or command line gives them)."""
    options = resolve(CommonOptions, given)
    return Run(options, None, lanes, options.replay(model="m"))


def facts(seg: Segment, *, planned: int | None = 4, done: int = 0, trees: bool = False,
          run: Run | None = None) -> RunFacts:
    endpoint = Endpoint(transport=None, model="m", url="u", kind="url")  # type: ignore[arg-type]
    return RunFacts(workload=workload(trees=trees), run=run or plan(),
                    endpoint=endpoint,
                    out=Path("out"), slos={}, resumed=ResumeState(done=set(range(done))),
                    planned=planned, segment=seg, started=0.0, cpu0=0.0, scraped=False)


def test_a_folder_that_holds_a_run_is_refused_moved_aside_or_resumed(tmp_path: Path) -> None:
    (tmp_path / "records.jsonl").write_text("{}\n")
    (tmp_path / "summary.json").write_text("{}\n")
    claim_out(tmp_path, resume=True, overwrite=False)  # a resume continues it
    with pytest.raises(ConfigError, match="already holds a run"):
        claim_out(tmp_path, resume=False, overwrite=False)
    claim_out(tmp_path, resume=False, overwrite=True)
    [aside] = list(tmp_path.iterdir())
    assert aside.name.startswith("replaced-")
    assert sorted(p.name for p in aside.iterdir()) == ["records.jsonl", "summary.json"]
    claim_out(tmp_path, resume=False, overwrite=False)  # nothing left to refuse


def test_the_resume_command_names_the_command_that_ran() -> None:
    out = Path("results/a b")
    assert resume_command("replay", "replay", out) == \
        "agentic-bench replay --resume 'results/a b'"
    assert resume_command(None, "rag-e2e", out) == \
        "agentic-bench run rag-e2e --resume 'results/a b'"


def test_streams_come_from_lanes_concurrency_or_loadgen() -> None:
    options = resolve(CommonOptions, {"scenario": "concurrency", "concurrency": 7})
    assert check_plan(workload(), options) is None  # not agent trees: no lanes
    assert stream_count(workload(), options, None) == 7
    trees = resolve(ReplayCommandOptions, {"trace": "t", "scenario": "concurrency",
                                           "concurrency": 5})
    lanes = check_plan(workload(trees=True), trees)
    assert lanes is not None and lanes.lanes == 5
    assert stream_count(workload(trees=True), trees, lanes) == 5
    with pytest.raises(ConfigError, match="replay TRACE"):  # only replay runs agent trees
        check_plan(workload(trees=True), options)
    assert stream_count(workload(), resolve(CommonOptions, {}), None) == 1
    lg = resolve(CommonOptions, {"loadgen": "mlperf", "scenario": "offline"})
    assert stream_count(workload(size=100), lg, None) == 64
    assert stream_count(workload(size=3), lg, None) == 3


@pytest.mark.parametrize(("seg", "planned", "done", "expected"), [
    (Segment(1.0, "done", 4, 0), 4, 0, True),
    (Segment(1.0, "done", 4, 1), 4, 0, False),  # a session cancelled
    (Segment(1.0, "all_failed", 4, 0), 4, 0, False),
    (Segment(1.0, "interrupted", 2, 0), 4, 0, False),  # sessions left
    (Segment(1.0, "interrupted", 2, 0), 4, 2, True),  # the rest done before the resume
    (Segment(1.0, "interrupted", 2, 0), None, 2, False),  # no plan: an interrupt loses some
])
def test_a_run_is_complete_when_nothing_was_lost(seg: Segment, planned: int | None, done: int,
                                                 expected: bool) -> None:
    assert complete(facts(seg, planned=planned, done=done)) is expected


def test_an_agentx_measured_phase_that_ran_its_duration_is_complete() -> None:
    cut = plan(LaneSpec(cut=True, duration_s=5.0))
    seg = Segment(5.0, "duration", 3, 0)
    assert complete(facts(seg, planned=None, trees=True, run=cut))
