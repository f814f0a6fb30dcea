"""JAX602 through static methods: one that consumes its key, itself or by passing it to
another helper, consumes it at each call, through its class (`Noise.sample(key)`) or from a
method of the class (`self.sample(key)`); JAX's checker rejects the second call, and
accepts the clean programs."""

from __future__ import annotations

import textwrap

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.diagnostics.random import PrngKeyReuse
from jax_lsp.engine import analyze
from tests.runtime import run_snippet

DRAW = """
import jax


def draw(key):
    return jax.random.normal(key, (3,))


"""

REUSED = {
    "passed on, through the class": """
        class Noise:
            @staticmethod
            def sample(key):
                return draw(key)


        def both(key):
            return Noise.sample(key), Noise.sample(key)
        """,
    "passed to another static method": """
        class Noise:
            @staticmethod
            def base(key):
                return jax.random.normal(key, (3,))

            @staticmethod
            def sample(key):
                return Noise.base(key)


        def both(key):
            return Noise.sample(key), Noise.sample(key)
        """,
    "drawn, through self": """
        class Model:
            @staticmethod
            def sample(key):
                return jax.random.normal(key, (3,))

            def pair(self, key):
                return self.sample(key), self.sample(key)
        """,
    "passed on, through self": """
        class Model:
            @staticmethod
            def sample(key):
                return draw(key)

            def pair(self, key):
                return self.sample(key), self.sample(key)
        """,
}

CLEAN = {
    "split between the calls": """
        class Model:
            @staticmethod
            def sample(key):
                return draw(key)

            def pair(self, key):
                first, second = jax.random.split(key)
                return self.sample(first), self.sample(second)
        """,
    "a static method that does not draw": """
        class Model:
            @staticmethod
            def shape_of(key):
                return key.shape

            def pair(self, key):
                return self.shape_of(key), self.shape_of(key)
        """,
    "an instance method of the name, not the static one": """
        class Noise:
            @staticmethod
            def sample(key):
                return draw(key)


        class Model:
            def sample(self, key):
                return key

            def pair(self, key):
                return self.sample(key), self.sample(key)
        """,
}


def _reuses(body: str) -> list[int]:
    text = DRAW + textwrap.dedent(body)
    return [f.span.start.line for f in analyze(Document(text), (PrngKeyReuse,)).findings]


@pytest.mark.parametrize("body", REUSED.values(), ids=REUSED.keys())
def test_a_key_given_twice_to_a_static_method_that_consumes_it_is_reused(body: str):
    assert len(_reuses(body)) == 1


@pytest.mark.parametrize("body", CLEAN.values(), ids=CLEAN.keys())
def test_a_static_method_given_distinct_keys_or_drawing_nothing_is_clean(body: str):
    assert _reuses(body) == []


# How each program is run: the function or method giving the key twice.
RUNS = ("both(jax.random.key(0))", "Model().pair(jax.random.key(0))")


@pytest.mark.slow  # programs run under JAX's key-reuse checker
@pytest.mark.parametrize(
    ("body", "reused"),
    [*((body, True) for body in REUSED.values()), *((body, False) for body in CLEAN.values())],
    ids=[*REUSED, *CLEAN],
)
def test_jax_checker_agrees(body: str, reused: bool):
    import jax
    from jax.errors import KeyReuseError

    text = DRAW + textwrap.dedent(body)
    run = next(run for run in RUNS if run.partition("(")[0] in text)
    with jax.debug_key_reuse(True):
        outcome = run_snippet(text, run)
    assert isinstance(outcome.error, KeyReuseError) if reused else outcome.error is None
