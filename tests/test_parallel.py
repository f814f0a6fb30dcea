"""`check`'s worker processes: every item done once, in order, and a dead worker costs only
the item it was on; workers kept for later batches do again what they did before."""

from __future__ import annotations

import gc
import multiprocessing
import os
import time
from functools import partial

import pytest

from jax_lsp.parallel import (
    _BATCH_DONE,
    Workers,
    _Claims,
    _work,
    group_starts,
    map_with_locality,
    share_out,
    split_runs,
)


def _square(value: int) -> int:
    return value * value


def _die_on_seven(value: int) -> int:
    if value == 7:
        os._exit(3)  # a worker killed mid-item (a crash in a C extension, the OOM killer)
    return value * value


def _lost(value: int, reason: str) -> int:
    return -1


@pytest.mark.parametrize(
    ("weights", "parts", "runs"),
    [
        ([1] * 10, 2, [(0, 5), (5, 10)]),
        ([5, 1, 1, 1, 1, 1], 2, [(0, 1), (1, 6)]),
        ([1, 1, 1], 4, [(0, 1), (1, 2), (2, 3), (3, 3)]),
        ([], 2, [(0, 0), (0, 0)]),
    ],
)
def test_runs_are_contiguous_and_balanced_by_weight(weights, parts, runs):
    assert split_runs(weights, parts) == runs


def test_groups_stay_whole_in_one_run_heaviest_first_to_the_lightest():
    groups = ["a", "b", "a", "c", "b", "a"]
    weights = [2, 3, 2, 1, 3, 2]
    order, runs = share_out(weights, groups, 2)
    # a (6) to the first run, b (6) to the second, then c (1) to the first: each in its order.
    assert [order[front:back] for front, back in runs] == [[0, 2, 5, 3], [1, 4]]


def test_a_group_heavier_than_a_share_is_cut_in_its_order():
    order, runs = share_out([1] * 6 + [2], ["big"] * 6 + ["small"], 2)
    # big (6) is more than half of 8: its first four items fill one run.
    assert [order[front:back] for front, back in runs] == [[0, 1, 2, 3], [4, 5, 6]]


def test_items_without_groups_are_split_in_contiguous_runs():
    assert share_out([1] * 10, [0] * 10, 2) == (list(range(10)), [(0, 5), (5, 10)])


def test_a_worker_done_takes_over_whole_groups_then_half_of_one():
    runs = [(0, 0), (0, 8)]
    groups = ["a"] * 4 + ["b"] * 2 + ["c"] * 2
    claims = _Claims(multiprocessing.get_context(), runs, [1] * 8, group_starts(groups, runs))
    assert claims.claim(1) == 0  # the second worker starts its run
    assert claims.claim(0) == 4  # the first takes b and c over, whole: half of what is left
    assert claims.claim(0) == 5
    assert [claims.claim(1) for _ in range(3)] == [1, 2, 3]
    assert claims.claim(1) == 6  # the second takes c back, whole
    assert claims.claim(0) == 7  # no group starts in what is left: its back half
    assert claims.claim(0) is None
    assert claims.claim(1) is None


def test_a_worker_done_takes_over_the_back_half_of_a_group():
    runs = [(0, 0), (0, 8)]
    claims = _Claims(multiprocessing.get_context(), runs, [1] * 8, group_starts([0] * 8, runs))
    assert claims.claim(1) == 0
    assert [claims.claim(0) for _ in range(3)] == [5, 6, 7]
    assert [claims.claim(1) for _ in range(4)] == [1, 2, 3, 4]


@pytest.mark.parametrize("jobs", [2, 3, 8])
def test_every_item_is_done_once_and_in_order(jobs: int):
    items = list(range(40))
    weights = [1 + (i % 7) for i in items]
    assert map_with_locality(_square, items, weights, jobs, _lost) == [i * i for i in items]


def test_grouped_items_are_each_done_once_and_in_order():
    items = list(range(60))
    with Workers(3) as workers:
        done = workers.map(
            _square, items, [1 + i % 5 for i in items], _lost, None, [i % 4 for i in items]
        )
    assert done == [i * i for i in items]


_DONE_HERE: dict[int, int] = {}  # in each worker: item -> times done there


def _counted(value: int) -> tuple[int, int]:
    _DONE_HERE[value] = _DONE_HERE.get(value, 0) + 1
    return value, _DONE_HERE[value]


def _evens_until_done_thrice(done: list[int]) -> list[int]:
    return [
        position for position, value in enumerate(done) if value % 2 == 0 and _DONE_HERE[value] < 3
    ]


def test_a_worker_out_of_items_does_again_those_it_is_asked_to_until_none():
    items = list(range(40))
    with Workers(2) as workers:
        done = workers.map(_counted, items, [1] * 40, _lost, None, None, _evens_until_done_thrice)
    # Each even item done three times where it was done first (the last result is kept).
    assert done == [(value, 3 if value % 2 == 0 else 1) for value in items]


def test_a_worker_is_asked_again_about_each_group_once_done_then_about_all():
    # `_work` itself, here: one worker's run of two groups, then the end of the batches.
    items = ["a1", "a2", "b1", "b2"]
    runs = [(0, 4)]
    claims = _Claims(multiprocessing.get_context(), runs, [1] * 4, group_starts("aabb", runs))
    assert claims.starts_group(2, 1)  # b starts
    assert not claims.starts_group(1, 0)
    assert claims.starts_group(3, 0)  # taken over from elsewhere
    asked: list[list[str]] = []

    def a1_once(done: list[str]) -> list[int]:
        asked.append(done)
        return [0] if len(asked) == 1 else []

    receiver, results = multiprocessing.Pipe(duplex=False)
    orders, sender = multiprocessing.Pipe(duplex=False)
    sender.send(None)  # no batch after this one
    try:
        _work(str.upper, items, claims, 0, results, orders, os.getcwd(), a1_once)
    finally:
        # What `_work` froze stays out of the collections, as what the suite's collection
        # made (tests/conftest.py): unfrozen, every later full collection would walk it again.
        gc.enable()
    sent = []
    while receiver.poll():
        sent.append(receiver.recv())
    # a's items once a is done (a1 again, then none), b's at the end, then all of them.
    assert asked == [["a1", "a2"], ["a1", "a2"], ["b1", "b2"], items]
    assert sent == [(0, "A1"), (1, "A2"), (0, "A1"), (2, "B1"), (3, "B2"), _BATCH_DONE]


def test_items_done_here_are_not_asked_again():
    with Workers(2, threshold=10) as workers:
        done = workers.map(
            _counted, [100, 102], [1, 1], _lost, None, None, _evens_until_done_thrice
        )
    assert done == [(100, 1), (102, 1)]


def test_a_dead_worker_loses_only_its_item():
    items = list(range(20))
    results = map_with_locality(_die_on_seven, items, [1] * 20, 2, _lost)
    assert results == [-1 if i == 7 else i * i for i in items]


def _pid(value: int) -> tuple[int, int]:
    time.sleep(0.01)  # long enough for both workers to start before the items run out
    return value, os.getpid()


def _pid_once_both_started(folder: str, value: int) -> tuple[int, int]:
    """`_pid`, but a worker's first item of the batch waits until the other worker has
    taken one (each marks `folder` when it does): both workers take part, and neither is done
    before the other starts (a worker done with its run takes the others' items), however
    late a loaded machine runs one of them."""
    mark = os.path.join(folder, str(os.getpid()))
    if not os.path.exists(mark):
        open(mark, "w").close()
        deadline = time.monotonic() + 60
        while len(os.listdir(folder)) < 2 and time.monotonic() < deadline:
            time.sleep(0.005)
    return value, os.getpid()


def test_a_later_batch_goes_to_the_worker_that_did_each_item(tmp_path):
    items = list(range(40))
    first_batch, second_batch = tmp_path / "first", tmp_path / "second"
    first_batch.mkdir()
    second_batch.mkdir()
    with Workers(2) as workers:
        first = workers.map(
            partial(_pid_once_both_started, str(first_batch)), items, [1] * 40, _lost
        )
        assert [value for value, _ in first] == items
        by_worker: dict[int, list[int]] = {}
        for value, pid in first:
            by_worker.setdefault(pid, []).append(value)
        assert len(by_worker) == 2  # both workers took part
        again = [done[len(done) // 2] for done in by_worker.values()]  # one item of each
        second = workers.map(
            partial(_pid_once_both_started, str(second_batch)), again, [1] * len(again), _lost
        )
    assert second == [first[i] for i in again]  # each item where it was done before


def test_a_later_batch_gives_each_group_whole_to_the_worker_that_did_most_of_it():
    workers = Workers(2)
    workers._alive = [0, 1]
    workers._owners = {"a1": 0, "a2": 1, "a3": 1, "b1": 0, "c1": 1}
    items = ["a1", "b1", "a2", "new", "a3", "c1", "b2"]
    groups = ["a", "b", "a", "d", "a", "c", "b"]
    order, runs = workers._by_owner(items, [1] * 7, groups)
    mine = [[items[i] for i in order[front:back]] for front, back in runs]
    # a to worker 1 (two of its three), b where b1 was done; the new group d to the lighter.
    assert mine == [["b1", "b2", "new"], ["a1", "a2", "a3", "c1"]]


def test_a_worker_dead_in_one_batch_leaves_the_next_to_the_others():
    items = list(range(20))
    with Workers(2) as workers:
        first = workers.map(_die_on_seven, items, [1] * 20, _lost)
        assert first == [-1 if i == 7 else i * i for i in items]
        second = workers.map(_square, items, [1] * 20, _lost)
    assert second == [i * i for i in items]


def test_few_items_before_the_workers_start_are_done_here():
    with Workers(2, threshold=10) as workers:
        assert workers.map(_pid, [1, 2], [1, 1], _lost) == [(1, os.getpid()), (2, os.getpid())]
        assert not workers.started


def _die_on_odd(value: int) -> int:
    if value % 2:
        os._exit(3)
    return value * value


def test_a_batch_after_every_worker_died_starts_new_ones():
    with Workers(2) as workers:
        first = workers.map(_die_on_odd, [1, 3], [1, 1], _lost)
        assert first == [-1, -1]
        assert workers.map(_square, list(range(6)), [1] * 6, _lost) == [i * i for i in range(6)]
