"""site/overlap.py: work done in a forked child gives what it gives in-process, and any failure of the child falls
back to running the work here (so its real error surfaces)."""

from __future__ import annotations

import os

import pytest

from skillyard.errors import SkillyardError
from skillyard.site import overlap


def test_the_child_result_is_the_work_result_and_the_child_is_reaped():
    value = {"search": b"x" * 500_000, "sparse": {f"skills/{i}.json": b"{}\n" for i in range(3000)}}
    with overlap.Background(lambda: value) as background:
        pid = background._pid
        assert pid is not None and pid != os.getpid()
        assert background.result() == value
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped: no zombie left


def test_work_done_in_the_child_does_not_touch_the_parent():
    seen: list[int] = []
    with overlap.Background(lambda: seen.append(os.getpid()) or os.getpid()) as background:
        child = background.result()
    assert child != os.getpid() and seen == []


def test_a_failing_child_means_the_work_runs_here_and_raises_its_own_error():
    calls: list[int] = []

    def work():
        calls.append(os.getpid())
        raise SkillyardError("registry.json: skill 'x' is broken", "Fix it.")

    with overlap.Background(work) as background, pytest.raises(SkillyardError, match="skill 'x' is broken"):
        background.result()
    assert calls == [os.getpid()]  # the child's call happened in the child; this one here


def test_a_child_killed_halfway_means_the_work_runs_here():
    def work():
        if os.getpid() != parent:
            os.kill(os.getpid(), 9)
        return "here"

    parent = os.getpid()
    with overlap.Background(work) as background:
        assert background.result() == "here"


def test_a_build_that_stops_early_does_not_wait_for_a_large_result():
    with overlap.Background(lambda: b"y" * 5_000_000) as background:
        pid = background._pid
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def test_the_heap_is_frozen_for_the_block_and_thawed_after_unless_it_was_frozen_before():
    import gc

    from skillyard.site.overlap import frozen_heap

    assert gc.get_freeze_count() == 0
    with frozen_heap():
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0
    gc.freeze()
    try:
        with frozen_heap():
            pass
        assert gc.get_freeze_count() > 0  # the caller's freeze is the caller's to undo
    finally:
        gc.unfreeze()


def test_builds_running_at_once_restore_the_collector_threshold_the_last_one_out():
    """First in, first out: the second build must keep the raised threshold after the first ends, and the
    threshold from before both is what is left (restoring per build left it raised for good)."""
    import gc
    import threading

    from skillyard.site import overlap

    before = gc.get_threshold()
    raised = max(before[0], overlap.YOUNG_OBJECTS)
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen = []

    @overlap.fewer_collections
    def first():
        first_in.set()
        second_in.wait(10)

    @overlap.fewer_collections
    def second():
        second_in.set()
        first_out.wait(10)
        seen.append(gc.get_threshold()[0])

    one = threading.Thread(target=first)
    one.start()
    first_in.wait(10)
    two = threading.Thread(target=second)
    two.start()
    one.join(10)
    first_out.set()
    two.join(10)
    assert seen == [raised]
    assert gc.get_threshold() == before
