"""The collector policy of a measured run (#22 item 11): kept objects are frozen out of full
collections while the run goes, and everything is unfrozen and collected after it."""

from __future__ import annotations

import gc

import pytest

from agentic_bench.load import gc_policy


class Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the cyclic collector frees it


def test_measured_phase_freezes_kept_objects_and_unfreezes_after() -> None:
    assert gc.get_freeze_count() == 0
    with gc_policy.measured_phase():
        frozen_at_start = gc.get_freeze_count()
        assert frozen_at_start > 0  # the heap before the first request
        kept = [{"itl_ms": [float(i)]} for i in range(1000)]  # lists: tracked by the GC
        gc_policy.settle()  # a session ended: what survived is frozen too
        assert gc.get_freeze_count() >= frozen_at_start + len(kept)
        with gc_policy.measured_phase():  # a nested run shares the outer phase
            pass
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0


def test_cycles_frozen_during_the_run_are_collectable_after_it() -> None:
    import weakref

    with gc_policy.measured_phase():
        node = Node()
        ref = weakref.ref(node)
        gc_policy.settle()
        del node
        gc.collect()
        assert ref() is not None  # frozen: not collected during the run
    gc.collect()  # the collector's next full pass, after the run
    assert ref() is None  # unfrozen: collectable again


def test_disabled_policy_leaves_the_collector_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gc_policy, "ENABLED", False)
    with gc_policy.measured_phase():
        gc_policy.settle()
        assert gc.get_freeze_count() == 0
