"""Work spread over processes for `check`, with locality: each worker is given a run of the
items and works through it from the front. Items may come in groups (the modules linked by
imports), each kept whole in one run where the balance allows, so the modules of one project
stay in one process, whose parse cache and cross-module models then serve them all. A worker
whose run is done takes over the back half of the run with the most work left, cut where a
group starts if one does there. A worker may be asked to do items of a group again once the
group is done there (`check`: the modules its later modules gave other traces).
"""

from __future__ import annotations

import bisect
import contextlib
import gc
import itertools
import multiprocessing
import os
import sys
from collections.abc import Callable, Hashable, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")
# Given the items one worker did in a batch (in its order), the positions of those it should
# do again before the batch ends (see `Workers.map`).
Again = Callable[[list[Any]], Sequence[int]]


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


def share_out(
    weights: Sequence[float], groups: Sequence[Hashable], parts: int
) -> tuple[list[int], list[tuple[int, int]]]:
    """The items (their positions) ordered in `parts` runs of about equal total weight, and
    each run (a half-open range of that order). The items of a group (same key in `groups`)
    stay together, in their order, in one run: the heaviest groups first, each to the run
    with the least weight so far; a group heavier than the room left there is cut (its first
    items there, the rest to the next lightest run)."""
    members: dict[Hashable, list[int]] = {}
    for index, group in enumerate(groups):
        members.setdefault(group, []).append(index)
    if len(members) <= 1:
        return list(range(len(weights))), split_runs(weights, parts)
    total = sum(weights)
    share = total / parts if parts else 0.0
    slack = share / 50  # a group this much over the room left is placed whole all the same
    runs: list[list[int]] = [[] for _ in range(parts)]
    loads = [0.0] * parts
    heaviest_first = sorted(members.values(), key=lambda m: -sum(weights[i] for i in m))
    for member in heaviest_first:
        left = member
        while left:
            part = min(range(parts), key=loads.__getitem__)
            room = share - loads[part]
            weight = sum(weights[i] for i in left)
            if weight <= room + slack or room <= 0:
                runs[part] += left
                loads[part] += weight
                break
            taken, reached = 0, 0.0
            while taken < len(left) and reached + weights[left[taken]] <= room:
                reached += weights[left[taken]]
                taken += 1
            taken = max(taken, 1)
            runs[part] += left[:taken]
            loads[part] += sum(weights[i] for i in left[:taken])
            left = left[taken:]
    order = [index for run in runs for index in run]
    bounds = list(itertools.accumulate([0] + [len(run) for run in runs]))
    return order, list(itertools.pairwise(bounds))


def group_starts(groups: Sequence[Hashable], runs: list[tuple[int, int]]) -> list[int]:
    """The positions (of the ordered items' `groups`) where a group or a run starts."""
    starts = {front for front, back in runs if front < back}
    starts.update(i for i in range(1, len(groups)) if groups[i] != groups[i - 1])
    return sorted(starts)


class _Claims:
    """Which items are still to do, shared by the workers: per worker its run's next item
    (`front`) and the end of what is left of it (`back`), and the item it is working on."""

    def __init__(
        self,
        context: Any,
        runs: list[tuple[int, int]],
        weights: Sequence[float],
        starts: Sequence[int] = (),
    ):
        self._lock = context.Lock()
        self._ends = context.Array("q", [end for run in runs for end in run], lock=False)
        self._current = context.Array("q", [-1] * len(runs), lock=False)
        self.set_weights(weights, starts)

    def set_weights(self, weights: Sequence[float], starts: Sequence[int] = ()) -> None:
        """The weights of a new batch's items, and where its groups start (sorted positions):
        each process keeps its own copy."""
        prefix = [0.0]
        for weight in weights:
            prefix.append(prefix[-1] + weight)
        self._prefix = prefix  # left-over work of a run: prefix[back] - prefix[front]
        self._starts = list(starts)
        self._start_set = set(starts)

    def _cut(self, front: int, back: int) -> int:
        """Where a worker taking over part of the run left from `front` to `back` starts: at
        the group start nearest the middle of the work left, if a group starts there; else in
        the middle (at least the last item)."""
        prefix = self._prefix
        middle = (prefix[front] + prefix[back]) / 2
        starts = self._starts[bisect.bisect_left(self._starts, front) :]
        starts = starts[: bisect.bisect_left(starts, back)]
        if starts:
            return min(reversed(starts), key=lambda start: abs(prefix[start] - middle))
        cut = bisect.bisect_left(prefix, middle, front + 1, back)
        return min(cut, back - 1)

    def set_runs(self, runs: list[tuple[int, int]]) -> None:
        """Each worker's run of a new batch (while no worker claims)."""
        with self._lock:
            for worker, (front, back) in enumerate(runs):
                self._ends[2 * worker], self._ends[2 * worker + 1] = front, back
                self._current[worker] = -1

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
            cut = self._cut(front, back)
            ends[2 * victim + 1] = cut
            ends[2 * worker], ends[2 * worker + 1] = cut + 1, back
            self._current[worker] = cut
            return cut

    def starts_group(self, index: int, last: int) -> bool:
        """Does the item at `index`, claimed after the one at `last`, start another group (or
        another run, taken over)?"""
        return index != last + 1 or index in self._start_set

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


# What a worker sends when its claims for a batch are done (results are (index, result)).
_BATCH_DONE = "batch done"
# Passes of a batch's `again` at most in one worker (each a chain's next link, as a round).
_MAX_AGAIN_PASSES = 8
# Seconds between a waiting worker's looks at whether the process that started it still runs.
_PARENT_CHECK_SECONDS = 1.0
_END_SECONDS = 5.0  # a worker told to end is ended if it has not after this long


def _work(
    function: Callable[[Item], Any],
    items: Sequence[Item],
    claims: _Claims,
    worker: int,
    results: Connection,
    orders: Connection,
    working_directory: str,
    again: Again | None = None,
) -> None:
    """Do the items `claims` gives this worker, and those `again` says to do again, then
    wait for the next batch (a function, its items, their weights, where their groups start
    and its `again`, from `orders`) or the end (None). The parses and models made for one
    batch serve the next: `check`'s later rounds analyse again modules analysed before."""
    os.chdir(working_directory)  # a spawned worker was started elsewhere (see above)
    parent = os.getppid()
    try:
        while True:
            # Again after fork (harmless), needed in a spawned worker; at each later batch,
            # what the last ones left (kept for this one) is frozen out of the collections,
            # which then look at this batch's objects only, as a fresh worker's would.
            tune_gc_for_batch()
            done: list[int] = []
            group = 0  # where in `done` the items of the last group began
            while (index := claims.claim(worker)) is not None:
                if again is not None and done and claims.starts_group(index, done[-1]):
                    # The last group is done here: what it gives its own items is known now,
                    # while the other workers are busy (the runs' ends are shared out after).
                    _do_again(function, again, items, done[group:], results)
                    group = len(done)
                # A pipe of its own, written synchronously: what a worker sent before it died
                # arrives (a queue's feeder thread would lose its buffer with the process).
                results.send((index, function(items[index])))
                done.append(index)
                collect_after_item(len(done))
            if again is not None:
                _do_again(function, again, items, done[group:], results)
                _do_again(function, again, items, done, results)  # across groups (rare)
            results.send(_BATCH_DONE)
            # Another worker may hold this pipe's other end too (a fork inherits what the
            # parent had open): a parent that was killed would never close it.
            while not orders.poll(_PARENT_CHECK_SECONDS):
                if os.getppid() != parent:
                    return
            order = orders.recv()
            if order is None:
                return
            function, items, weights, starts, again = order
            claims.set_weights(weights, starts)
    except (KeyboardInterrupt, EOFError, BrokenPipeError):
        pass


def _do_again(
    function: Callable[[Item], Any],
    again: Again,
    items: Sequence[Item],
    done: list[int],
    results: Connection,
) -> None:
    """The items done (their indexes in `items`) that `again` asks for, done again in their
    order and sent (the parent keeps each item's last result), until it asks for none: what
    it asks for would otherwise wait for a later batch."""
    for _ in range(_MAX_AGAIN_PASSES):
        positions = again([items[index] for index in done])
        if not positions:
            return
        for position in sorted(positions):
            results.send((done[position], function(items[done[position]])))


class Workers:
    """Worker processes that do batches of items (`map`), kept from one batch to the next
    with what they built: `check` analyses in rounds, and a later round's modules were
    analysed by some worker before, which then analyses them again (its parses and models
    still in memory, where the parent process would parse and model them anew). Started by
    the first batch of enough items; until then, and with one job, batches run here."""

    def __init__(self, jobs: int, threshold: int = 1) -> None:
        self.jobs = jobs
        self._threshold = threshold  # the fewest items worth starting the workers for
        self._processes: list[Any] = []
        self._results: list[Connection] = []
        self._orders: list[Connection] = []
        self._claims: _Claims | None = None
        self._alive: list[int] = []
        self._owners: dict[Any, int] = {}  # item -> the worker that last did it

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        self.close(at_once=kind is not None)

    @property
    def started(self) -> bool:
        return bool(self._processes)

    def map(
        self,
        function: Callable[[Item], Result],
        items: Sequence[Item],
        weights: Sequence[float],
        lost: Callable[[Item, str], Result],
        serially: Callable[[Callable[[Item], Result], Sequence[Item]], list[Result]] | None = None,
        groups: Sequence[Hashable] | None = None,
        again: Again | None = None,
    ) -> list[Result]:
        """`[function(item) for item in items]`, on the workers once started (`function` must
        be picklable: a module-level function or a partial of one; it should not raise). An
        item done before goes to the worker that did it; the rest in runs of about equal
        weight, each of `groups`' groups (a key per item; none: the items in one group) whole
        in one run where the balance allows, in their order. An item whose worker died while
        on it gets `lost(item, reason)`; the other workers finish the dead worker's run.
        On the workers, `again` (picklable with `function`: the two may share state, such as
        what the items learn from each other) is asked which of the items a worker did to do
        again there (their result is the last one): about each group's once the worker is
        done with it, then about all of them once it has nothing left to claim.
        Before the workers are started, a batch of fewer items than the threshold runs in
        this process (through `serially`, if given; `again` is not asked)."""
        if self.started and not self._alive:
            self.close()  # every worker died: this batch starts afresh
        if not self.started and (self.jobs <= 1 or len(items) < self._threshold):
            if serially is not None:
                return serially(function, items)
            return [function(item) for item in items]
        if not items:
            return []
        keys: Sequence[Hashable] = groups if groups is not None else [0] * len(items)
        if not self.started:
            order, runs = share_out(weights, keys, self.jobs)
        else:
            order, runs = self._by_owner(items, weights, groups)
        ordered = [items[i] for i in order]
        ordered_weights = [weights[i] for i in order]
        starts = group_starts([keys[i] for i in order], runs)
        if not self.started:
            self._start(function, ordered, runs, ordered_weights, starts, again)
        else:
            self._claims.set_runs(runs)  # type: ignore[union-attr]
            self._claims.set_weights(ordered_weights, starts)  # type: ignore[union-attr]
            for worker in self._alive:
                # A worker that died is seen below, as the end of its results.
                with contextlib.suppress(OSError):
                    batch = (function, ordered, ordered_weights, starts, again)
                    self._orders[worker].send(batch)
        done = self._collect([items[i] for i in order], lost)
        results: list[Any] = [None] * len(items)
        for position, index in enumerate(order):
            results[index] = done[position]
        return results

    def _by_owner(
        self,
        items: Sequence[Item],
        weights: Sequence[float],
        groups: Sequence[Hashable] | None,
    ) -> tuple[list[int], list[tuple[int, int]]]:
        """The items ordered so that each live worker's run holds those it did before, in their
        order, with the rest of their groups (a group whose items several workers did goes
        whole to the one that did most: its items' results depend on each other, as `check`'s
        modules on the traces they give each other); the items none of them did are shared
        out by weight and group. The positions in `items`, and each worker's run (empty for a
        dead worker)."""
        alive = set(self._alive)
        owners = [self._owners.get(item) for item in items]
        owners = [owner if owner in alive else None for owner in owners]
        if groups is not None:
            done_by: dict[Hashable, dict[int, float]] = {}
            for group, owner, weight in zip(groups, owners, weights, strict=True):
                if owner is not None:
                    votes = done_by.setdefault(group, {})
                    votes[owner] = votes.get(owner, 0.0) + weight
            most = {
                group: max(sorted(votes), key=votes.__getitem__) for group, votes in done_by.items()
            }
            owners = [most.get(group) for group in groups]
        mine: dict[int, list[int]] = {worker: [] for worker in self._alive}
        unowned: list[int] = []
        for index, owner in enumerate(owners):
            (mine[owner] if owner is not None else unowned).append(index)
        if unowned:
            keys = groups if groups is not None else [0] * len(items)
            shared, shares = share_out(
                [weights[i] for i in unowned], [keys[i] for i in unowned], len(self._alive)
            )
            for worker, (start, end) in zip(self._alive, shares, strict=True):
                mine[worker] += [unowned[i] for i in shared[start:end]]
        order: list[int] = []
        runs = [(0, 0)] * self.jobs
        for worker in self._alive:
            runs[worker] = (len(order), len(order) + len(mine[worker]))
            order += mine[worker]
        return order, runs

    def _start(
        self,
        function: Callable[[Item], Any],
        items: Sequence[Item],
        runs: list[tuple[int, int]],
        weights: Sequence[float],
        starts: Sequence[int],
        again: Again | None,
    ) -> None:
        context = multiprocessing.get_context(_start_method())
        here = os.getcwd()
        with _started_outside_the_working_directory(context.get_start_method()):
            # The claims' lock starts multiprocessing's resource tracker where it spawns.
            claims = self._claims = _Claims(context, runs, weights, starts)
            for worker in range(self.jobs):
                # Each pipe made just before its worker starts, and the worker's ends closed
                # here at once: no other worker inherits them, so a worker's results end
                # (EOF) when it exits.
                results, sender = context.Pipe(duplex=False)
                receiver, orders = context.Pipe(duplex=False)
                process = context.Process(
                    target=_work,
                    args=(function, items, claims, worker, sender, receiver, here, again),
                    daemon=True,
                )
                process.start()
                sender.close()
                receiver.close()
                self._processes.append(process)
                self._results.append(results)
                self._orders.append(orders)
        self._alive = list(range(self.jobs))

    def _collect(self, items: Sequence[Item], lost: Callable[[Item, str], Result]) -> list[Result]:
        """The results of one batch, as the live workers send them, until each has said it is
        done or has exited."""
        done: dict[int, Result] = {}
        readers = {self._results[worker]: worker for worker in self._alive}
        while readers:
            for reader in wait(list(readers)):
                worker = readers[reader]
                try:
                    message = reader.recv()
                except (EOFError, OSError):  # that worker has exited
                    del readers[reader]
                    self._alive.remove(worker)
                    process = self._processes[worker]
                    process.join()
                    current = self._claims.current(worker)  # type: ignore[union-attr]
                    _account_for_dead(process, current, items, done, lost)
                    continue
                if message == _BATCH_DONE:
                    del readers[reader]
                    continue
                index, result = message
                done[index] = result
                self._owners[items[index]] = worker
        reason = "not checked: every worker process stopped"
        return [done[i] if i in done else lost(item, reason) for i, item in enumerate(items)]

    def close(self, at_once: bool = False) -> None:
        """Tell the workers to end, and wait for them; `at_once` (the batch was interrupted,
        they may be busy): end them."""
        for worker in self._alive:
            with contextlib.suppress(OSError):
                self._orders[worker].send(None)
        for process in self._processes:
            if not at_once:
                process.join(timeout=_END_SECONDS)
            if process.is_alive():
                process.terminate()
                process.join()
        for connection in (*self._results, *self._orders):
            connection.close()
        self._processes, self._results, self._orders, self._alive = [], [], [], []


def map_with_locality(
    function: Callable[[Item], Result],
    items: Sequence[Item],
    weights: Sequence[float],
    jobs: int,
    lost: Callable[[Item, str], Result],
) -> list[Result]:
    """`[function(item) for item in items]` on `jobs` worker processes, started for this batch
    alone (see `Workers.map`)."""
    with Workers(jobs) as workers:
        return workers.map(function, items, weights, lost)


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
