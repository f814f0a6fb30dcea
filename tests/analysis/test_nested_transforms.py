"""Transformations applied together (`jax.jit(jax.vmap(f))`): the function is traced by
every one of them, and the jit among them compiles the trace and reuses it."""

from __future__ import annotations

import textwrap
from pathlib import Path

from jax_lsp.config import Settings
from jax_lsp.engine import check_source
from jax_lsp.workspace import Workspace

SAMPLING = textwrap.dedent(
    """
    import jax

    _TEMPERATURE = 1.0


    def set_temperature(t):
        global _TEMPERATURE
        _TEMPERATURE = t


    def sample_token(key, logits):
        return jax.random.categorical(key, logits / _TEMPERATURE)
    """
).lstrip("\n")


def check(text: str, path: str = "sampling.py", root: Path | None = None):
    workspace = Workspace(str(root)) if root is not None else None
    return check_source(textwrap.dedent(text).lstrip("\n"), path, Settings(), workspace)


def test_a_global_rebound_is_stale_under_a_jit_of_a_vmap():
    analysis = check(SAMPLING + "\n\nsample = jax.jit(jax.vmap(sample_token, in_axes=(0, None)))\n")
    [finding] = [f for f in analysis.findings if f.code == "JAX102"]
    assert "traced by `jax.jit(jax.vmap(...))`" in finding.message
    [related] = finding.related
    assert related.message == "`jax.jit(jax.vmap(...))` traces `sample_token` here"
    assert (related.span.start.line + 1, related.span.start.column) == (15, 9)  # the jit


def test_a_vmap_alone_retraces_and_is_never_stale():
    analysis = check(SAMPLING + "\n\nsample = jax.vmap(sample_token, in_axes=(0, None))\n")
    assert [f.code for f in analysis.findings] == []


def test_the_jit_around_a_vmap_in_another_module_is_named_there(tmp_path):
    (tmp_path / "sampling.py").write_text(SAMPLING)
    generate = """
        import jax

        from sampling import sample_token

        sample = jax.jit(jax.vmap(sample_token, in_axes=(0, None)))
    """
    (tmp_path / "generate.py").write_text(textwrap.dedent(generate).lstrip("\n"))
    path = tmp_path / "sampling.py"
    analysis = check(path.read_text(), str(path), tmp_path)
    [finding] = [f for f in analysis.findings if f.code == "JAX102"]
    assert "traced by `jax.jit(jax.vmap(...))` in generate.py" in finding.message


def test_an_if_under_a_jit_of_a_vmap_names_both():
    analysis = check(
        """
        import jax


        def step(done, x):
            if done:
                return x
            return -x


        batched = jax.jit(jax.vmap(step))
        """
    )
    [finding] = analysis.findings
    assert finding.code == "JAX701"
    assert "(traced by `jax.jit(jax.vmap(...))`)" in finding.message


def test_a_closure_transformed_and_run_where_it_is_made_sees_each_calls_variables():
    text = """
        import jax


        def update(state, keys):
            def one(key):
                return jax.random.normal(key) + state

            moved = jax.jit(jax.vmap(one))(keys)
            state = state + moved.sum()
            return state
        """
    assert [f.code for f in check(text).findings] == ["JAX1001"]  # not JAX102
    looped = text.replace(
        "            moved = jax.jit(jax.vmap(one))(keys)\n            state = state + moved.sum()",
        "            for _ in range(3):\n"
        "                moved = jax.jit(jax.vmap(one))(keys)\n"
        "                state = state + moved.sum()",
    )
    # `jax.vmap(one)` is a new function each time: the jit around it reuses no trace.
    assert [f.code for f in check(looped).findings] == ["JAX1001"]
    direct = looped.replace("jax.jit(jax.vmap(one))(keys)", "jax.jit(one)(keys)")
    assert [f.code for f in check(direct).findings] == ["JAX102"]  # the same `one`: reused


def test_a_jit_of_a_vmap_made_where_it_runs_compiles_anew_and_is_never_stale():
    text = SAMPLING + (
        "\n\ndef generate(keys, logits):\n"
        "    return jax.jit(jax.vmap(sample_token, in_axes=(0, None)))(keys, logits)\n"
    )
    assert [f.code for f in check(text).findings] == ["JAX1001"]
