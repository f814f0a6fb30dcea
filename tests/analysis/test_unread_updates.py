"""`unread_self_updates`: the self-updates `x = x.at[i].set(v)` whose result nothing reads
(JAX203's functions that rebind a parameter and return nothing)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from jax_lsp.analysis.updates import unread_loop_updates, unread_self_updates


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


def _unread_loop_lines(source: str) -> list[int]:
    """The lines `unread_loop_updates` reports for the first loop of the source's first
    statement (a function: its body is the scope; a loop: itself, as at module level)."""
    first = ast.parse(textwrap.dedent(source)).body[0]
    scope = first.body if isinstance(first, ast.FunctionDef) else [first]
    loop = next(node for node in ast.walk(first) if isinstance(node, ast.For))
    return [statement.lineno for statement in unread_loop_updates(loop, scope)]


def test_an_updated_loop_variable_nothing_reads_is_unread():
    source = """
    for param, gradient in zip(params, grads):
        param -= learning_rate * gradient
    """
    assert _unread_loop_lines(source) == [3]


def test_a_loop_variable_read_only_before_its_update_is_unread():
    source = """
    def step(params, grads):
        for p, g in zip(params, grads):
            print(p)
            p -= g
        return params
    """
    assert _unread_loop_lines(source) == [5]


@pytest.mark.parametrize(
    "source",
    [
        # used later in the pass
        """
        for p, g in zip(params, grads):
            p -= g
            new.append(p)
        """,
        # read after the loop (the last element's update)
        """
        def last(xs):
            for x in xs:
                x += 1
            return x
        """,
        # an outer loop reads it again before the inner loop rebinds it
        """
        def f(xs):
            for epoch in range(3):
                print(x)
                for x in xs:
                    x += 1
        """,
        # an inner loop reads the updated value on its next pass
        """
        for x in xs:
            for k in range(3):
                y = x * 2
                x += y
        """,
        # a nested scope sees it
        """
        for x in xs:
            x += 1
            callbacks.append(lambda: x)
        """,
        # not the loop's variable
        """
        for p in params:
            total += p
        """,
    ],
)
def test_a_loop_variable_read_after_its_update_is_not_unread(source: str):
    assert _unread_loop_lines(source) == []
