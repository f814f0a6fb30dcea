"""Objects built in traced code from traced values: their attributes hold what the
constructor stored (`self.low = low` in `__init__`, a dataclass field), reading a property runs
its getter on them, and a method called on them or a function given them sees the same. Each
program runs under real JAX: the flagged ones raise, the clean ones run."""

from __future__ import annotations

import ast
import textwrap

import pytest

from jax_lsp.analysis.constructors import class_constructor
from jax_lsp.analysis.imports import Resolver, import_bindings
from tests.conftest import findings_of
from tests.runtime import run_snippet

jax = pytest.importorskip("jax")

_BAND = """
import jax
import jax.numpy as jnp


class Band:
    def __init__(self, low, high):
        self.low = low
        self.high = high
"""

_ROTATION = """
import jax
import jax.numpy as jnp
import numpy as np


class Rotation:
    def __init__(self, angle):
        self.angle = angle

    @property
    def matrix(self):
        c, s = np.cos(self.angle), np.sin(self.angle)  # flagged where the angle is traced
        return jnp.array([[c, -s], [s, c]])

    def turns(self):
        return int(self.angle / (2 * np.pi))  # flagged where the angle is traced
"""

_WINDOW = """
import dataclasses

import jax
import jax.numpy as jnp


@dataclasses.dataclass
class Window:
    size: int
    scale: float = 1.0
"""

# (name, program, the lines (by their text) flagged with their code, JAX's error or None)
CASES = [
    (
        "init-branch",
        _BAND
        + """
@jax.jit
def flip_below(x, low):
    band = Band(low, 1.0)
    if band.low > 0:
        return x
    return -x

flip_below(jnp.ones(2), 0.5)
""",
        [("JAX701", "if band.low > 0:")],
        "TracerBoolConversionError",
    ),
    (
        "init-static-attribute",
        _BAND
        + """
@jax.jit
def flip_above(x, low):
    band = Band(low, 1.0)
    if band.high > 0:  # a Python float: the branch is taken at trace time
        return x * band.low
    return -x

result = flip_above(jnp.ones(2), 0.5)
""",
        [],
        None,
    ),
    (
        "keyword-mapping",
        _BAND
        + """
@jax.jit
def flip_mapped(x, low):
    limits = {"low": low, "high": 1.0}
    band = Band(**limits)
    if band.low > 0:
        return x
    return -x

flip_mapped(jnp.ones(2), 0.5)
""",
        [("JAX701", "if band.low > 0:")],
        "TracerBoolConversionError",
    ),
    (
        "traced-keywords",
        """
import jax
import jax.numpy as jnp


class Limits:
    def __init__(self, *, low, high):
        self.low = low
        self.high = high


@jax.jit
def flip_limited(x, **given):
    limits = Limits(**given)
    if limits.low > 0:
        return x
    return -x

flip_limited(jnp.ones(2), low=0.5, high=1.0)
""",
        [("JAX701", "if limits.low > 0:")],
        "TracerBoolConversionError",
    ),
    (
        "dataclass-size",
        _WINDOW
        + """
@jax.jit
def zeros_of(n):
    window = Window(size=n)
    return jnp.zeros(window.size)

zeros_of(3)
""",
        [("JAX803", "return jnp.zeros(window.size)")],
        "TypeError",
    ),
    (
        "dataclass-static-size",
        _WINDOW
        + """
@jax.jit
def scaled(x):
    window = Window(3, scale=x)
    return jnp.zeros(window.size) + window.scale

result = scaled(2.0)
""",
        [],
        None,
    ),
    (
        "property-traced",
        _ROTATION
        + """
@jax.jit
def rotate(v, angle):
    return Rotation(angle).matrix @ v

rotate(jnp.ones(2), 0.3)
""",
        [("JAX703", "c, s = np.cos"), ("JAX703", "c, s = np.cos")],
        "TracerArrayConversionError",
    ),
    (
        "property-python",
        _ROTATION
        + """
@jax.jit
def rotate_fixed(v):
    return Rotation(0.3).matrix @ v

result = rotate_fixed(jnp.ones(2))
""",
        [],
        None,
    ),
    (
        "method-on-object",
        _ROTATION
        + """
@jax.jit
def count_turns(angle):
    rotation = Rotation(angle)
    return rotation.turns()

count_turns(7.0)
""",
        [("JAX703", "return int(self.angle")],
        "ConcretizationTypeError",
    ),
    (
        "object-passed-on",
        _ROTATION
        + """
def describe(rotation):
    return rotation.matrix[0, 0]

@jax.jit
def first_entry(angle):
    return describe(Rotation(angle))

first_entry(0.3)
""",
        [("JAX703", "c, s = np.cos"), ("JAX703", "c, s = np.cos")],
        "TracerArrayConversionError",
    ),
]


@pytest.mark.parametrize(
    ("program", "expected", "error"), [case[1:] for case in CASES], ids=[case[0] for case in CASES]
)
def test_constructed_objects_agree_with_jax(program: str, expected: list, error: str | None):
    source = textwrap.dedent(program)
    lines = source.splitlines()
    got = sorted((finding.code, lines[finding.line].strip()) for finding in findings_of(source))
    assert len(got) == len(expected), got
    for (code, text), (wanted, start) in zip(got, sorted(expected), strict=True):
        assert (code, text[: len(start)]) == (wanted, start)
    outcome = run_snippet(source)
    if error is None:
        assert outcome.error is None
    else:
        assert type(outcome.error).__name__ == error


def test_a_class_kept_across_edits_is_a_constructor_only_while_its_imports_make_it_one() -> None:
    # The class's own part is memoised on its node (kept while an edit is elsewhere); what
    # its decorator resolves to is read again: the same node under another import is not a
    # dataclass.
    tree = ast.parse("@dataclass\nclass Pair:\n    low: float\n    high: float\n")
    node = tree.body[0]
    assert isinstance(node, ast.ClassDef)
    dataclasses = Resolver(import_bindings(ast.parse("from dataclasses import dataclass").body))
    elsewhere = Resolver(import_bindings(ast.parse("from mylib import dataclass").body))
    first = class_constructor(node, dataclasses)
    assert first is not None and first.fields == ("low", "high")
    assert class_constructor(node, elsewhere) is None
    assert class_constructor(node, dataclasses) == first


def test_a_member_added_to_a_class_changes_what_its_kept_init_is_known_to_store() -> None:
    # What each member writes is memoised on the member's node; a new parse of the class
    # shares the untouched `__init__`, and a method added beside it that assigns `low` again
    # means `low` may not hold what the constructor stored.
    resolver = Resolver({})
    before = ast.parse(
        "class Band:\n"
        "    def __init__(self, low, high):\n"
        "        self.low = low\n"
        "        self.high = high\n"
    )
    node = before.body[0]
    assert isinstance(node, ast.ClassDef)
    first = class_constructor(node, resolver)
    assert first is not None and first.attributes == (("low", "low"), ("high", "high"))
    reset = ast.parse("def reset(self):\n    self.low = 0.0\n").body[0]
    edited = ast.ClassDef(
        name=node.name, bases=[], keywords=[], body=[node.body[0], reset], decorator_list=[]
    )
    second = class_constructor(edited, resolver)
    assert second is not None and second.attributes == (("high", "high"),)
