"""`unread_self_updates`: the self-updates `x = x.at[i].set(v)` whose result nothing reads
(JAX203's functions that rebind a parameter and return nothing)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from jax_lsp.analysis.updates import unread_self_updates


def _unread_lines(source: str) -> list[int]:
    function = ast.parse(textwrap.dedent(source)).body[0]
    assert isinstance(function, ast.FunctionDef)
    return [statement.lineno for statement in unread_self_updates(function)]


def test_a_rebound_parameter_never_returned_is_unread():
    source = """
    def double_all(a):
        for i in range(a.size):
            a = a.at[i].set(2 * a[i])
    """
    assert _unread_lines(source) == [4]


@pytest.mark.parametrize(
    "source",
    [
        # returned after the loop
        """
        def f(a):
            for i in range(3):
                a = a.at[i].set(0.0)
            return a
        """,
        # read by later code
        """
        def f(a):
            a = a.at[0].set(1.0)
            print(a)
        """,
        # a while condition reads it again after each pass
        """
        def f(a):
            while a[0] < 10:
                a = a.at[0].add(1)
            return 0
        """,
        # a nested scope sees it
        """
        def f(a):
            a = a.at[0].set(1.0)
            return lambda: a
        """,
        # declared global: the update outlives the function
        """
        def f():
            global buffer
            buffer = buffer.at[0].set(1.0)
        """,
        # augmented later: `a += 1` reads it
        """
        def f(a):
            a = a.at[0].set(1.0)
            a += 1
            return None
        """,
    ],
)
def test_an_update_something_reads_is_not_reported(source: str):
    assert _unread_lines(source) == []
