"""Random numbers (JAX601-JAX602): stateful generators in traced code, PRNG key reuse."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace

from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.key_consumers import LIBRARY_KEY_WORDS
from jax_lsp.analysis.keys import (
    REPEATING_NAMES,
    DrawnThroughGlobal,
    DrawnThroughObject,
    KeyInputs,
    RepeatedUse,
    Reuse,
    aligned_helper_pair,
    aligned_over_items,
    aligned_pair,
    classify_call,
    in_assertion,
    may_draw,
    repeated_uses,
    results_compared,
)
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.model import local_imports
from jax_lsp.analysis.names import binds_locally
from jax_lsp.analysis.nodes import child_nodes, walk_nodes
from jax_lsp.analysis.text import contains_word, document_span
from jax_lsp.analysis.traced import all_params
from jax_lsp.codeactions.key_split import SplitFixer
from jax_lsp.diagnostics.base import Example, Rule, RuleContext, Spelled, prefiltered
from jax_lsp.diagnostics.key_scopes import may_call_a_stored_layer, scope_classify, scope_reuses
from jax_lsp.findings import Applicability, Finding, Related, Severity

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


def _instance_param(method: ast.AST) -> str | None:
    """The parameter a method receives its instance in (`self`); None for a static or class
    method."""
    if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    for decorator in method.decorator_list:
        if isinstance(decorator, ast.Name) and decorator.id in ("staticmethod", "classmethod"):
            return None
    params = method.args.posonlyargs + method.args.args
    return params[0].arg if params else None


def _shadowed_root(func: ast.expr, ctx: RuleContext) -> bool:
    """`random.uniform()` where `random` is a parameter or local of the function."""
    while isinstance(func, ast.Attribute):
        func = func.value
    if not isinstance(func, ast.Name) or not ctx.functions:
        return False
    return binds_locally(func.id, ctx.functions[-1])


def _static_helper_spellings(model: KeyInputs) -> Iterator[str]:
    """The method part of each static method among the key helpers (`Noise.sample`:
    ".sample("), which a method of the class calls as `self.sample(key)`."""
    for path in model.key_helpers:
        if "." in path:
            yield f".{path.rpartition('.')[2]}("


def _key_function_spellings(model: KeyInputs) -> Iterator[str]:
    """The first name of each imported function's spelling whose facts say it consumes or
    derives from a key (`rng.split`: "rng")."""
    for name, facts in (model.external or {}).items():
        if facts.consumed_keys or facts.derived_keys:
            yield name.partition(".")[0]


# What a scope spells where it may consume a key: a sampler, a library's key consumer, a key
# helper of the module (or one whose callers see more than a key consumed), a random
# initializer held by a module-level name, an imported function that consumes or derives from
# a key. No scope that cannot name `jax` draws a key.
_CONSUMES_A_KEY = Spelled(
    LIBRARY_KEY_WORDS,
    tests=(may_draw, may_call_a_stored_layer),
    named_by=(
        lambda model: model.key_helpers,
        lambda model: model.jit_aliases,
        _static_helper_spellings,
        lambda model: model.key_summaries,
        lambda model: model.initializer_globals,
        _key_function_spellings,
        lambda model: [n for n, f in (model.external or {}).items() if f.stored_key_draws],
    ),
    binds=("jax",),
    on=(ast.FunctionDef, ast.AsyncFunctionDef),
)


def _module_reuses(node: ast.AST, ctx: RuleContext) -> object:
    """The key reuses the model found in the unit's top-level code, across units: none where
    that code calls nothing (the model's key flow is not asked, for the whole module)."""
    if not _calls_at_top_level(node):  # type: ignore[arg-type]
        return None
    return ctx.model.module_key_reuses.get(ctx.unit_start)


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _calls_at_top_level(unit: ast.Module) -> bool:
    """Does the unit's top-level code make a call, where a key may be consumed? The key flow
    of module-level code walks the decorators of a definition, not its body."""
    stack: list[ast.AST] = []
    for statement in unit.body:
        if isinstance(statement, _DEFINITIONS):
            stack.extend(statement.decorator_list)
        else:
            stack.append(statement)
    while stack:  # depth first, to the first call
        node = stack.pop()
        if type(node) is ast.Call:
            return True
        stack.extend(child_nodes(node))
    return False


# A unit's top-level code draws with a sampler, or the model found reuses in it.
_DRAWS_AT_TOP_LEVEL = Spelled(tests=(may_draw,), found_by=_module_reuses, on=(ast.Module,))


def _names_a_repeating_call(text: str, resolver: Resolver) -> bool:
    """Does the text spell, as a whole name, the last name of a call that runs a function
    repeatedly (`lax.while_loop`, `fori_loop`, `scan`, `lax.map`, `jax.tree.map`, `tree_map`:
    `keys.REPEATING_NAMES`), as each call `repeated_uses` follows and each name it binds to
    one does? (`vmap` names none.)"""
    return any(contains_word(text, name) for name in REPEATING_NAMES)


_REPEATING = Spelled(tests=(_names_a_repeating_call,))


class PrngKeyReuse(Rule):
    code = "JAX602"
    name = "prng-key-reuse"
    summary = "A PRNG key consumed twice (sampled from or split, then used again)"
    severity = Severity.WARNING
    what_it_does = """
        Follows JAX's own key-reuse checker (`jax_debug_key_reuse`,
        `jax.experimental.key_reuse`): a `jax.random` sampler (`normal`, `uniform`,
        `bernoulli`, `permutation`, ...) and `jax.random.split` *consume* their key;
        `fold_in`, `clone` and `key_data` do not. Flags a call that consumes a key already
        consumed with no rebinding in between, following straight-line code, branches
        (exclusive `if`/`else` branches may each use the key) and loops (a key consumed in a
        loop body that does not rebind it is reused on every iteration; so is one consumed in
        a comprehension's element, by every element). A call of a function of the module
        (or one the scope defines or jits) that consumes its key parameter (itself or via
        another such function) counts as a use, and so does an equinox layer built with it
        (`eqx.nn.Linear(3, 3, key=key)`: its initial weights are drawn from it), and so does a
        random initializer (`jax.nn.initializers.lecun_normal()(key, shape)`, or through a
        module-level name bound to one: it draws its values from the key), and so do the
        library calls that draw from a key they are given (haiku `init`/`dropout`, and
        `apply` of a transformed function known to draw from the key stream with
        `hk.next_rng_key()`, itself or through a function or module of this module: an MLP's
        `apply` reads no key; numpyro `seed`, `SVI.init`, `MCMC.run`, `Predictive`, a
        distribution's `sample`, distrax and TFP `sample(seed=key)`, flax `Dropout`, an
        equinox `Dropout`, `MultiheadAttention` or `Sequential` called with `key=`; the other
        equinox layers ignore it), and a function of this or an imported module that consumes
        its key parameter, or a class of this module whose `__init__` does (`Model(key)`). A
        flax `init(key, ...)` or `apply(..., rngs={...: key})` derives its numbers from the
        key without consuming it: a second `init` (or `apply`) with the same
        key is flagged (the same weights, the same dropout mask), a `jax.random` draw after it
        is not. A helper that returns the key it consumed (`return action, key`) hands back a
        used key: the caller's next use of it is flagged. A key held
        in an object or a container (`self.key`, `state.key`, `state["key"]`, `keys[0]`) is
        followed the same way; assigning it or its holder, or handing the holder to a
        function or calling a method on it, makes it fresh.
        Also flags a key that a `lax.while_loop`, `fori_loop`,
        `scan` or `lax.map` body, or a function given to `jax.tree.map`, closes over and
        consumes: it is consumed again on every iteration or leaf, and a key that such a loop
        body consumes from its carry and returns unchanged in the carry (`x, key = carry`
        ... `return x, key`; followed through nested tuples, dicts, attributes and
        `_replace` copies). One key given to the same
        `permutation`, `shuffle` or `choice` of several different arrays (or of every leaf
        of a tree map, or of each element a comprehension or `for` loop walks) is left alone:
        it picks the same rows of each, keeping inputs and labels aligned, the usual intent
        (JAX's checker counts it). The same call of the same array twice, or one such call run
        again by a loop on an array that is not the loop's element (the same shuffle every
        epoch), is flagged. Left alone likewise: a helper of the module given one key and the
        same arguments but one, a JAX array in both (`features(key, x)`, `features(key, y)`): the
        same random transformation of two arrays (random features of both sides of a kernel,
        one crop of several views, one dropout mask); other arguments differing
        (`init(key, n_in)`, `init(key, n_out)`) are still flagged. And a draw inside an
        assertion (`self.assertEqual(model(key), normal(key))`, `np.testing.assert_allclose`,
        an `assert`): a test recomputes the expected value from the very key the code under
        test drew from (the checker counts it). In module-level code, a second call of a
        module-level object whose method (or `__call__`) consumes a key its class stores in
        `__init__` and never replaces (no other method, no code outside and no subclass
        assigns it) draws from that key again: every call gives the same numbers; so does one
        a function holds (`sampler = Sampler(0)`, then `sampler.sample(n)` twice or in a
        loop), the class of this module or, deriving from nothing, of an imported one. A layer an
        object stores (`self.drop = eqx.nn.Dropout(0.1)`) consumes the key it is called with
        (`self.drop(x, key=key)`). A helper that reads its key only where another parameter is None
        (`if noise is None: noise = normal(key, shape)`) uses no key when the call gives that
        parameter a value; one that reads it only under a test of a flag parameter (`if train:`, `if
        not deterministic:`, after `if deterministic: return x`, or by handing both on to such a
        helper) uses no key when the call passes a literal, or leaves a default, that fails the test
        (`train=False`). The finding links the earlier use. As JAX's checker stops at the
        first reuse of a consumed key, only that one is reported on each way through the code:
        a later use of the key (a split after the reuse, a third draw) is not reported again.
    """
    why_bad = """
        JAX's random numbers are a pure function of the key: the same key gives the same
        numbers (identical for the same sampler and shape, silently correlated otherwise,
        and a key that was split gives numbers correlated with its subkeys). JAX's checker
        raises `KeyReuseError` on such code. Split the key before each use:
        `key, subkey = jax.random.split(key)`, or give a loop body the key through its
        carry and split it every step.
    """
    fix_safety = """
        Inserts `key, subkey = jax.random.split(key)` before the first use and
        `key, subkey2 = jax.random.split(key)` before the reuse (before the use alone, in the
        loop body, for a reuse across iterations), and passes each use its own subkey, so
        no key is consumed twice. Not offered where the key is closed over (rebinding it
        would make it local) or a use sits where a line cannot go before it (a `while`
        test, an `elif`, several statements on one line, a comprehension). Unsafe: the numbers
        drawn change (that is the point), and `key` is rebound for the code after it.
    """
    fix_applicabilities = frozenset({Applicability.UNSAFE})
    node_types = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)
    prefilter = (_CONSUMES_A_KEY, _DRAWS_AT_TOP_LEVEL)
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
                key, subkey = jax.random.split(key)
                w = jax.random.normal(subkey, (n,))
                key, subkey2 = jax.random.split(key)
                b = jax.random.normal(subkey2, (n,))
                return w, b

            w, b = init_layer(jax.random.key(0), 3)
            """,
            fixed_check="assert not (w == b).any()",
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
            fixed_check="assert not (copies[0] == copies[1]).any()",
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
            fixed="""
            import jax
            import jax.numpy as jnp

            def dropout(key, x, rate):
                keep = jax.random.bernoulli(key, 1.0 - rate, x.shape)
                return jnp.where(keep, x / (1.0 - rate), 0.0)

            def two_masks(key, x):
                key, subkey = jax.random.split(key)
                key, subkey2 = jax.random.split(key)
                return dropout(subkey, x, 0.5), dropout(subkey2, x, 0.5)

            a, b = two_masks(jax.random.key(2), jnp.ones(16))
            """,
            fixed_check="assert not (a == b).all()",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def noisy_dropout(rng, x):
                noise_key, mask_key = jax.random.split(rng)
                x = x + jax.random.normal(noise_key, x.shape)
                keep = jax.random.bernoulli(rng, 0.5, x.shape)  # error
                return jnp.where(keep, x, 0.0), mask_key

            y, mask_key = noisy_dropout(jax.random.key(3), jnp.zeros(8))
            """,
            check=(
                "from jax.errors import KeyReuseError\n"
                "try:\n"
                "    with jax.debug_key_reuse(True):\n"
                "        noisy_dropout(jax.random.key(3), jnp.zeros(8))\n"
                "    raise AssertionError('no KeyReuseError')\n"
                "except KeyReuseError:\n"
                "    pass  # split consumed `rng`: JAX's checker rejects the second use"
            ),
            fixed="""
            import jax
            import jax.numpy as jnp

            def noisy_dropout(rng, x):
                rng, subkey = jax.random.split(rng)
                noise_key, mask_key = jax.random.split(subkey)
                x = x + jax.random.normal(noise_key, x.shape)
                rng, subkey2 = jax.random.split(rng)
                keep = jax.random.bernoulli(subkey2, 0.5, x.shape)
                return jnp.where(keep, x, 0.0), mask_key

            y, mask_key = noisy_dropout(jax.random.key(3), jnp.zeros(8))
            """,
        ),
        Example(
            """
            import jax

            def two_batches(key, n):
                first = jax.random.split(key, n)
                second = jax.random.split(key, n)  # error
                return first, second

            first, second = two_batches(jax.random.key(4), 3)
            """,
            check="assert (jax.random.key_data(first) == jax.random.key_data(second)).all()",
            fixed="""
            import jax

            def two_batches(key, n):
                key, subkey = jax.random.split(key)
                first = jax.random.split(subkey, n)
                key, subkey2 = jax.random.split(key)
                second = jax.random.split(subkey2, n)
                return first, second

            first, second = two_batches(jax.random.key(4), 3)
            """,
            fixed_check=(
                "assert not (jax.random.key_data(first) == jax.random.key_data(second)).all()"
            ),
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def random_walk(key, steps):
                def step(i, position):
                    return position + jax.random.normal(key)  # error

                return jax.lax.fori_loop(0, steps, step, 0.0)

            end = random_walk(jax.random.key(5), 4)
            one = jax.random.normal(jax.random.key(5))
            """,
            check="assert jnp.allclose(end, 4 * one)  # four times the same step",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def add_noise(params, key):
                return jax.tree.map(lambda p: p + jax.random.normal(key, p.shape), params)  # error

            noisy = add_noise({"a": jnp.zeros(3), "b": jnp.zeros(3)}, jax.random.key(6))
            """,
            check="assert (noisy['a'] == noisy['b']).all()  # the same noise on every leaf",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def epochs(key, data, n):
                batches = []
                for _ in range(n):
                    perm = jax.random.permutation(key, data.shape[0])  # error
                    batches.append(data[perm])
                return batches

            batches = epochs(jax.random.key(9), jnp.arange(8), 3)
            """,
            check="assert all((b == batches[0]).all() for b in batches)  # one shuffle",
            fixed="""
            import jax
            import jax.numpy as jnp

            def epochs(key, data, n):
                batches = []
                for _ in range(n):
                    key, subkey = jax.random.split(key)
                    perm = jax.random.permutation(subkey, data.shape[0])
                    batches.append(data[perm])
                return batches

            batches = epochs(jax.random.key(9), jnp.arange(8), 3)
            """,
            fixed_check="assert not all((b == batches[0]).all() for b in batches)",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def two_orders(key, x):
                first = jax.random.permutation(key, x)
                second = jax.random.permutation(key, x)  # error
                return first, second

            first, second = two_orders(jax.random.key(10), jnp.arange(8))
            """,
            check="assert (first == second).all()  # the same order twice",
        ),
        Example(
            """
            import jax

            class Sampler:
                def __init__(self, seed):
                    self.key = jax.random.key(seed)

                def pair(self, n):
                    a = jax.random.normal(self.key, (n,))
                    b = jax.random.normal(self.key, (n,))  # error
                    return a, b

            state = {"key": jax.random.key(1)}
            x = jax.random.uniform(state["key"], (3,))
            y = jax.random.uniform(state["key"], (3,))  # error
            a, b = Sampler(0).pair(3)
            """,
            check="assert (a == b).all() and (x == y).all()  # keys held in objects and dicts",
        ),
        Example(
            """
            import equinox as eqx
            import jax

            key = jax.random.key(0)
            encoder = eqx.nn.Linear(4, 4, key=key)
            decoder = eqx.nn.Linear(4, 4, key=key)  # error
            """,
            check="assert (encoder.weight == decoder.weight).all()  # identical initial weights",
            fixed="""
            import equinox as eqx
            import jax

            key = jax.random.key(0)
            key, subkey = jax.random.split(key)
            encoder = eqx.nn.Linear(4, 4, key=subkey)
            key, subkey2 = jax.random.split(key)
            decoder = eqx.nn.Linear(4, 4, key=subkey2)
            """,
            fixed_check="assert not (encoder.weight == decoder.weight).all()",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def body(i, carry):
                x, key = carry
                x = x.at[i].set(jax.random.normal(key))  # error
                return x, key

            x, key = jax.lax.fori_loop(0, 3, body, (jnp.zeros(3), jax.random.key(11)))
            """,
            check="assert (x == x[0]).all()  # the same number at every step",
            fixed="""
            import jax
            import jax.numpy as jnp

            def body(i, carry):
                x, key = carry
                key, subkey = jax.random.split(key)
                x = x.at[i].set(jax.random.normal(subkey))
                return x, key

            x, key = jax.lax.fori_loop(0, 3, body, (jnp.zeros(3), jax.random.key(11)))
            """,
            fixed_check="assert not (x == x[0]).all()",
        ),
        Example(
            """
            import jax

            def two_categoricals(key, logits_x, logits_y):
                # one draw per element, every one with the same key
                return [jax.random.categorical(key, lg) for lg in (logits_x, logits_y)]  # error

            x, y = two_categoricals(jax.random.key(5), jax.numpy.zeros(50), jax.numpy.zeros(50))
            """,
            check="assert int(x) == int(y)",
        ),
        Example(
            """
            import jax

            class Noise:
                def __init__(self, seed):
                    self.key = jax.random.key(seed)

                def __call__(self, shape):
                    return jax.random.normal(self.key, shape)

            noise = Noise(0)
            a = noise((3,))
            b = noise((3,))  # error
            """,
            check="assert (a == b).all()  # every call draws the same numbers",
        ),
        Example(
            """
            import jax

            kernel_init = jax.nn.initializers.lecun_normal()

            def init_mlp(key):
                w1 = kernel_init(key, (3, 3))
                w2 = kernel_init(key, (3, 3))  # error
                return w1, w2

            w1, w2 = init_mlp(jax.random.key(0))
            """,
            check="assert (w1 == w2).all()  # an initializer draws from the key it is given",
        ),
        Example(
            """
            import jax

            key = jax.random.key(0)  # seeded once, like np.random.seed(0)

            def velocities(n):
                return jax.random.normal(key, (n, 3))

            v1 = velocities(4)
            v2 = velocities(4)  # error
            """,
            check="assert (v1 == v2).all()  # the same numbers twice",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def forward(w, x, key, train):
                if train:
                    x = x * jax.random.bernoulli(key, 0.5, x.shape)
                return x @ w

            def train_epoch(w, xs, key):
                total = 0.0
                for x in xs:
                    total += forward(w, x, key, train=True).sum()  # error
                return total

            total = train_epoch(jnp.ones((3, 3)), [jnp.ones(3)] * 2, jax.random.key(0))
            """,
            check=(
                "from jax.errors import KeyReuseError\n"
                "try:\n"
                "    with jax.debug_key_reuse(True):\n"
                "        train_epoch(jnp.ones((3, 3)), [jnp.ones(3)] * 2, jax.random.key(0))\n"
                "    raise AssertionError('no KeyReuseError')\n"
                "except KeyReuseError:\n"
                "    pass  # every epoch step draws the same dropout mask"
            ),
        ),
        Example(
            """
            import haiku as hk
            import jax
            import jax.numpy as jnp

            def forward(x):
                x = hk.nets.MLP([4, 2])(x)
                return hk.dropout(hk.next_rng_key(), 0.5, x)  # draws from apply's key

            model = hk.transform(forward)

            def init_and_apply(rng, x):
                params = model.init(rng, x)
                return model.apply(params, rng, x)  # error

            out = init_and_apply(jax.random.key(0), jnp.ones((1, 3)))
            """,
            check=(
                "from jax.errors import KeyReuseError\n"
                "try:\n"
                "    with jax.debug_key_reuse(True):\n"
                "        init_and_apply(jax.random.key(0), jnp.ones((1, 3)))\n"
                "    raise AssertionError('no KeyReuseError')\n"
                "except KeyReuseError:\n"
                "    pass  # `init` split the key; `apply` splits it again for the dropout"
            ),
        ),
        Example(
            """
            import equinox as eqx
            import jax
            import jax.random as jr

            class Model(eqx.Module):
                layers: list

                def __init__(self, key):
                    k1, k2 = jr.split(key)
                    self.layers = [eqx.nn.Linear(2, 2, key=k1), eqx.nn.Linear(2, 2, key=k2)]

            def setup(key):
                model = Model(key)
                x = jr.normal(key, (2,))  # error
                return model, x

            model, x = setup(jr.key(0))
            """,
            check=(
                "from jax.errors import KeyReuseError\n"
                "try:\n"
                "    with jax.debug_key_reuse(True):\n"
                "        setup(jr.key(0))\n"
                "    raise AssertionError('no KeyReuseError')\n"
                "except KeyReuseError:\n"
                "    pass  # `Model(key)` split the key in `__init__`"
            ),
        ),
        Example(
            """
            import jax

            def noise_pair(key, n):
                a = jax.random.normal(key, (n,))
                b = jax.random.normal(key, (n,))  # error
                key, subkey = jax.random.split(key)  # not reached with the key: not reported
                return a, b, jax.random.uniform(subkey, (n,)), key

            a, b, c, key = noise_pair(jax.random.key(0), 3)
            """,
            # JAX's checker raises at `b` only (tests/rules/test_first_reuse_only.py)
            check="assert (a == b).all()  # the same numbers twice",
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
        Example(
            """
            import jax

            def per_task(key):
                # fold_in derives a key without consuming its input (JAX's checker agrees)
                a = jax.random.normal(jax.random.fold_in(key, 0))
                b = jax.random.normal(jax.random.fold_in(key, 1))
                return a, b, jax.random.uniform(key)

            with jax.debug_key_reuse(True):
                a, b, c = per_task(jax.random.key(4))
            """,
            check="assert a != b",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def random_walk(key, steps):
                def step(i, carry):
                    position, key = carry
                    key, subkey = jax.random.split(key)
                    return position + jax.random.normal(subkey), key

                return jax.lax.fori_loop(0, steps, step, (0.0, key))[0]

            with jax.debug_key_reuse(True):
                end = random_walk(jax.random.key(5), 4)
            """,
            check="assert jnp.isfinite(end)",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def shuffle_batch(batch, key):
                # One permutation for every leaf: inputs and labels stay aligned.
                return jax.tree.map(lambda x: jax.random.permutation(key, x), batch)

            batch = {"x": jnp.arange(5), "y": jnp.arange(5) * 10}
            shuffled = shuffle_batch(batch, jax.random.key(7))
            """,
            check="assert (shuffled['y'] == shuffled['x'] * 10).all()",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def sample_batch(key, x, y, size):
                # The same rows of inputs and labels.
                xb = jax.random.choice(key, x, (size,), replace=False)
                yb = jax.random.choice(key, y, (size,), replace=False)
                return xb, yb

            xb, yb = sample_batch(jax.random.key(8), jnp.arange(6), jnp.arange(6) * 10, 3)
            """,
            check="assert (yb == xb * 10).all()",
        ),
        Example(
            """
            import jax

            class Sampler:
                def __init__(self, seed):
                    self.key = jax.random.key(seed)

                def reseed(self, seed):
                    self.key = jax.random.key(seed)

                def pair(self, n):
                    a = jax.random.normal(self.key, (n,))
                    self.reseed(7)  # a method of the holder may rebind its key
                    b = jax.random.normal(self.key, (n,))
                    return a, b

            state = {"key": jax.random.key(1)}
            x = jax.random.uniform(state["key"], (3,))
            state["key"] = jax.random.key(2)
            y = jax.random.uniform(state["key"], (3,))
            a, b = Sampler(0).pair(3)
            """,
            check="assert not (a == b).all() and not (x == y).all()",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def body(i, carry):
                x, key = carry
                key, subkey = jax.random.split(key)  # a new key carried to the next step
                x = x.at[i].set(jax.random.normal(subkey))
                return x, key

            x, key = jax.lax.fori_loop(0, 3, body, (jnp.zeros(3), jax.random.key(11)))
            """,
            check="assert not (x == x[0]).all()",
        ),
        Example(
            """
            import jax
            import numpy as np

            def model(key):
                k1, k2 = jax.random.split(key)
                z = jax.random.normal(k1)
                return z, z + jax.random.normal(k2)

            # A test recomputes the model's draws from the same keys: the expected values.
            k1, k2 = jax.random.split(jax.random.key(3))
            z, x = model(jax.random.key(3))
            np.testing.assert_allclose(z, jax.random.normal(k1))
            np.testing.assert_allclose(x, jax.random.normal(k1) + jax.random.normal(k2))
            """,
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def features(key, x: jax.Array, n: int):
                w = jax.random.normal(key, (x.shape[-1], n))
                return jnp.cos(x @ w) / jnp.sqrt(n)

            def approximate_kernel(key, x: jax.Array, y: jax.Array):
                # Both sides need the same random features: k(x, y) ~ phi(x) . phi(y).
                return features(key, x, 64) @ features(key, y, 64).T

            k = approximate_kernel(jax.random.key(0), jnp.ones((2, 3)), jnp.ones((4, 3)))
            """,
            check="assert k.shape == (2, 4) and jnp.allclose(k, k[0, 0])",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def per_element(key, rows):
                keys = jax.random.split(key, len(rows))
                # each element draws from its own key; fold_in derives a new key per index
                noisy = [row + jax.random.normal(k, row.shape) for k, row in zip(keys, rows)]
                tagged = {i: jax.random.uniform(jax.random.fold_in(key, i)) for i in range(2)}
                return noisy, tagged

            noisy, tagged = per_element(jax.random.key(6), [jnp.zeros(2), jnp.zeros(2)])
            """,
            check="assert not (noisy[0] == noisy[1]).all() and tagged[0] != tagged[1]",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def shuffled(key, arrays):
                # one permutation of every array: inputs and labels stay aligned
                return [jax.random.permutation(key, a) for a in arrays]

            x, y = shuffled(jax.random.key(2), [jnp.arange(5), jnp.arange(5) * 10])
            """,
            check="assert (y == x * 10).all() and not (x == jnp.arange(5)).all()",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def permute(key, *arrays):
                # the same permutation of every array, one loop iteration each
                out = []
                for array in arrays:
                    out.append(jax.random.permutation(key, array))
                return out

            x, y = permute(jax.random.key(2), jnp.arange(5), jnp.arange(5) * 10)
            """,
            check="assert (y == x * 10).all() and not (x == jnp.arange(5)).all()",
        ),
        Example(
            """
            import jax

            class KeyGen:
                def __init__(self, seed):
                    self._key = jax.random.key(seed)

                @property
                def rng(self):
                    self._key, key = jax.random.split(self._key)
                    return key

            gen = KeyGen(0)

            def noise_pair(n):
                a = jax.random.normal(gen.rng, (n,))
                b = jax.random.normal(gen.rng, (n,))
                return a, b

            a, b = noise_pair(3)
            """,
            check="assert not (a == b).any()  # a property that makes a new key on every read",
        ),
        Example(
            """
            import jax

            key = jax.random.key(0)

            def velocities(n):
                return jax.random.normal(key, (n, 3))

            v1 = velocities(4)
            key = jax.random.fold_in(key, 1)  # a new global key before the next call
            v2 = velocities(4)
            """,
            check="assert not (v1 == v2).all()",
        ),
        Example(
            """
            import jax

            def perturb(x, key, noise=None):
                if noise is None:  # drawn only when the caller gives none
                    noise = jax.random.normal(key, x.shape)
                return x + noise

            key = jax.random.key(0)
            x = jax.numpy.zeros(3)
            noise = jax.random.normal(key, x.shape)
            up, down = perturb(x, key, noise), perturb(x, key, noise=-noise)
            """,
            check="assert (up == -down).all()",
        ),
        Example(
            """
            import jax

            # A bias switched off by a constant condition: its draw never runs.
            v_key = jax.random.key(0)
            v = jax.random.normal(v_key, (2, 3))
            bias = jax.random.bernoulli(v_key, 0.5, (2, 3)) if False else None
            """,
            check="assert bias is None",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            def forward(w, x, key, train):
                if train:  # dropout only while training
                    x = x * jax.random.bernoulli(key, 0.5, x.shape)
                return x @ w

            def evaluate(w, xs, key):
                total = 0.0
                for x in xs:
                    total += forward(w, x, key, train=False).sum()  # draws nothing
                return total
            """,
            check=(
                "with jax.debug_key_reuse(True):\n"
                "    evaluate(jnp.ones((3, 3)), [jnp.ones(3)] * 2, jax.random.key(0))"
            ),
        ),
        Example(
            """
            import haiku as hk
            import jax
            import jax.numpy as jnp

            # An MLP draws no random numbers: `apply` leaves its key unread.
            model = hk.transform(lambda x: hk.nets.MLP([4, 2])(x))

            def init_and_apply(rng, x):
                params = model.init(rng, x)
                return model.apply(params, rng, x)
            """,
            check=(
                "with jax.debug_key_reuse(True):\n"
                "    init_and_apply(jax.random.key(0), jnp.ones((1, 3)))"
            ),
        ),
        Example(
            """
            import equinox as eqx
            import jax
            import jax.numpy as jnp

            def predict(key, x):
                mlp = eqx.nn.MLP(3, 2, 4, 1, key=key)
                return mlp(x, key=key)  # an MLP ignores the key it is called with
            """,
            check=("with jax.debug_key_reuse(True):\n    predict(jax.random.key(0), jnp.ones(3))"),
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> Iterable[Finding]:
        # Not a generator: a scope with nothing to report leaves without making one.
        if isinstance(node, ast.Module):
            # Module-level code flows across units: the model follows keys through them all.
            body, resolver, scope = node.body, ctx.resolvers[-1], node
            reuses = list(ctx.model.module_key_reuses.get(ctx.unit_start, ()))
        else:
            body, scope = node.body, node
            # The function's own imports count; its parameters only hide names.
            resolver = ctx.resolvers[-1].child(local_imports(node), frozenset(all_params(node)))
            if not resolver.binds_module("jax"):
                return ()
            params = frozenset(all_params(node))  # may be None where the call is
            record = ctx.model.records.get(node)
            me = _instance_param(node) if record is not None and record.class_name else None
            classify_here = scope_classify(node, ctx, resolver, params, record, me)
            if classify_here is None:  # no call consumes a key
                reuses = []
            else:
                reuses = scope_reuses(node, ctx, classify_here, resolver, record, me)
        # The same shuffle or choice of two arrays with one key keeps them aligned: by intent.
        # Not across loop iterations: every epoch would get the same shuffle.
        reuses = [
            r
            for r in reuses
            if not aligned_over_items(r, resolver)
            and (r.across_iterations or not aligned_pair(r.first, r.call, resolver))
        ]
        # One key seeding two numpyro programs replays the same draws in both (a model and its
        # guide subsampling the same plate, a trace taken again): by intent.
        reuses = [r for r in reuses if not _replayed_seed(r, resolver)]
        # A draw inside an assertion recomputes the expected value from the same key, two draws
        # whose results an assertion compares test one implementation against another: by intent.
        reuses = [
            r
            for r in reuses
            if not in_assertion(r.call, scope) and not results_compared(r.first, r.call, scope)
        ]
        if reuses and not isinstance(node, ast.Module):
            # One helper's random transformation of two arrays (`features(key, x)`, then of y).
            kinds = ctx.model.scope_kinds(node).kinds
            is_array = lambda arg: kinds.get(arg) in (Kind.ARRAY, Kind.TRACED)  # noqa: E731
            reuses = [
                r
                for r in reuses
                if r.across_iterations
                or not aligned_helper_pair(r.first, r.call, resolver, is_array)
            ]
        # JAX's checker stops at the first reuse of a consumed key: a later use of it, after a
        # reuse reported on every way there, is never reached with it.
        reported = {reuse.call for reuse in reuses}
        reuses = [r for r in reuses if not r.after or not all(w & reported for w in r.after)]
        repeated = self._repeated_uses(node, ctx, resolver)
        if not reuses and not repeated:
            return ()
        return self._report(node, ctx, reuses, repeated, resolver, body)

    @prefiltered(_REPEATING)
    def _repeated_uses(
        self, node: ast.AST, ctx: RuleContext, resolver: Resolver
    ) -> Sequence[RepeatedUse]:
        """Draws with one key in a function that a loop or a map runs repeatedly."""
        classify = lambda c: classify_call(c, resolver, ctx.model)  # noqa: E731
        return repeated_uses(node.body, resolver, classify)  # type: ignore[attr-defined]

    def _report(
        self,
        node: ast.AST,
        ctx: RuleContext,
        reuses: list[Reuse],
        repeated: list[RepeatedUse],
        resolver: Resolver,
        body: list[ast.stmt],
    ) -> Iterator[Finding]:
        names = {n.id for n in walk_nodes(node) if isinstance(n, ast.Name)}
        names |= set(ctx.model.global_kinds) | ctx.model.module_function_names
        if not isinstance(node, ast.Module):
            names |= set(all_params(node))
        fixer = SplitFixer(ctx, resolver, body, names, node)
        # A loop-carried reuse whose call is also the first use of a later reuse in the same
        # body: the later reuse's fix splits before both uses, which fixes this one too. Two
        # fixes would both split before the same line (`key, subkey = split(subkey3)`).
        covering = {id(r.first): r for r in reuses if not r.across_iterations}
        for reuse in reuses:
            covered = covering.get(id(reuse.call)) if reuse.across_iterations else None
            # Drawn through an object or a module function, or rebuilt: no key here to split.
            drawn_elsewhere = type(reuse.key) in (DrawnThroughObject, DrawnThroughGlobal)
            # A helper handing back its consumed key: splitting here still keeps what it returns.
            no_fix = drawn_elsewhere or reuse.rebuilt or reuse.handed_back
            fix = None if no_fix else fixer.fix(covered if covered is not None else reuse)
            # A draw that consumes the key again on the next iteration is its own first use:
            # a related place pointing at the flagged call itself says nothing.
            itself = reuse.first is reuse.call and reuse.first_unit == ctx.unit_start
            yield replace(
                ctx.finding(self, reuse.call, _message(reuse, resolver, ctx), fix=fix),
                related=() if itself else (_first_use(reuse, ctx),),
            )
        for use in repeated:
            message = _repeated_message(use)
            where = f"the `{use.runner_name}` that runs it repeatedly"
            yield replace(
                ctx.finding(self, use.call, message),
                related=(Related(ctx.span(use.runner.func), where),),
            )


def _replayed_seed(reuse: Reuse, resolver: Resolver) -> bool:
    """Both uses seed a numpyro program (`handlers.seed(fn, key)`) with the key."""
    seed = "numpyro.handlers.seed"
    first, second = resolver.qualname(reuse.first.func), resolver.qualname(reuse.call.func)
    return first == seed and second == seed


def _message(reuse: Reuse, resolver: Resolver, ctx: RuleContext) -> str:
    if type(reuse.key) is DrawnThroughObject:
        stored = f"self.{reuse.key.attr}"
        again = "on every iteration" if reuse.across_iterations else "again"
        return (
            f"This call draws from `{stored}` {again}: `{reuse.key.method}` consumes "
            f"`{stored}` and nothing but `__init__` assigns it, so every call gives the same "
            f"random numbers. Split it in the method and keep the new key "
            f"(`{stored}, subkey = jax.random.split({stored})`), or pass a key in"
        )
    if type(reuse.key) is DrawnThroughGlobal:
        first = ast.unparse(reuse.first.func)
        return (
            f"This call draws from the module-level `{reuse.name}` again: "
            f"`{reuse.key.function}` consumes `{reuse.name}` and never rebinds it, and "
            f"`{first}(...)` already drew from it, so both give the same random numbers. "
            f"Pass a key in and split it before each call "
            f"(`{reuse.name}, subkey = jax.random.split({reuse.name})`)"
        )
    # As the code spells it (`state["key"]`): the reuse sits in the unit reported on.
    key = reuse.name if isinstance(reuse.key, ast.Name) else ctx.segment(reuse.key)
    if reuse.handed_back:
        helper = ast.unparse(reuse.first.func)
        again = " on every iteration" if reuse.across_iterations else ""
        return (
            f"`{helper}(...)` consumes its key and returns it unchanged, and the code keeps it "
            f"as `{key}`: this call draws from that consumed key again{again}, so it gets the "
            f"same random numbers. Split in `{helper}` and return the new key, or split "
            f"`{key}` before the call"
        )
    if reuse.derived:
        first = ast.unparse(reuse.first.func)
        where = "on every iteration" if reuse.across_iterations else f"by `{first}(...)`"
        return (
            f"`{key}` was already used {where} the same way: the library derives its random "
            "numbers from the key alone (flax folds in the module's path), so this call gets "
            f"the same numbers (the same initial weights, the same dropout mask). Split "
            f"`{key}` and give each call its own subkey"
        )
    if reuse.rebuilt:
        return (
            f"`{key}` is built anew from the same seed on every iteration of the loop this "
            "body runs in, so each iteration draws the same numbers: carry a key through the "
            "loop and split it every step, or fold the step in "
            f"(`jax.random.fold_in(key, i)`)"
        )
    if reuse.carried:
        new = key if isinstance(reuse.key, ast.Name) else "new_key"
        return (
            f"Split `{key}` in the loop body (`{new}, subkey = jax.random.split({key})`), draw "
            f"from `subkey` and return `{new}` in the carry: the body consumes `{key}` and "
            "returns it unchanged, so every iteration draws the same numbers"
        )
    if reuse.in_comprehension and reuse.across_iterations:
        return (
            f"Split `{key}` into one key per element (`jax.random.split({key}, n)`) and draw "
            f"from those: the comprehension consumes `{key}` for every element, so all elements "
            "get the same numbers"
        )
    if reuse.across_iterations:
        return (
            f"Split `{key}` in the loop body and use the new subkey here "
            f"(`{key}, subkey = jax.random.split({key})`): the loop consumes `{key}` on "
            "every iteration without rebinding it, so each iteration draws the same numbers"
        )
    first = ast.unparse(reuse.first.func)  # it may sit in another unit
    if resolver.qualname(reuse.first.func) == "jax.random.split":
        # The first use was the split itself: "split before its first use" would be circular.
        return (
            f"`{key}` was already split by `{first}(...)`: use one of the keys that split "
            f"returned, or split `{key}` into one more subkey there. Drawing from `{key}` "
            "again gives numbers correlated with its subkeys"
        )
    return (
        f"Split `{key}` before its first use and give each use its own subkey: "
        f"`{first}(...)` already consumed it, and the same key gives the same random numbers"
    )


def _repeated_message(use: RepeatedUse) -> str:
    key = use.key.id
    if use.runner_name == "tree_map":
        return (
            f"Split `{key}` into one key per leaf: the function given to `tree_map` closes "
            f"over `{key}` and consumes it for every leaf, so all leaves get the same numbers"
        )
    return (
        f"Carry `{key}` through the `{use.runner_name}` and split it every step: the body "
        f"closes over `{key}` and consumes it on every iteration, so each iteration draws "
        "the same numbers"
    )


def _first_use(reuse: Reuse, ctx: RuleContext) -> Related:
    key = reuse.name if isinstance(reuse.key, ast.Name) else ctx.segment(reuse.key)
    message = f"`{key}` first consumed here"
    if type(reuse.key) is DrawnThroughObject:
        message = f"`self.{reuse.key.attr}` first drawn from here"
    if reuse.first_unit == ctx.unit_start:
        return Related(ctx.span(reuse.first), message)
    lines = ctx.model.document.lines
    return Related(document_span(lines, reuse.first_unit, reuse.first), message, True)


RULES: tuple[type[Rule], ...] = (StatefulRandomInTraced, PrngKeyReuse)
