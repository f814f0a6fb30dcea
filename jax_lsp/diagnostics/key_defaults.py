"""A PRNG key built in a default argument value (JAX604)."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

from jax_lsp.analysis.nodes import walk_once
from jax_lsp.codeactions.key_default import require_key_fix
from jax_lsp.diagnostics.base import Example, Rule, RuleContext
from jax_lsp.findings import Applicability, Finding, Severity

# Calls that make a key (or keys) from a seed or another key.
_KEY_MAKERS = frozenset(
    {
        "jax.random.PRNGKey",
        "jax.random.key",
        "jax.random.split",
        "jax.random.fold_in",
        "jax.random.wrap_key_data",
    }
)


class KeyInDefaultArgument(Rule):
    code = "JAX604"
    fix_applicabilities = frozenset({Applicability.UNSAFE})
    name = "key-in-default-argument"
    summary = "A PRNG key built in a default argument value"
    severity = Severity.WARNING
    what_it_does = """
        Flags a default argument value that builds a PRNG key (`jax.random.PRNGKey(0)`,
        `jax.random.key(0)`, a `split` or `fold_in` of one), aliases resolved.
    """
    why_bad = """
        Python evaluates a default once, when the `def` runs: every call that leaves the
        argument out gets the same key, and draws the same "random" numbers (the same noise,
        the same dropout mask, the same initialisation) call after call, silently.
    """
    fix_safety = """
        The default becomes `None` and the function raises `TypeError` when a caller leaves
        the key out, so each caller passes a key of its own. Unsafe: callers that relied on
        the default fail until they pass one.
    """
    node_types = (ast.FunctionDef, ast.AsyncFunctionDef)
    invalid = (
        Example(
            """
            import jax

            def noise(shape, key=jax.random.PRNGKey(0)):  # error
                return jax.random.normal(key, shape)

            a = noise((3,))
            b = noise((3,))
            """,
            check="assert (a == b).all()  # the same numbers twice",
        ),
    )
    valid = (
        Example(
            """
            import jax

            def noise(shape, key):
                return jax.random.normal(key, shape)

            key_a, key_b = jax.random.split(jax.random.key(0))
            a = noise((3,), key_a)
            b = noise((3,), key_b)

            def init(shape, seed=0):  # a seed is a number: the key is made per call
                return jax.random.normal(jax.random.key(seed), shape)
            """,
            check="assert not (a == b).all()",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> Iterable[Finding]:
        assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        # Not a generator: most functions have no default, and leave without making one.
        if not node.args.defaults and not node.args.kw_defaults:
            return ()
        return self._defaults(node, ctx)

    def _defaults(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, ctx: RuleContext
    ) -> Iterator[Finding]:
        arguments = node.args
        positional = [*arguments.posonlyargs, *arguments.args]
        pairs = list(
            zip(
                positional[len(positional) - len(arguments.defaults) :],
                arguments.defaults,
                strict=True,
            )
        )
        pairs += [
            (a, d)
            for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
            if d is not None
        ]
        for parameter, default in pairs:
            maker = self._key_maker(default, ctx)
            if maker is None:
                continue
            message = (
                f"The default of `{parameter.arg}` builds a PRNG key (`{maker}`) once, when "
                f"`{node.name}` is defined: every call that leaves it out draws the same "
                "numbers. Instead, take the key as an argument on every call"
            )
            fix = require_key_fix(node, parameter.arg, default, ctx)
            yield ctx.finding(self, default, message, fix=fix)

    @staticmethod
    def _key_maker(default: ast.expr, ctx: RuleContext) -> str | None:
        """The key-making call in `default` (`jax.random.split(jax.random.key(0))[0]`)."""
        for part in walk_once(default):
            if isinstance(part, ast.Call) and ctx.qualname(part.func) in _KEY_MAKERS:
                return ctx.segment(part.func)
            if isinstance(part, ast.Lambda):  # a lambda's body runs at each call
                return None
        return None


RULES = [KeyInDefaultArgument]
