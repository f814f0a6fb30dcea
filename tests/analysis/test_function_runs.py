"""How often a module function runs, by the module's own calls (`ModuleModel.function_runs`)."""

from __future__ import annotations

import textwrap

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.analysis.model import ModuleModel

_FUNCTIONS = """
import jax


def evaluate(x):
    return x


def train_and_evaluate(x):
    return evaluate(x)


def step(x):
    return x


def tick(x):
    return x


def helper(x):
    return x


@jax.jit
def traced(x):
    return helper(x)


def handed_on(x):
    return x


def library(x):
    return step(x)
"""


@pytest.mark.parametrize(
    ("calls", "name", "expected"),
    [
        # Once from main, through a function main calls once.
        ("def main():\n    train_and_evaluate(1)\n", "evaluate", "once"),
        # A loop anywhere on the chain up to top-level code.
        (
            "def main():\n    for _ in range(3):\n        train_and_evaluate(1)\n",
            "evaluate",
            "repeatedly",
        ),
        ("results = [tick(i) for i in range(3)]\n", "tick", "repeatedly"),
        ("tick(1)\ntick(2)\n", "tick", "repeatedly"),
        ("if __name__ == '__main__':\n    tick(1)\n", "tick", "once"),
        # Called from a trace: as often as that compiles, not judged.
        ("traced(1)\n", "helper", None),
        # Named without a call (a callback): not judged.
        ("callbacks = [handed_on]\nhanded_on(1)\n", "handed_on", None),
        # Called only from a function nothing here calls (another module may, under jit),
        # even when top-level code calls it too.
        ("", "step", None),
        ("step(1)\n", "step", None),
        ("", "evaluate", None),
    ],
)
def test_function_runs(calls: str, name: str, expected: str | None) -> None:
    text = textwrap.dedent(_FUNCTIONS) + "\n\n" + calls
    assert ModuleModel.of(Document(text)).function_runs(name) == expected
