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
