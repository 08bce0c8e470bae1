"""Map a function over many items on every core, the calling process included.

`concurrent.futures.ProcessPoolExecutor` leaves the calling process idle, pickles every item to its workers and
starts a management thread: on two cores the check of 600 skills took 0.33 s with it, 0.29 s this way. Here the
items stay where they are: forked children inherit them, and every process (the caller too) takes chunk numbers
from one pipe written before the fork, so a slow chunk never leaves a core idle. Each child keeps its results and
sends them, pickled, when the queue is empty.

The answer never depends on a child: any chunk that no child reported (a child that crashed, was killed or raised)
is worked again in the calling process, so an error surfaces there with its real traceback, and the results are
always those of the plain loop `[work(item) for item in items]`, in order.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import struct

TYPE_CHECKING = False  # not `typing`'s: importing typing (and pickle, below) costs ~6 ms of every validate
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import TypeVar

    T = TypeVar("T")
    R = TypeVar("R")

_NUMBER = struct.Struct("<I")
MAX_CHUNKS = 4096  # 16 KiB of chunk numbers: the whole queue fits a pipe's buffer before anyone reads it


def chunk_size(count: int, workers: int, *, most: int = 64) -> int:
    """Small chunks (about 16 per worker, at most `most` items) so no core idles long at the end, and few enough
    chunks for the queue to fit its pipe."""
    size = max(1, min(most, count // (workers * 16)))
    return max(size, -(-count // MAX_CHUNKS))


def chunk_ranges(count: int, workers: int) -> list[range]:
    """The items' chunks, in order: `chunk_size` items each while much is left, then fewer, down to one, as the
    work runs out (each about a quarter of a worker's share of what remains). Whoever takes the last chunk then
    finishes about when the others do: with same-size chunks a core idled for half a chunk on average at the end
    (683 real skills, chunks of 21: ~40 ms of a 0.5 s run)."""
    most = chunk_size(count, workers)
    chunks, start = [], 0
    while start < count:
        step = max(1, min(most, -(-(count - start) // (workers * 4))))
        chunks.append(range(start, min(count, start + step)))
        start += step
    if len(chunks) > MAX_CHUNKS:  # (a queue that would not fit its pipe: same-size chunks)
        return [range(start, min(start + most, count)) for start in range(0, count, most)]
    return chunks


def map_chunked(work: Callable[[T], R], items: Sequence[T], *, workers: int, size: int | None = None,
                progress: Callable[[int], None] | None = None) -> list[R]:
    """`[work(item) for item in items]`, computed by this process and `workers - 1` forked children.

    `progress(n)` is called in this process as chunks finish (n items each), the children's included."""
    workers = min(workers, len(items))
    if workers <= 1 or not hasattr(os, "fork"):
        return _serial(work, items, progress)
    if size:
        chunks = [range(start, min(start + size, len(items))) for start in range(0, len(items), size)]
    else:
        chunks = chunk_ranges(len(items), workers)
    if len(chunks) > MAX_CHUNKS:
        raise ValueError(f"{len(chunks)} chunks: the queue holds at most {MAX_CHUNKS}")
    import pickle  # noqa: F401 - here, before the fork: the children send with it, this process reads with it
    queue_read, queue_write = os.pipe()
    _write_and_close(queue_write, b"".join(_NUMBER.pack(number) for number in range(len(chunks))))
    done_read, done_write = os.pipe()
    children: dict[int, int] = {}  # pid: read end of its result pipe
    results: dict[int, list[R]] = {}
    told = 0  # items `progress` has heard of
    # The children's collections then never touch (and copy) the objects they inherit. A caller that froze its heap
    # for good (a command, after its imports: `validate`) keeps it frozen; otherwise it is thawed after the forks.
    thaw = not gc.get_freeze_count()
    gc.freeze()
    try:
        for _ in range(workers - 1):
            result_read, result_write = os.pipe()
            try:
                pid = os.fork()
            except OSError:  # no more processes for us: fewer hands, same answer
                os.close(result_read)
                os.close(result_write)
                break
            if pid == 0:
                _child(work, items, chunks, queue_read, done_write, result_write)  # never returns
            os.close(result_write)
            children[pid] = result_read
        if thaw:
            gc.unfreeze()
        os.close(done_write)
        done_write = -1
        os.set_blocking(done_read, False)
        while (number := _take(queue_read)) is not None:
            results[number] = [work(items[index]) for index in chunks[number]]
            if progress:
                step = len(chunks[number]) + _drain_done(done_read, chunks)
                told += step
                progress(step)
        while children:
            pid, result_read = children.popitem()
            results.update(_collect(pid, result_read, len(chunks)))
        for number in range(len(chunks)):  # what no child reported: worked here, where an error shows itself
            if number not in results:
                results[number] = [work(items[index]) for index in chunks[number]]
        if progress and told < len(items):
            progress(len(items) - told)
    finally:
        if thaw:
            gc.unfreeze()
        for fd in (queue_read, done_read, done_write):
            if fd >= 0:
                os.close(fd)
        for pid, result_read in children.items():  # interrupted: stop and reap the children
            os.close(result_read)
            _kill(pid)
    return [result for number in range(len(chunks)) for result in results[number]]


def _serial(work, items, progress) -> list:
    out = []
    for item in items:
        out.append(work(item))
        if progress:
            progress(1)
    return out


def _child(work, items, chunks, queue_read, done_write, result_write) -> None:
    """A forked child: work chunks from the queue, then send {chunk number: results}. Never returns."""
    status = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends it quietly; the caller cleans up
        mine: dict[int, list] = {}
        while (number := _take(queue_read)) is not None:
            mine[number] = [work(items[index]) for index in chunks[number]]
            os.write(done_write, _NUMBER.pack(number))
        import pickle  # already loaded before the fork

        _write_and_close(result_write, pickle.dumps(mine, protocol=pickle.HIGHEST_PROTOCOL))
        status = 0
    finally:
        os._exit(status)


def _take(fd: int) -> int | None:
    """The next chunk number from the queue, or None when it is empty. Every record is 4 bytes and all were written
    before anyone read, so each read takes one whole record; anything else ends this process's share (the caller
    works whatever nobody reported)."""
    data = os.read(fd, _NUMBER.size)
    return _NUMBER.unpack(data)[0] if len(data) == _NUMBER.size else None


def _drain_done(fd: int, chunks) -> int:
    """Items the children finished since the last look (their chunk numbers wait in a non-blocking pipe)."""
    count = 0
    while True:
        try:
            data = os.read(fd, 4096 * _NUMBER.size)
        except BlockingIOError:
            return count
        if not data:
            return count
        count += sum(len(chunks[number]) for (number,) in _NUMBER.iter_unpack(data[:len(data) // 4 * 4]))


def _collect(pid: int, fd: int, count: int) -> dict:
    """A child's results, or nothing when it failed (its chunks are then worked by the caller). Closes `fd`."""
    try:
        with open(fd, "rb", closefd=True) as pipe:
            data = pipe.read()
    except BaseException:
        _kill(pid)
        raise
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0 or not data:
        return {}
    import pickle  # already loaded before the fork

    try:
        results = pickle.loads(data)  # noqa: S301 - our own forked child's bytes, over a pipe only we hold
    except Exception:  # noqa: BLE001 - a child killed mid-write: its chunks are worked again here
        return {}
    if not isinstance(results, dict) or any(not isinstance(k, int) or not 0 <= k < count for k in results):
        return {}
    return results


def _write_and_close(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.close(fd)


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)
