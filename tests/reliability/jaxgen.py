"""A hypothesis strategy for JAX-flavoured Python modules: jit/vmap/grad decorators, jnp calls,
subscripts and in-place updates, augmented assignments, if/while on parameters, Python loops,
lax loops with lambdas, prints, conversions, random keys, globals. Valid syntax by construction,
often with the gotchas the rules look for (and their near misses)."""

from __future__ import annotations

from hypothesis import strategies as st

HEADER = (
    "import functools\n"
    "from functools import partial\n"
    "import numpy as np\n"
    "import jax\n"
    "import jax.numpy as jnp\n"
    "from jax import lax, random\n"
)
NAMES = ("x", "y", "n", "key", "carry", "i", "params")
DECORATORS = (
    "@jax.jit",
    "@jit_fn",
    "@partial(jax.jit, static_argnums=(1,))",
    "@functools.partial(jax.jit, static_argnames=('n',))",
    "@jax.vmap",
    "@jax.grad",
    "@jax.checkpoint",
    "",
)
ARRAYS = (
    "jnp.zeros(3)",
    "jnp.ones((n, 2))",
    "jnp.arange(x.shape[0])",
    "np.zeros(3)",
    "x * 2.0",
    "jnp.where(x > 0, x, 0.0)",
    "random.normal(key, (3,))",
    "x.sum()",
    "[1, 2, 3]",
    "len(x)",
    "x.shape[0]",
    "float(x)",
    "int(n)",
    "x.at[0].set(1.0)",
    "jnp.asarray(y)",
    "lax.fori_loop(0, n, lambda i, c: c + i, x)",
    "lax.cond(n > 0, lambda v: v, lambda v: -v, x)",
    "lax.scan(lambda c, v: (c + v, c), 0.0, x)[0]",
    "jax.vmap(lambda v: v * 2)(x)",
    "x if n else y",
    "np.asarray(x)",
    "x.item()",
    "y.tolist()",
)


@st.composite
def _statement(draw, depth: int, indent: str) -> str:
    name = draw(st.sampled_from(NAMES))
    value = draw(st.sampled_from(ARRAYS))
    simple = (
        f"{name} = {value}",
        f"{name}[0] = {value}",
        f"{name}[i] += 1.0",
        f"{name}.at[1].add({value})",
        f"{name} = {name}.at[i].set({value})",
        f"{name} += {value}",
        f"print({name})",
        f"results.append({name})",
        f"assert {name}.shape == (3,)",
        f"key, sub = random.split({name})",
        f"return {value}",
        "global counter",
        "counter += 1",
        "pass",
    )
    if depth >= 2 or draw(st.integers(0, 3)) > 0:
        return indent + draw(st.sampled_from(simple)) + "\n"
    body = draw(_block(depth + 1, indent + "    "))
    header = draw(
        st.sampled_from(
            (
                f"if {name} > 0:",
                f"if {name}.shape[0] > 1:",
                f"while {name} < 10:",
                f"for i in range({name}.shape[0]):",
                f"for v in {name}:",
                "try:",
                f"with jax.default_device({name}):",
            )
        )
    )
    text = f"{indent}{header}\n{body}"
    if header == "try:":
        text += f"{indent}except Exception:\n{indent}    pass\n"
    elif header.startswith("if") and draw(st.booleans()):
        text += f"{indent}else:\n" + draw(_block(depth + 1, indent + "    "))
    return text


@st.composite
def _block(draw, depth: int, indent: str) -> str:
    return "".join(draw(st.lists(_statement(depth, indent), min_size=1, max_size=4)))


@st.composite
def _function(draw) -> str:
    name = draw(st.sampled_from(("f", "g", "step", "loss", "update")))
    decorator = draw(st.sampled_from(DECORATORS))
    params = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3, unique=True))
    body = draw(_block(0, "    "))
    prefix = f"{decorator}\n" if decorator else ""
    return f"{prefix}def {name}({', '.join(params)}):\n{body}"


@st.composite
def _top_level(draw) -> str:
    choice = draw(st.integers(0, 4))
    if choice == 0:
        return draw(_block(1, ""))
    if choice == 1:
        target = draw(st.sampled_from(("f", "g", "step")))
        return f"{target} = jax.jit({target})\n"
    return draw(_function())


def jax_modules() -> st.SearchStrategy[str]:
    """Whole modules: the imports, then a few functions and module-level statements."""
    prelude = "counter = 0\nresults = []\nx = jnp.zeros(3)\nn = 3\nkey = random.PRNGKey(0)\n"
    parts = st.lists(_top_level(), min_size=1, max_size=5)
    return parts.map(lambda pieces: HEADER + prelude + "\n".join(pieces))
