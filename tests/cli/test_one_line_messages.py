"""Concise and full output keep each finding on one line when its message quotes a multi-line
expression (tools read concise output line by line); JSON keeps the message as the
rule wrote it. JAX101 on an f-string formatting a tracer with a spec says what really happens:
a TypeError at trace time, not a printed tracer."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from tests.cli.helpers import jax_lsp
from tests.runtime import run_snippet

MULTI_LINE_IF = textwrap.dedent(
    """\
    import jax


    @jax.jit
    def step(x):
        if (x.sum()
                > 0):
            x = x + 1
        return x
    """
)
FORMAT_SPEC = textwrap.dedent(
    """\
    import jax
    import jax.numpy as jnp


    @jax.jit
    def step(w):
        loss = jnp.sum(w**2)
        print(f"loss={loss:.3f} w={w}")
        print(f"loss={loss!r:>20}")
        return w * 0.5


    step(jnp.ones(2))
    """
)


def test_concise_output_is_one_line_per_finding(tmp_path: Path):
    (tmp_path / "a.py").write_text(MULTI_LINE_IF)
    run = jax_lsp("check", "--output-format", "concise", "--quiet", "a.py", cwd=tmp_path)
    assert run.stdout.splitlines() == [
        "a.py:6:5: error: JAX701 [*] `if` on the traced value `x.sum() > 0` raises "
        "TracerBoolConversionError (ValueError if it has more than one element) in `step` "
        "(traced by `jax.jit`): it has no concrete value "
        "while tracing. Instead, use `jnp.where(cond, a, b)` or `lax.cond`; or make it static "
        "(`static_argnames`)"
    ]


def test_full_output_keeps_the_finding_line_whole(tmp_path: Path):
    (tmp_path / "a.py").write_text(MULTI_LINE_IF)
    run = jax_lsp("check", "--output-format", "full", "a.py", cwd=tmp_path)
    headline = next(line for line in run.stdout.splitlines() if "JAX701" in line)
    assert headline.startswith("a.py:6:5: error: JAX701")
    assert headline.endswith("`static_argnames`)")


def test_json_keeps_the_message_as_written(tmp_path: Path):
    (tmp_path / "a.py").write_text(MULTI_LINE_IF)
    (row,) = json.loads(jax_lsp("check", "--output-format", "json", "a.py", cwd=tmp_path).stdout)
    assert "`x.sum()\n            > 0`" in row["message"]


def test_format_spec_on_a_tracer_is_reported_as_the_type_error_it_raises(tmp_path: Path):
    (tmp_path / "a.py").write_text(FORMAT_SPEC)
    rows = json.loads(jax_lsp("check", "--output-format", "json", "a.py", cwd=tmp_path).stdout)
    messages = {row["location"]["row"]: row["message"] for row in rows}
    assert set(messages) == {8, 9}
    assert "formats the traced value `loss` with the format spec `.3f`" in messages[8]
    assert "raises TypeError at trace time" in messages[8]
    assert 'jax.debug.print("... {:.3f}", x)' in messages[8]
    # `!r` formats the tracer's text, which takes a spec: it prints the tracer.
    assert "prints tracer objects" in messages[9] and "TypeError" not in messages[9]


def test_what_the_messages_say_is_what_jax_does():
    first = run_snippet(FORMAT_SPEC.replace('    print(f"loss={loss!r:>20}")\n', ""))
    assert isinstance(first.error, TypeError) and "format string" in str(first.error)
    second = run_snippet(FORMAT_SPEC.replace('    print(f"loss={loss:.3f} w={w}")\n', ""))
    assert second.error is None and "Tracer" in second.stdout
    advised = FORMAT_SPEC.replace(
        'print(f"loss={loss:.3f} w={w}")', 'jax.debug.print("loss={:.3f}", loss)'
    ).replace('    print(f"loss={loss!r:>20}")\n', "")
    outcome = run_snippet(advised)
    assert outcome.error is None
