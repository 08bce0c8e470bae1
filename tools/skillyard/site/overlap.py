"""Work the site build hands to a forked child so that it runs on the second core while the build goes on.

A one-skill rebuild is almost all single-threaded Python (the page workers have nothing to render), so the
parts that need only the registry and the bodies (the search data, the sparse index: about 0.3 s at 5,000
skills) are made by a child forked once those are read, and collected when the output is planned. The child's
result is the same value the work gives in-process; when the child fails for any reason (or there is no `fork`),
the work is done again in the build's own process, so a failure surfaces with its real error, never a different
output.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import pickle
import threading
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


@contextlib.contextmanager
def frozen_heap() -> Iterator[None]:
    """What the build has read so far (the registry, the bodies: long-lived, acyclic) moved out of the cyclic
    collector's sight until the block ends: full collections no longer walk it again and again (about a second of
    a 5,000-skill build, more than linear in the skills), and the forked children and page workers do not copy its
    pages by touching it. Thawed at the end unless a caller had frozen the heap already."""
    thaw = not gc.get_freeze_count()
    gc.freeze()
    try:
        yield
    finally:
        if thaw:
            gc.unfreeze()


YOUNG_OBJECTS = 20_000  # allocations between two young-generation collections during a build (Python's default: 700)


def fewer_collections(build: Callable[..., T]) -> Callable[..., T]:
    """`build` run with the cyclic collector's first threshold raised to YOUNG_OBJECTS (restored after). A build
    allocates millions of small acyclic objects (registry entries, keys, records), and at the default threshold
    the collector ran about a thousand times in a one-skill rebuild at 5,000 skills: 0.2-0.3 s of its 3 s of
    CPU. The forked children inherit the setting. Cyclic garbage waits a little longer; peak memory is unchanged."""

    @functools.wraps(build)
    def run(*args: object, **kwargs: object) -> T:
        with _raised_lock:  # builds in threads at once: the first raises it, the last restores what was there
            if not _raised:
                _raised.append(gc.get_threshold())
                gc.set_threshold(max(_raised[0][0], YOUNG_OBJECTS), *_raised[0][1:])
            _raised.append(None)
        try:
            return build(*args, **kwargs)
        finally:
            with _raised_lock:
                _raised.pop()
                if len(_raised) == 1:
                    gc.set_threshold(*_raised.pop())

    return run


_raised: list = []  # [the threshold before the first running build, then one entry a build running]
_raised_lock = threading.Lock()


class Background(Generic[T]):
    """`work()` run in a forked child; `result()` waits for it. Always `close()` (a `with` block does)."""

    def __init__(self, work: Callable[[], T]) -> None:
        self._work = work
        self._pid: int | None = None
        self._fd: int | None = None
        if not hasattr(os, "fork"):
            return
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns into the build
            status = 1
            try:
                os.close(read_end)
                payload = pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL)
                with open(write_end, "wb") as pipe:
                    pipe.write(payload)
                status = 0
            finally:
                os._exit(status)
        os.close(write_end)
        self._pid, self._fd = pid, read_end

    def result(self) -> T:
        if self._fd is None:
            return self._work()
        with open(self._fd, "rb", closefd=True) as pipe:
            self._fd = None
            data = pipe.read()
        status = self._reap()
        if status != 0 or not data:
            return self._work()  # the child failed: the real error (or the value) comes from running it here
        return pickle.loads(data)  # noqa: S301 - our own forked child's bytes, over a pipe only we hold

    def close(self) -> None:
        """Stop waiting for the child (a build that failed): it gets EPIPE and exits."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        self._reap()

    def _reap(self) -> int:
        if self._pid is None:
            return 0
        _, status = os.waitpid(self._pid, 0)
        self._pid = None
        return os.waitstatus_to_exitcode(status)

    def __enter__(self) -> Background[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
