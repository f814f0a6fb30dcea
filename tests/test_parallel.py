"""`check`'s worker processes: every item done once, in order, and a dead worker costs only
the item it was on."""

from __future__ import annotations

import os

import pytest

from jax_lsp.parallel import map_with_locality, split_runs


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


@pytest.mark.parametrize("jobs", [2, 3, 8])
def test_every_item_is_done_once_and_in_order(jobs: int):
    items = list(range(40))
    weights = [1 + (i % 7) for i in items]
    assert map_with_locality(_square, items, weights, jobs, _lost) == [i * i for i in items]


def test_a_dead_worker_loses_only_its_item():
    items = list(range(20))
    results = map_with_locality(_die_on_seven, items, [1] * 20, 2, _lost)
    assert results == [-1 if i == 7 else i * i for i in items]
