"""JAX701's range: from the `if` / `elif` / `while` / `assert` keyword to the end of its
condition (a cursor on the keyword gets the lightbulb), never the block below it."""

from __future__ import annotations

from tests.codeactions.helpers import source
from tests.conftest import findings_of

PROGRAM = source(
    """
    import jax

    @jax.jit
    def f(x, y):
        if x > 0:
            y = y * 2
        elif (x <
              -1):
            y = y + 1
        while y > 10:
            y = y - 1
        assert x > y, "ordered"
        return y if y > 0 else -y
    """
)


def underlined(text: str) -> list[str]:
    lines = text.split("\n")
    found = []
    for finding in findings_of(text, ("JAX701",)):
        start, end = finding.span.start, finding.span.end
        if start.line == end.line:
            found.append(lines[start.line][start.column : end.column])
        else:
            found.append(lines[start.line][start.column :] + "|" + lines[end.line][: end.column])
    return found


def test_statements_are_underlined_from_their_keyword_to_the_condition():
    assert underlined(PROGRAM) == [
        "if x > 0",
        "elif (x <|          -1",  # the condition ends inside its parentheses
        "while y > 10",
        "assert x > y",
        "y > 0",  # a conditional expression: its condition
    ]
