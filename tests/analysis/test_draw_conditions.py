"""When a function reads its key parameter (`key_consumers.draw_conditions`), and the haiku
functions and modules that draw from the key stream (`KeyFacts.rng_stream_drawers`)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.analysis.key_calls import KeyHelpers, helper_key, read_conditions
from jax_lsp.analysis.key_consumers import (
    FALSY,
    IS_NONE,
    NOT_NONE,
    TRUTHY,
    draw_conditions,
)
from jax_lsp.analysis.model import ModuleModel


def _function(source: str) -> ast.FunctionDef:
    return ast.parse(textwrap.dedent(source)).body[0]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            """
            def f(x, key, train):
                if train:
                    x = x * normal(key, x.shape)
                return x
            """,
            {("train", TRUTHY)},
        ),
        (
            """
            def f(x, key, deterministic=False):
                if not deterministic:
                    x = x * normal(key, x.shape)
                return x
            """,
            {("deterministic", FALSY)},
        ),
        (
            """
            def f(x, key, deterministic, rate):
                if deterministic or rate == 0.0:
                    return x
                return x * normal(key, x.shape)
            """,
            {("deterministic", FALSY)},
        ),
        (
            """
            def f(x, key, train, noise=None):
                if train and noise is None:
                    noise = normal(key, x.shape)
                return x
            """,
            {("train", TRUTHY), ("noise", IS_NONE)},
        ),
        (
            """
            def f(x, key, cache):
                if cache is not None:
                    return cache
                y = normal(key, x.shape) if x.ndim else x
                return y
            """,
            {("cache", IS_NONE)},
        ),
        (
            """
            def f(x, key, mask):
                return x if mask is None else x * normal(key, x.shape)
            """,
            {("mask", NOT_NONE)},
        ),
    ],
)
def test_conditions_of_every_read(source, expected):
    assert draw_conditions(_function(source), "key") == frozenset(expected)


@pytest.mark.parametrize(
    "source",
    [
        # One read outside the test: the key may be read whatever the flag.
        """
        def f(x, key, train):
            if train:
                x = x * normal(key, x.shape)
            return x + normal(key, x.shape)
        """,
        # The flag rebound before its test: the test says nothing of what was passed.
        """
        def f(x, key, train, rate):
            train = train and rate > 0
            if train:
                x = x * normal(key, x.shape)
            return x
        """,
        # An `or` that holds tells nothing of either side.
        """
        def f(x, key, train, noisy):
            if train or noisy:
                x = x * normal(key, x.shape)
            return x
        """,
        # A test of something that is not a parameter.
        """
        def f(x, key):
            if x.ndim > 1:
                x = x * normal(key, x.shape)
            return x
        """,
    ],
)
def test_no_condition(source):
    assert draw_conditions(_function(source), "key") == frozenset()


def _drawers(source: str) -> frozenset[str]:
    return ModuleModel(Document(textwrap.dedent(source))).rng_stream_drawers


def test_stream_drawers_follow_the_module_functions_and_classes():
    drawers = _drawers(
        """
        import haiku as hk
        import jax

        class Noisy(hk.Module):
            def __call__(self, x):
                return x + jax.random.normal(hk.next_rng_key(), x.shape)

        def block(x):
            return Noisy()(hk.Linear(3)(x))

        def forward(x):
            return block(x)

        def pure(x):
            return hk.nets.MLP([4, 2])(x)
        """
    )
    assert drawers == {"Noisy", "block", "forward"}


def test_no_stream_drawers_without_haiku():
    assert not _drawers(
        """
        def next_rng_key():
            return 0

        def forward(x):
            return next_rng_key()
        """
    )


HANDED_ON = """
import jax


def noisy(x, key, train):
    if train:
        return x + jax.random.normal(key, x.shape)
    return x


def forward(x, key, train):
    return noisy(x, key, train)


def step(x, key):
    a = forward(x, key, False)
    b = forward(x, key, True)
    c = forward(x, key, train=False)
    return a + b + c
"""


def test_the_conditions_a_key_is_read_under_are_found_once_per_model():
    """`forward` reads its key only when its `train` is true (through `noisy`): found once for
    the model, not again at each call of `forward`."""
    model = ModuleModel(Document(HANDED_ON))
    helpers = model.key_helpers
    assert isinstance(helpers, KeyHelpers)
    forward = model.functions["forward"].node
    found = read_conditions(forward, "key", model.functions, helpers)
    assert found == {("train", TRUTHY)}
    assert helpers.conditions[forward, "key"] is found
    step = model.functions["step"].node
    calls = [node for node in ast.walk(step) if isinstance(node, ast.Call)]
    given = [helper_key(call, model.functions, helpers) for call in calls]
    assert [ast.unparse(arg) if arg is not None else None for arg in given] == [None, "key", None]
    assert read_conditions(forward, "key", model.functions, helpers) is found
    # While the helpers are being found (a plain dict), nothing is kept.
    assert read_conditions(forward, "key", model.functions, dict(helpers)) == found
