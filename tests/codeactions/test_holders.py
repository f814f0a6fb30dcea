"""JAX201-JAX203 on an object's field (`p.vel[i] = v`, a discarded `p.vel.at[i].set(v)`): the
fix writes the field the way the object's class allows, and the fixed program computes what
its author meant under real JAX. Where the class is not known, or the object is `self` of a
class that cannot be written, no fix is offered: a wrong one is worse than none."""

from __future__ import annotations

from pathlib import Path

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.diagnostics.inplace import RULES as INPLACE_RULES
from jax_lsp.engine import analyze
from tests.codeactions.helpers import fixed_and_run, source

pytest.importorskip("jax")

# Programs written by testers in the new-user trials.
TRIALS = Path(__file__).parent.parent / "fixtures" / "trials"


def _findings(text: str):
    return analyze(Document(text), INPLACE_RULES).findings


# (id, program, text the fixed program must hold, check run after the fixed program)
WRITTEN = [
    (
        "named-tuple-param",
        (TRIALS / "p31_namedtuple_update.py").read_text(),
        "p = p._replace(vel=p.vel.at[i].add(dv))",
        # The tester's intent: the kick reaches the velocity, and the position moves by it.
        "assert p.vel.tolist() == [1.0, 0.0, 0.0]\nassert p.pos.tolist() == [1.0, 0.0, 0.0]",
    ),
    (
        "frozen-dataclass-import-added",
        """
        from dataclasses import dataclass
        import jax
        import jax.numpy as jnp

        @dataclass(frozen=True)
        class State:
            vel: jax.Array
            step: int = 0

        state = State(jnp.zeros(3))
        state.vel.at[1].set(2.0)
        """,
        "import dataclasses\n",
        "assert state.vel.tolist() == [0.0, 2.0, 0.0] and state.step == 0",
    ),
    (
        "flax-struct",
        """
        import jax
        import jax.numpy as jnp
        from flax import struct

        class State(struct.PyTreeNode):
            vel: jax.Array

        state = State(vel=jnp.zeros(2))
        for _ in range(2):
            state.vel.at[0].add(1.0)
        """,
        "    state = state.replace(vel=state.vel.at[0].add(1.0))",
        "assert state.vel.tolist() == [2.0, 0.0]",
    ),
    (
        "equinox-module-import-added",
        """
        import jax
        import jax.numpy as jnp
        from equinox import Module

        class Body(Module):
            vel: jax.Array

        def pushed(body: Body):  # the class known from the annotation
            body.vel.at[1].set(3.0)
            return body

        body = pushed(Body(jnp.zeros(2)))
        """,
        "body = equinox.tree_at(lambda m: m.vel, body, body.vel.at[1].set(3.0))",
        "assert body.vel.tolist() == [0.0, 3.0]",
    ),
    (
        "mutable-dataclass",
        """
        import dataclasses
        import jax
        import jax.numpy as jnp

        @dataclasses.dataclass
        class Buffer:
            data: jax.Array
            writes: int = 0

        def store(buffer, value):
            buffer.data.at[0].set(value)  # the caller's object is updated: no rebinding
            buffer.writes += 1

        buffer = Buffer(jnp.zeros(2))
        store(buffer, 5.0)
        """,
        "buffer.data = buffer.data.at[0].set(value)",
        "assert buffer.data.tolist() == [5.0, 0.0] and buffer.writes == 1",
    ),
]


@pytest.mark.parametrize(
    ("program", "expected", "check"), [case[1:] for case in WRITTEN], ids=[c[0] for c in WRITTEN]
)
def test_field_written_the_way_its_class_allows(program, expected, check):
    fixed_and_run(source(program), _findings, expected, check)


# Programs whose finding must come without a fix: (id, program).
UNFIXABLE = [
    (
        "equinox-self",  # rebinding `self` would not reach the caller's module
        """
        import jax
        import jax.numpy as jnp
        import equinox as eqx

        class Body(eqx.Module):
            vel: jax.Array

            def kicked(self):
                self.vel.at[0].set(1.0)
                return self
        """,
    ),
    (
        "class-not-known",  # `state` could be a NamedTuple, a frozen dataclass, anything
        """
        import jax.numpy as jnp
        from somewhere import make_state

        state = make_state()
        state.vel.at[0].set(1.0)
        """,
    ),
    (
        "free-name",  # `buf = ...` in `put` would make `buf` local: UnboundLocalError
        """
        import jax.numpy as jnp

        buf = jnp.zeros(3)

        def put(i, v):
            buf[i] = v
            return buf
        """,
    ),
    (
        "named-tuple-property",  # not a field: `_replace(total=...)` raises
        """
        from typing import NamedTuple
        import jax
        import jax.numpy as jnp

        class Pair(NamedTuple):
            a: jax.Array

            @property
            def doubled(self):
                return 2 * self.a

        pair = Pair(jnp.zeros(2))
        pair.doubled.at[0].set(1.0)
        """,
    ),
]


@pytest.mark.parametrize("program", [c[1] for c in UNFIXABLE], ids=[c[0] for c in UNFIXABLE])
def test_no_fix_without_a_known_right_rewrite(program):
    findings = [f for f in _findings(source(program)) if f.code in ("JAX201", "JAX203")]
    assert findings, "the rule should flag the update"
    assert all(f.fix is None and not f.alternatives for f in findings)
