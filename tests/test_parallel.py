"""skillyard.parallel: the same results as a plain loop, in order, whatever happens to the forked children."""

from __future__ import annotations

import os
import signal
import time

import pytest

from skillyard import parallel

PARENT = os.getpid()


@pytest.fixture(autouse=True)
def forked(monkeypatch) -> list[int]:
    """The pids map_chunked forks (other tests' servers may be children of this process too)."""
    pids: list[int] = []
    real_fork = os.fork

    def fork() -> int:
        pid = real_fork()
        if pid:
            pids.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork)
    return pids


def reaped(pids: list[int]) -> bool:
    """Every forked child has exited and been waited for (no zombie, nothing still running)."""
    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue
        return False
    return True


def square(n: int) -> tuple[int, int]:
    return n, n * n


@pytest.mark.parametrize(("workers", "size"), [(1, None), (2, None), (2, 1), (3, 7), (4, 1000)])
def test_results_are_the_plain_loops_in_order(workers, size, forked) -> None:
    items = list(range(503))
    assert parallel.map_chunked(square, items, workers=workers, size=size) == [square(n) for n in items]
    assert reaped(forked) and len(forked) == workers - 1


def test_every_process_takes_work(forked) -> None:
    """The caller works too, and the children really run (their pids come back)."""
    def whose(n: int) -> int:
        time.sleep(0.002)  # long enough for the child to start before the caller has taken every chunk
        return os.getpid()

    pids = set(parallel.map_chunked(whose, list(range(200)), workers=2, size=1))
    assert PARENT in pids
    assert len(pids) == 2


def test_progress_counts_every_item_once(forked) -> None:
    told: list[int] = []
    parallel.map_chunked(square, list(range(250)), workers=3, size=4, progress=told.append)
    assert sum(told) == 250
    assert all(step > 0 for step in told)


@pytest.mark.parametrize("how", ["exit", "sigkill"])
def test_a_child_that_dies_costs_nothing(how, forked) -> None:
    """Chunks a dead child took (and everything it had finished) are worked again by the caller."""
    def fragile(n: int) -> tuple[int, int]:
        if os.getpid() != PARENT and n % 50 == 7:
            if how == "exit":
                os._exit(3)
            os.kill(os.getpid(), signal.SIGKILL)
        return square(n)

    items = list(range(300))
    assert parallel.map_chunked(fragile, items, workers=2, size=2) == [square(n) for n in items]
    assert reaped(forked) and forked


def test_an_error_surfaces_with_its_own_type_from_the_caller(forked) -> None:
    def broken(n: int) -> int:
        if n == 123:
            raise ValueError(f"item {n} is bad")
        return n

    with pytest.raises(ValueError, match="item 123 is bad"):
        parallel.map_chunked(broken, list(range(300)), workers=2, size=3)
    assert reaped(forked) and forked


def test_an_interrupted_caller_leaves_no_children(forked) -> None:
    seen = []

    def interrupted(n: int) -> int:
        if os.getpid() == PARENT:
            seen.append(n)
            if len(seen) > 10:  # the caller's third chunk: the children are still busy
                raise KeyboardInterrupt
        time.sleep(0.001)
        return n

    with pytest.raises(KeyboardInterrupt):
        parallel.map_chunked(interrupted, list(range(1000)), workers=3, size=5)
    assert reaped(forked) and forked


@pytest.mark.parametrize(("count", "workers"), [(1, 2), (5, 3), (200, 2), (683, 2), (20_000, 2), (20_000, 7),
                                               (300_000, 2), (parallel.MAX_CHUNKS * 64, 2)])
def test_chunks_cover_the_items_in_order_and_shrink_as_the_work_runs_out(count, workers) -> None:
    chunks = parallel.chunk_ranges(count, workers)
    assert [i for chunk in chunks for i in chunk] == list(range(count))
    assert len(chunks) <= parallel.MAX_CHUNKS
    sizes = [len(chunk) for chunk in chunks]
    assert max(sizes) <= parallel.chunk_size(count, workers)
    if len(chunks) < parallel.MAX_CHUNKS:  # (at the queue's limit the chunks are all the same size)
        assert sizes == sorted(sizes, reverse=True) and sizes[-1] == 1
        assert sum(sizes[-workers * 4:]) <= max(workers * 4, count // 10)  # the last few chunks are small


def test_chunk_sizes_keep_the_queue_within_its_pipe() -> None:
    assert parallel.chunk_size(600, 2) == 18
    assert parallel.chunk_size(20, 2) == 1
    assert parallel.chunk_size(20_000, 2) == 64
    big = 10_000_000
    assert -(-big // parallel.chunk_size(big, 2)) <= parallel.MAX_CHUNKS
    with pytest.raises(ValueError):
        parallel.map_chunked(square, list(range(parallel.MAX_CHUNKS + 1)), workers=2, size=1)


def test_no_fork_available_still_answers(monkeypatch) -> None:
    """When the system refuses a new process, the caller does the work itself."""
    def refused() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", refused)
    items = list(range(100))
    assert parallel.map_chunked(square, items, workers=3, size=4) == [square(n) for n in items]


def test_a_frozen_heap_stays_frozen_and_a_thawed_one_thawed(forked) -> None:
    """map_chunked freezes the heap for its forks; it thaws it again only when the caller had not frozen it for good
    (`validate` freezes after its imports so no full collection walks the modules again)."""
    import gc

    gc.unfreeze()
    assert parallel.map_chunked(abs, list(range(-50, 50)), workers=2, size=5) == [abs(i) for i in range(-50, 50)]
    assert gc.get_freeze_count() == 0
    try:
        gc.freeze()
        frozen = gc.get_freeze_count()
        assert parallel.map_chunked(abs, list(range(-50, 50)), workers=2, size=5) == [abs(i) for i in range(-50, 50)]
        # Frozen objects freed meanwhile (refcounts) leave the permanent generation, so the count may fall a little;
        # a thaw would empty it.
        assert gc.get_freeze_count() > frozen // 2 > 0
    finally:
        gc.unfreeze()


def test_validate_in_process_gives_the_heap_back_thawed(tmp_path, capsys) -> None:
    """`validate` freezes the heap while it checks; an in-process caller (a test, a tool) gets it back as it was."""
    import gc

    from skillyard.cli.main import skillyard_main

    skill = tmp_path / "demo"
    skill.mkdir()
    (skill / "SKILL.md").write_text("---\nname: demo\ndescription: Does demo things. Use when asked.\n---\n# Demo\n")
    gc.unfreeze()
    assert skillyard_main(["validate", "--lenient", "--no-cache", "--json", "--root", str(tmp_path), str(skill)]) == 0
    assert '"valid": true' in capsys.readouterr().out
    assert gc.get_freeze_count() == 0
