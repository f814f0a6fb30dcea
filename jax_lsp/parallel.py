"""Work spread over processes for `check`, with locality: each worker is given a contiguous
run of the (path-sorted) items and works through it from the front, so the modules of one
package stay in one process, whose parse cache and cross-module models then serve them all.
A worker whose run is done takes items from the end of the run with the most work left.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import multiprocessing
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


# Items between collections of the objects made since the last one, and of everything. Rare:
# checking both pinned corpora (1,400 files) with no collection at all peaks 5 MB above
# collecting every 100 items, which spent 12% of the run's CPU finding next to nothing.
_YOUNG_COLLECTION_EVERY, _FULL_COLLECTION_EVERY = 1000, 10000


def tune_gc_for_batch() -> None:
    """Garbage collection by hand for a batch run (see `collect_after_item`). Objects that
    exist now (the imported modules) are frozen out of all collections."""
    gc.freeze()
    gc.disable()


def collect_after_item(done: int) -> None:
    """A batch run's objects are mostly trees and memos that live until their cache evicts
    them, and reference counting frees the rest (the engine's models hold no reference
    cycles): the default automatic collections kept traversing that large heap, a fifth of
    the run, and found nothing. Collecting every so many items is the safety net for
    cycles; a young collection looks only at what was made since the last one and still
    lives (much of it evicted again by then)."""
    if done % _FULL_COLLECTION_EVERY == 0:
        gc.collect()
    elif done % _YOUNG_COLLECTION_EVERY == 0:
        gc.collect(0)


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def _start_method() -> str | None:
    """fork where it is safe, so that workers inherit the imported modules instead of
    importing them again: on Linux, from a process with one thread (a lock another thread
    holds stays locked in a forked child; the `check` command starts none, but a host
    process may have). Elsewhere the platform's default, spawn or forkserver."""
    if sys.platform != "linux":
        return None
    try:
        threads = len(os.listdir("/proc/self/task"))
    except OSError:
        threads = 0
    return "fork" if threads == 1 else "spawn"


def split_runs(weights: Sequence[float], parts: int) -> list[tuple[int, int]]:
    """`parts` contiguous half-open index ranges with about equal total weight."""
    total = sum(weights)
    bounds = [0]
    reached = 0.0
    for index, weight in enumerate(weights):
        reached += weight
        if len(bounds) < parts and reached >= total * len(bounds) / parts:
            bounds.append(index + 1)
    bounds += [len(weights)] * (parts + 1 - len(bounds))
    return list(itertools.pairwise(bounds))


class _Claims:
    """Which items are still to do, shared by the workers: per worker its run's next item
    (`front`) and the end of what is left of it (`back`), and the item it is working on."""

    def __init__(self, context: Any, runs: list[tuple[int, int]], weights: Sequence[float]):
        self._lock = context.Lock()
        self._ends = context.Array("q", [end for run in runs for end in run], lock=False)
        self._current = context.Array("q", [-1] * len(runs), lock=False)
        prefix = [0.0]
        for weight in weights:
            prefix.append(prefix[-1] + weight)
        self._prefix = prefix  # left-over work of a run: prefix[back] - prefix[front]

    def claim(self, worker: int) -> int | None:
        """The next item for `worker`: from its own run, else stolen; None when all is done."""
        with self._lock:
            ends = self._ends
            front, back = ends[2 * worker], ends[2 * worker + 1]
            if front < back:
                ends[2 * worker] = front + 1
                self._current[worker] = front
                return front
            runs = range(len(self._current))
            victim = max(
                runs, key=lambda r: self._prefix[ends[2 * r + 1]] - self._prefix[ends[2 * r]]
            )
            front, back = ends[2 * victim], ends[2 * victim + 1]
            if front >= back:
                self._current[worker] = -1
                return None
            ends[2 * victim + 1] = back - 1
            self._current[worker] = back - 1
            return back - 1

    def current(self, worker: int) -> int:
        with self._lock:
            return self._current[worker]


@contextlib.contextmanager
def _started_outside_the_working_directory(start_method: str) -> Iterator[None]:
    """A spawned process (a worker, and multiprocessing's resource tracker) starts as
    `python -c ...`, which puts its working directory first on `sys.path` (unless -P or
    PYTHONSAFEPATH, 3.11+), and imports part of the standard library (`signal`, `socket`, ...)
    before it takes the parent's path: from the user's project, a `signal.py` there would be
    run. Started from the standard library's own folder, what it finds there first is the
    standard library itself; the worker returns to the working directory (`_work`).
    A fork inherits the parent's modules and imports nothing: nothing to do."""
    standard_library = os.path.dirname(os.__file__)
    if start_method == "fork" or not os.path.isdir(standard_library):
        yield
        return
    # The process's working directory changes for the few milliseconds of the starts: a host's
    # other threads must not resolve relative paths meanwhile (`check --watch` has one thread
    # more, watchfiles', given absolute paths).
    working_directory = os.getcwd()
    os.chdir(standard_library)
    try:
        yield
    finally:
        os.chdir(working_directory)


def _work(
    function: Callable[[Item], Any],
    items: Sequence[Item],
    claims: _Claims,
    worker: int,
    results: Connection,
    working_directory: str,
) -> None:
    os.chdir(working_directory)  # a spawned worker was started elsewhere (see above)
    tune_gc_for_batch()  # again after fork (harmless); needed in a spawned worker
    try:
        for done in itertools.count(1):
            index = claims.claim(worker)
            if index is None:
                break
            # A pipe of its own, written synchronously: what a worker sent before it died
            # arrives (a queue's feeder thread would lose its buffer with the process).
            results.send((index, function(items[index])))
            collect_after_item(done)
    except KeyboardInterrupt:
        pass


def map_with_locality(
    function: Callable[[Item], Result],
    items: Sequence[Item],
    weights: Sequence[float],
    jobs: int,
    lost: Callable[[Item, str], Result],
) -> list[Result]:
    """`[function(item) for item in items]` on `jobs` worker processes. `function` must be
    picklable (a module-level function or a partial of one) and should not raise. An item
    whose worker died while on it gets `lost(item, reason)`; the other workers finish the
    dead worker's run."""
    context = multiprocessing.get_context(_start_method())
    here = os.getcwd()
    workers: list[Any] = []
    done: dict[int, Result] = {}
    try:
        with _started_outside_the_working_directory(context.get_start_method()):
            # The claims' lock starts multiprocessing's resource tracker where it spawns.
            claims = _Claims(context, split_runs(weights, jobs), weights)
            pipes = [context.Pipe(duplex=False) for _ in range(jobs)]
            workers = [
                context.Process(
                    target=_work,
                    args=(function, items, claims, worker, pipes[worker][1], here),
                    daemon=True,
                )
                for worker in range(jobs)
            ]
            for process in workers:
                process.start()
        for _, sender in pipes:
            sender.close()  # a pipe then ends (EOF) once the workers holding it have exited
        readers = {reader: worker for worker, (reader, _) in enumerate(pipes)}
        while readers:
            for reader in wait(list(readers)):
                try:
                    index, result = reader.recv()
                except (EOFError, OSError):  # that worker has exited
                    worker = readers.pop(reader)
                    workers[worker].join()
                    _account_for_dead(workers[worker], claims.current(worker), items, done, lost)
                    continue
                done[index] = result
    finally:
        for process in workers:
            if process.is_alive():
                process.terminate()
            process.join()
    reason = "not checked: every worker process stopped"
    return [done[i] if i in done else lost(item, reason) for i, item in enumerate(items)]


def _account_for_dead(
    process: Any,
    index: int,
    items: Sequence[Item],
    done: dict[int, Result],
    lost: Callable[[Item, str], Result],
) -> None:
    """The item an abnormally ended worker was on gets its `lost` result."""
    if process.exitcode != 0 and index >= 0 and index not in done:
        done[index] = lost(items[index], f"worker process died (exit code {process.exitcode})")
