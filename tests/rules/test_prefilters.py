"""What a rule declares it can act on, applied by the runner before `check`: the names its calls
end with (`Rule.call_names`), the names of the attributes it looks at (`Rule.attribute_names`)
and the words the lines of a node must spell (`Rule.prefilter`),
or, for a part of its check, the words that part needs (`prefiltered`). A rule's findings are
the same without each declaration, on every documented example and fixture, and under an
import alias."""

from __future__ import annotations

import ast
import functools
import textwrap
from pathlib import Path

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.diagnostics import ALL_RULES
from jax_lsp.diagnostics.base import Example, Rule, RuleContext, Spelled, prefiltered
from jax_lsp.engine import analyze
from jax_lsp.findings import Finding

FIXTURES = Path(__file__).parent.parent / "fixtures"
CALLING = [rule for rule in ALL_RULES if rule.call_names is not None]
NAMING_ATTRIBUTES = [rule for rule in ALL_RULES if rule.attribute_names is not None]
PREFILTERED = [rule for rule in ALL_RULES if rule.prefilter is not None]


def _prefiltered_parts(rule: type[Rule]) -> list[str]:
    """The methods of the rule that `prefiltered` wraps."""
    return sorted(
        name
        for klass in rule.__mro__
        for name, value in vars(klass).items()
        if hasattr(value, "prefilters")
    )


def _filters(rule: type[Rule]) -> tuple[Spelled, ...]:
    prefilter = rule.prefilter
    return prefilter if isinstance(prefilter, tuple) else (prefilter,)  # type: ignore[return-value]


PARTS = [(rule, part) for rule in ALL_RULES for part in _prefiltered_parts(rule)]
# Of a rule with several filters, each one on its own ("prefilter[1]") as well as all of them.
EACH_FILTER = [
    (rule, f"prefilter[{index}]")
    for rule in PREFILTERED
    if isinstance(rule.prefilter, tuple)
    for index in range(len(rule.prefilter))
]
DECLARATIONS = (
    [(rule, "call_names") for rule in CALLING]
    + [(rule, "attribute_names") for rule in NAMING_ATTRIBUTES]
    + [(rule, "prefilter") for rule in PREFILTERED]
    + EACH_FILTER
    + PARTS
)


def _undeclared(rule: type[Rule], declaration: str) -> type[Rule]:
    if declaration in ("call_names", "attribute_names", "prefilter"):
        return type(rule.__name__, (rule,), {declaration: None})
    if declaration.startswith("prefilter["):
        index = int(declaration[len("prefilter[") : -1])
        others = tuple(f for i, f in enumerate(_filters(rule)) if i != index)
        return type(rule.__name__, (rule,), {"prefilter": others})
    # A part's filter gone: the method it wraps, unfiltered.
    return type(rule.__name__, (rule,), {declaration: getattr(rule, declaration).__wrapped__})


def _sources() -> list[str]:
    sources = [path.read_text() for path in sorted(FIXTURES.glob("*.py"))]
    for rule in ALL_RULES:
        sources += [example.code for example in (*rule.valid, *rule.invalid)]
    return sources


def _findings(source: str, rules: list[type[Rule]]) -> list[tuple]:
    found = analyze(Document(source), rules, reuse_findings=False).findings
    return [(f.code, f.span, f.message) for f in found]


@functools.cache
def _declared_findings(rule: type[Rule]) -> tuple[list[tuple], ...]:
    """The findings of `rule` as declared, on each of `_sources()`: the same for each of its
    declarations, so found once."""
    return tuple(_findings(source, [rule]) for source in _sources())


def test_some_rules_declare_their_calls_or_words() -> None:
    assert {rule.code for rule in CALLING} >= {"JAX501", "JAX902", "JAX903"}
    assert all(ast.Call in rule.node_types for rule in CALLING)
    assert {rule.code for rule in NAMING_ATTRIBUTES} >= {"JAX1101", "JAX1102"}
    assert all(ast.Attribute in rule.node_types for rule in NAMING_ATTRIBUTES)
    assert {rule.code for rule in PREFILTERED} >= {"JAX203", "JAX301", "JAX602"}
    for rule in PREFILTERED:
        for spelled in _filters(rule):
            assert spelled.on is None or set(spelled.on) <= set(rule.node_types)
    assert {(rule.code, part) for rule, part in PARTS} >= {
        ("JAX301", "_declared_elsewhere"),
        ("JAX402", "_bound_methods"),
        ("JAX602", "_repeated_uses"),
    }


@pytest.mark.parametrize(
    ("rule", "declaration"), DECLARATIONS, ids=lambda value: getattr(value, "code", value)
)
def test_a_declaration_loses_no_finding(rule: type[Rule], declaration: str) -> None:
    undeclared = _undeclared(rule, declaration)
    for source, declared in zip(_sources(), _declared_findings(rule), strict=True):
        assert declared == _findings(source, [undeclared])


def test_names_resolved_through_import_aliases() -> None:
    source = textwrap.dedent(
        """
        import jax
        import jax.numpy as jnp
        from jax.numpy import stack as st, asarray as aa

        def f(x):
            a = st([[1, 2], [3, 4]])
            c = aa(x, dtype=jnp.int32)
            d = jnp.zeros(3, dtype=jnp.int32).at[0].set(jnp.nan)
            e = jnp.linspace(0, 1, 5).astype(jnp.int8)
            return a, c, d, e

        y = jnp.ones(3)
        jax.config.update("jax_enable_x64", True)
        """
    )
    found = _findings(source, CALLING)
    assert found == _findings(source, [_undeclared(rule, "call_names") for rule in CALLING])
    assert [(code, span.start.line) for code, span, _ in found] == [
        ("JAX501", 6),
        ("JAX903", 8),
        ("JAX903", 9),
        ("JAX902", 13),
    ]


class _Recording(Rule):
    code = "JAX1098"
    name = "recording"
    summary = "Records the functions it is handed"
    what_it_does = "Nothing."
    why_bad = "Nothing."
    node_types = (ast.FunctionDef, ast.Expr)
    prefilter = Spelled(("needle",), bound_to=("jax.numpy.take",), on=(ast.FunctionDef,))
    valid = (Example("x = 1\n"),)
    handed: list[str] = []

    def check(self, node: ast.AST, ctx: RuleContext) -> list[Finding]:
        self.handed.append(node.name if isinstance(node, ast.FunctionDef) else "expr")
        return []


def test_the_walker_hands_a_rule_only_the_nodes_that_spell_its_words() -> None:
    source = textwrap.dedent(
        """
        from jax.numpy import take as pick

        def plain():
            f()

        def aliased(x):
            return pick(x, 1)

        def found():
            return needle

        def noted():  # a needle in a comment costs a call, never a finding
            pass
        """
    )
    _Recording.handed = []
    analyze(Document(source), [_Recording], reuse_findings=False)
    # Nodes of other types than `on` are handed as before.
    assert _Recording.handed == ["expr", "aliased", "found", "noted"]


class _Filtered(Rule):
    code = "JAX1097"
    name = "filtered"
    summary = "Records the functions its filters let through, and the parts it runs"
    what_it_does = "Nothing."
    why_bad = "Nothing."
    node_types = (ast.FunctionDef,)
    # Both must let a function through: it can name `jax`, and it spells a class of the
    # module, or holds a comment, or its name holds "needle" (a fact, whatever it spells).
    prefilter = (
        Spelled(binds=("jax",)),
        Spelled(
            named_by=(lambda model: model.classes,),
            tests=(lambda text, resolver: "#" in text,),
            found_by=lambda node, ctx: "needle" in node.name,
        ),
    )
    valid = (Example("x = 1\n"),)
    handed: list[str] = []
    parts: list[str] = []

    def check(self, node: ast.AST, ctx: RuleContext) -> list[Finding]:
        self.handed.append(node.name)  # type: ignore[attr-defined]
        self.parts.extend(self._part(node, ctx))
        return []

    @prefiltered(Spelled(("(",)), Spelled(("M",)))
    def _part(self, node: ast.AST, ctx: RuleContext) -> list[str]:
        return [node.name]  # type: ignore[attr-defined]


def test_filters_from_module_facts_tests_and_imports_must_all_let_a_node_through() -> None:
    source = textwrap.dedent(
        """
        import jax

        class Marker:
            pass

        def calls():
            Marker()

        def commented():
            return 1  # a comment

        def needle_found():
            pass

        def plain(x):
            pass
        """
    )
    _Filtered.handed, _Filtered.parts = [], []
    analyze(Document(source), [_Filtered], reuse_findings=False)
    assert _Filtered.handed == ["calls", "commented", "needle_found"]
    # The part runs only where the lines spell both "(" and "M".
    assert _Filtered.parts == ["calls"]
    _Filtered.handed = []
    analyze(Document(source.replace("import jax", "import numpy")), [_Filtered])
    assert _Filtered.handed == []  # nothing can name `jax`: no function is handed


def test_a_key_flow_passing_over_a_scope_with_no_key_consumed_loses_no_finding(
    monkeypatch,
) -> None:
    """`KeyFlow.run` from a fresh state returns at once where no call consumes a key (its
    classifier's answer), and JAX602 builds no classifier of a function's own helpers where
    no call of it consumes one by the module's roles: the findings of every rule on every
    example and fixture are those of the walk made everywhere, with every classifier."""
    from jax_lsp.analysis import keys
    from jax_lsp.diagnostics import key_scopes

    sources = [*_sources(), _NESTED_KEY_HELPERS]
    skipping = [_findings(source, ALL_RULES) for source in sources]
    assert any(finding[0] == "JAX602" for finding in skipping[-1])
    monkeypatch.setattr(keys, "may_consume", lambda statements, classify: True)
    monkeypatch.setattr(key_scopes, "may_consume", lambda statements, classify: True)
    assert skipping == [_findings(source, ALL_RULES) for source in sources]


# A function whose only draws are in functions it defines: found through `local_key_role`.
_NESTED_KEY_HELPERS = textwrap.dedent(
    """
    import jax

    def outer(key, x):
        def noise(k):
            return jax.random.normal(k, x.shape)

        def halves(k):
            return jax.random.split(k)

        a = noise(key)
        b = noise(key)
        first, _ = halves(key)
        return a + b + jax.random.uniform(first) + jax.random.uniform(first)
    """
)
