"""Random numbers (JAX601-JAX602): stateful generators in traced code, PRNG key reuse."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.keys import KeyFlow, Reuse, classify_call, may_draw
from jax_lsp.analysis.model import local_imports
from jax_lsp.analysis.names import binds_locally
from jax_lsp.analysis.nodes import walk_nodes
from jax_lsp.analysis.traced import all_params
from jax_lsp.diagnostics.base import Example, Rule, RuleContext
from jax_lsp.findings import Applicability, Edit, Finding, Fix, Severity, Span

_STATEFUL_PREFIXES = ("numpy.random.", "random.")
# Seeding and generator construction draw nothing.
_NOT_DRAWS = frozenset(
    [
        "seed",
        "default_rng",
        "RandomState",
        "Generator",
        "SeedSequence",
        "get_state",
        "set_state",
        "getstate",
        "setstate",
        "Random",
        "SystemRandom",
        "PCG64",
        "MT19937",
        "Philox",
        "SFC64",
        "BitGenerator",
    ]
)


class StatefulRandomInTraced(Rule):
    code = "JAX601"
    needs_trace = "abstract"
    name = "stateful-random-in-traced"
    summary = "`np.random.*` or stdlib `random.*` in traced code"
    severity = Severity.WARNING
    what_it_does = """
        Flags calls of NumPy's global random generator (`np.random.normal()`, ...) and of the
        standard library's `random` module inside code that JAX traces abstractly (`jax.jit`,
        `jax.vmap`, `lax` loop and branch bodies, and what they call).
    """
    why_bad = """
        These generators run in Python, once, while JAX traces the function. The value drawn
        becomes a constant of the compiled function: every later call returns the same
        "random" number (under `vmap`, every batch element gets the same one; in a
        `lax.scan` body, every step). Use `jax.random` with an explicit key argument, split
        afresh for every call.
    """
    node_types = (ast.Call,)
    invalid = (
        Example(
            """
            import jax
            import numpy as np

            np.random.seed(0)

            @jax.jit
            def add_noise(x):
                return x + np.random.normal()  # error

            values = [float(add_noise(1.0)) for _ in range(3)]
            """,
            check="assert values[0] == values[1] == values[2]  # one draw, baked in",
        ),
        Example(
            """
            import random

            import jax
            import jax.numpy as jnp

            def jitter(x):
                return x * random.uniform(0.5, 1.5)  # error

            batch = jax.vmap(jitter)(jnp.ones(4))
            """,
            check="assert len(set(batch.tolist())) == 1  # the same factor for every element",
        ),
    )
    valid = (
        Example(
            """
            import jax

            @jax.jit
            def add_noise(x, key):
                return x + jax.random.normal(key)

            key = jax.random.key(0)
            values = []
            for _ in range(3):
                key, subkey = jax.random.split(key)
                values.append(float(add_noise(1.0, subkey)))
            """,
            check="assert len(set(values)) == 3",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp
            import numpy as np

            data = jnp.asarray(np.random.default_rng(0).normal(size=8))  # outside traced code

            @jax.jit
            def mean(x):
                return x.mean()

            m = mean(data)
            """,
            check="assert m.shape == ()",
        ),
    )

    def check(self, node: ast.Call, ctx: RuleContext) -> Iterator[Finding]:
        if not ctx.abstract:
            return  # under grad alone each call re-traces and draws anew
        qualname = ctx.qualname(node.func) or ""
        if not qualname.startswith(_STATEFUL_PREFIXES):
            return
        if qualname.rpartition(".")[2] in _NOT_DRAWS or _shadowed_root(node.func, ctx):
            return
        name = ctx.segment(node.func)
        via = ctx.trace.via if ctx.trace else "jit"
        yield ctx.finding(
            self,
            node,
            f"`{name}` runs once, in Python, while JAX traces this code ({via}): the value "
            "drawn becomes a constant, the same at every call. Use `jax.random` with a key "
            "argument",
        )


def _shadowed_root(func: ast.expr, ctx: RuleContext) -> bool:
    """`random.uniform()` where `random` is a parameter or local of the function."""
    while isinstance(func, ast.Attribute):
        func = func.value
    if not isinstance(func, ast.Name) or not ctx.functions:
        return False
    return binds_locally(func.id, ctx.functions[-1])


class PrngKeyReuse(Rule):
    code = "JAX602"
    name = "prng-key-reuse"
    summary = "One PRNG key passed to two `jax.random` sampling calls"
    severity = Severity.WARNING
    what_it_does = """
        Flags a `jax.random` sampling call (`normal`, `uniform`, `randint`, `bernoulli`,
        `choice`, `permutation`, ...) whose key was already used by another sampling call
        with no rebinding in between, following straight-line code, branches (exclusive
        `if`/`else` branches may each use the key) and loops (a key drawn from in a loop body
        that is not split or rebound in the body is reused on every iteration). A call of a
        function of the same module that samples with the key counts as a use.
    """
    why_bad = """
        JAX's random numbers are a pure function of the key: the same key gives the same
        numbers (identical for the same sampler and shape, silently correlated otherwise).
        Split the key before each use: `key, subkey = jax.random.split(key)`.
    """
    fix_safety = """
        Inserts `key, subkey = jax.random.split(key)` before the second use and passes
        `subkey` there. Unsafe: the numbers drawn change (that is the point), and `key` is
        rebound for the code after it.
    """
    node_types = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)
    invalid = (
        Example(
            """
            import jax

            def init_layer(key, n):
                w = jax.random.normal(key, (n,))
                b = jax.random.normal(key, (n,))  # error
                return w, b

            w, b = init_layer(jax.random.key(0), 3)
            """,
            check="assert (w == b).all()  # the same numbers twice",
            fixed="""
            import jax

            def init_layer(key, n):
                w = jax.random.normal(key, (n,))
                key, subkey = jax.random.split(key)
                b = jax.random.normal(subkey, (n,))
                return w, b

            w, b = init_layer(jax.random.key(0), 3)
            """,
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def noisy_copies(key, x, n):
                copies = []
                for _ in range(n):
                    copies.append(x + jax.random.normal(key, x.shape))  # error
                return copies

            copies = noisy_copies(jax.random.key(1), jnp.zeros(2), 3)
            """,
            check="assert (copies[0] == copies[1]).all() and (copies[1] == copies[2]).all()",
            fixed="""
            import jax
            import jax.numpy as jnp

            def noisy_copies(key, x, n):
                copies = []
                for _ in range(n):
                    key, subkey = jax.random.split(key)
                    copies.append(x + jax.random.normal(subkey, x.shape))
                return copies

            copies = noisy_copies(jax.random.key(1), jnp.zeros(2), 3)
            """,
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def dropout(key, x, rate):
                keep = jax.random.bernoulli(key, 1.0 - rate, x.shape)
                return jnp.where(keep, x / (1.0 - rate), 0.0)

            def two_masks(key, x):
                return dropout(key, x, 0.5), dropout(key, x, 0.5)  # error

            a, b = two_masks(jax.random.key(2), jnp.ones(16))
            """,
            check="assert (a == b).all()  # the same dropout mask twice",
        ),
    )
    valid = (
        Example(
            """
            import jax

            def init_layer(key, n):
                w_key, b_key = jax.random.split(key)
                w = jax.random.normal(w_key, (n,))
                b = jax.random.normal(b_key, (n,))
                return w, b

            w, b = init_layer(jax.random.key(0), 3)
            """,
            check="assert not (w == b).any()",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def noisy_copies(key, x, n, uniform=False):
                copies = []
                for _ in range(n):
                    key, subkey = jax.random.split(key)
                    if uniform:
                        noise = jax.random.uniform(subkey, x.shape)
                    else:
                        noise = jax.random.normal(subkey, x.shape)
                    copies.append(x + noise)
                return copies

            copies = noisy_copies(jax.random.key(1), jnp.zeros(2), 3)
            """,
            check="assert not (copies[0] == copies[1]).any()",
        ),
        Example(
            """
            import jax

            def sample(key, steps):
                out = []
                for step in range(steps):
                    out.append(jax.random.normal(jax.random.fold_in(key, step)))
                return out

            draws = sample(jax.random.key(3), 3)
            """,
            check="assert len({float(d) for d in draws}) == 3",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> Iterator[Finding]:
        if isinstance(node, ast.Module):
            # Module-level code flows across units: the model follows keys through them all.
            body, resolver, scope = node.body, ctx.resolvers[-1], node
            reuses = list(ctx.model.module_key_reuses.get(ctx.unit_start, ()))
        else:
            body, scope = node.body, node
            # Cheap tests first, with the enclosing scope's names: the function's own imports
            # spell "random" when they bring in a sampler, and its parameters only hide names.
            outer, local = ctx.resolvers[-1], local_imports(node)
            if not local and not outer.binds_module("jax"):
                return
            # A reuse needs a sampler or a key helper of the module: skip text naming neither.
            text = "\n".join(ctx.lines[node.lineno - 1 : node.end_lineno])
            if not may_draw(text, outer) and not any(h in text for h in ctx.model.key_helpers):
                return
            resolver = outer.child(local, frozenset(all_params(node)))
            if not resolver.binds_module("jax"):
                return
            reuses = KeyFlow(lambda call: classify_call(call, resolver, ctx.model)).run(body)
        if not reuses:
            return
        statements = _statement_of(body)
        names = {n.id for n in walk_nodes(scope) if isinstance(n, ast.Name)}
        names |= set(ctx.model.global_kinds) | set(ctx.model.functions)
        if not isinstance(node, ast.Module):
            names |= set(all_params(node))
        for reuse in reuses:
            fix = _split_fix(reuse, statements.get(reuse.call), resolver, names, ctx)
            yield ctx.finding(self, reuse.call, _message(reuse, ctx), fix=fix)


def _message(reuse: Reuse, ctx: RuleContext) -> str:
    key = reuse.key.id
    if reuse.across_iterations:
        return (
            f"`{key}` is used on every iteration of the loop without being split or rebound: "
            "each iteration draws the same random numbers. Split it in the loop body: "
            f"`{key}, subkey = jax.random.split({key})`"
        )
    first = ast.unparse(reuse.first.func)  # it may sit in another unit
    return (
        f"`{key}` was already used by `{first}(...)`: the same key gives the same random "
        f"numbers. Split it first: `{key}, subkey = jax.random.split({key})`"
    )


def _statement_of(body: list[ast.stmt]) -> dict[ast.AST, ast.stmt]:
    """Each node of the scope -> the innermost statement containing it."""
    owner: dict[ast.AST, ast.stmt] = {}
    stack: list[tuple[ast.AST, ast.stmt | None]] = [(s, None) for s in body]
    while stack:
        node, statement = stack.pop()
        if isinstance(node, ast.stmt):
            statement = node
        elif statement is not None:
            owner[node] = statement
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        stack.extend((child, statement) for child in ast.iter_child_nodes(node))
    return owner


def _fresh(names: set[str]) -> str:
    candidate, index = "subkey", 1
    while candidate in names:
        index += 1
        candidate = f"subkey{index}"
    return candidate


def _split_fix(
    reuse: Reuse, statement: ast.stmt | None, resolver: Resolver, names: set[str], ctx: RuleContext
) -> Fix | None:
    func = reuse.call.func
    if isinstance(func, ast.Attribute) and resolver.qualname(func.value) == "jax.random":
        split = f"{ctx.segment(func.value)}.split"  # the spelling the code already uses
    else:
        split = resolver.alias_of("jax.random.split")
    if statement is None or split is None or isinstance(statement, ast.While):
        return None
    line = statement.lineno - 1
    text = ctx.lines[line]
    indent = text[: len(text) - len(text.lstrip())]
    if text.lstrip().startswith("elif") or len(indent) != ctx.span(statement).start.column:
        return None  # an `elif` header, or several statements on the line
    key, subkey = reuse.key.id, _fresh(names)
    insert = f"{indent}{key}, {subkey} = {split}({key})\n"
    return Fix(
        f"Split `{key}` and use `{subkey}` here",
        (Edit(Span.of(line, 0, line, 0), insert), ctx.edit(reuse.key, subkey)),
        Applicability.UNSAFE,
    )


RULES: tuple[type[Rule], ...] = (StatefulRandomInTraced, PrngKeyReuse)
