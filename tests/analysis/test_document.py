"""Splitting a document into units, and recovering from half-typed code."""

from __future__ import annotations

import ast
import gc
import textwrap
import weakref

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.diagnostics import ALL_RULES
from jax_lsp.engine import analyze
from jax_lsp.text import byte_col_to_char, char_col_to_units, units_to_char_col
from tests.runtime import run_snippet


def _starts(text: str) -> list[int]:
    return [unit.start_line for unit in Document(textwrap.dedent(text)).units]


def test_top_level_statements_are_units_with_decorators_attached():
    assert _starts(
        """\
        import jax
        x = 1

        @jax.jit
        @other
        def f(x):
            return x
        class A:
            pass
        """
    ) == [0, 1, 3, 7]


def test_else_and_except_continue_their_statement():
    assert _starts(
        """\
        if a:
            pass
        else:
            pass
        try:
            pass
        except ValueError:
            pass
        finally:
            pass
        """
    ) == [0, 4]


def test_multiline_strings_and_brackets_at_column_zero_merge_into_one_unit():
    text = 'doc = """\nnot = code\n"""\ny = [\n1,\n]\nz = 1\n'
    document = Document(text)
    assert [unit.start_line for unit in document.units] == [0, 3, 6]
    assert all(unit.problem is None for unit in document.units)


# A table of numbers as mbirjax ships it (`bn256.py`): more rows at column 0 than the
# splitter merges candidates one by one, and strings holding brackets and `#`.
_ROWS = "".join(f"{row}, '#', \"]\", {row + 1},\n" for row in range(20))


def test_a_literal_longer_than_the_merge_limit_is_one_unit():
    text = f"import numpy as np\nTABLE = np.array([\n{_ROWS}], dtype=float).reshape(\n(4, 20))\n"
    text += "z = (\ndef f(x):\n    return x\n"  # a half-typed line after it: not the table's
    document = Document(text)
    starts = [unit.start_line for unit in document.units]
    assert starts == [0, 1, 24, 25]
    assert document.units[1].problem is None
    ast.parse(document.units[1].source.text)
    assert [problem.line for problem in document.problems] == [24]


def test_a_bracket_never_closed_before_the_next_def_is_still_reported_there():
    document = Document(f"TABLE = [\n{_ROWS}\ndef f(x):\n    return x\n")
    assert [(problem.line, problem.message) for problem in document.problems] == [
        (0, "'[' was never closed")
    ]
    assert document.units[-1].tree is not None  # the def after it is analysed


def test_units_parse_like_the_whole_module():
    text = textwrap.dedent(
        """\
        import jax.numpy as jnp
        x = jnp.zeros(3)
        def f(y):
            return y + \\
                1
        """
    )
    document = Document(text)
    whole = ast.parse(text)
    dumped = [ast.dump(stmt) for unit in document.units for stmt in unit.tree.body]
    # Same statements; line numbers are unit-relative, so compare without attributes.
    assert [d.split("(")[0] for d in dumped] == [type(s).__name__ for s in whole.body]


def test_half_typed_attribute_keeps_the_rest_of_the_function():
    text = "def f(x):\n    y = jnp.\n    return x[0]\n\ndef g():\n    pass\n"
    document = Document(text)
    assert [unit.tree is not None for unit in document.units] == [True, True]
    problem = document.units[0].problem
    assert problem is not None and problem.line == 1
    # The repaired tree still has the return statement.
    body = document.units[0].tree.body[0].body
    assert isinstance(body[-1], ast.Return)


def test_unclosed_call_and_missing_colon_are_repaired():
    for broken in ("    z = f(1,\n", "    if x > 0\n        return 1\n"):
        text = f"def f(x):\n{broken}    return x\n"
        unit = Document(text).units[0]
        assert unit.tree is not None
        assert unit.problem is not None


@pytest.mark.parametrize(
    ("typed", "header"),
    [
        ("if p", "If"),
        ("if pos > 0:", "If"),
        ("for i in r", "For"),
        ("while p", "While"),
        ("with o", "With"),
        ("def g(a)", "FunctionDef"),
        ("class A", "ClassDef"),
        ("try", "If"),  # `try:` without its handlers is read as `if True:`
        ("if x:  # why", "Pass"),
    ],
)
def test_half_typed_header_keeps_the_lines_after_it(typed, header):
    text = f"def f(x, pos):\n    {typed}\n    x[0] = 1\n    return x\n"
    body = Document(text).units[0].tree.body[0].body
    assert [type(statement).__name__ for statement in body] == [header, "Assign", "Return"]
    assert ast.unparse(body[1]) == "x[0] = 1"


@pytest.mark.parametrize(
    "typed",
    [
        "        if lr >",  # autoindent's 4 spaces plus the 4 typed: over-indented
        "            y = 2",  # a pasted line, deeper still
        "  y = 2",  # between two levels: "unindent does not match"
    ],
)
def test_a_line_indented_where_no_block_opens_keeps_the_rest_of_the_function(typed):
    text = f"def f(x, lr):\n    y = 1\n    z = 3\n{typed}\n    x[0] = 1\n    return x\n"
    unit = Document(text).units[0]
    assert unit.problem is not None and unit.problem.line == 3
    body = unit.tree.body[0].body
    assert [ast.unparse(statement) for statement in body] == [
        "y = 1",
        "z = 3",
        "x[0] = 1",
        "return x",
    ]


def test_try_whose_handlers_are_not_typed_keeps_its_body_and_the_rest():
    text = "def f(x):\n    try:\n        y = 1\n    x[0] = 1\n"
    body = Document(text).units[0].tree.body[0].body
    assert ast.unparse(body[0]) == "if True:\n    y = 1"
    assert ast.unparse(body[1]) == "x[0] = 1"


def test_unparsable_unit_does_not_hide_the_others():
    text = "x = (((\n\ndef g():\n    return 1\n"
    document = Document(text)
    assert document.units[-1].tree is not None
    assert document.problems


def test_same_text_reuses_the_parse():
    first = Document("def f():\n    return 1\n")
    second = Document("x = 1\ndef f():\n    return 1\n")
    assert first.units[0].source is second.units[1].source
    assert second.units[1].start_line == 1


def test_a_repeated_text_gets_a_parse_of_its_own_and_keeps_it():
    text = "import jax\ndef f(x):\n    return x\nimport jax\ndef f(x):\n    return x\n"
    first, again = Document(text), Document(text)
    sources = [unit.source for unit in first.units]
    assert sources[0].text == sources[2].text and sources[0] is not sources[2]
    assert first.units[1].tree is not first.units[3].tree
    assert ast.dump(first.units[1].tree) == ast.dump(first.units[3].tree)
    # The copies are cached: the next version reuses them, and the analyses memoised on them.
    assert all(a.source is b.source for a, b in zip(again.units, first.units, strict=True))


# A notebook showing the same function twice ("here's that example function again"): jitted
# with a static `x` in one cell, only differentiated in another. Python `if` is fine in both.
_SAME_FUNCTION_TWICE = """\
from jax import grad, jit

def f(x):
  if x < 3:
    return 3. * x ** 2
  else:
    return -4 * x

f = jit(f, static_argnames='x')
print(f(2.))

def f(x):
  if x < 3:
    return 3. * x ** 2
  else:
    return -4 * x

print(grad(f)(2.))
"""


def _jax701_lines(source: str) -> list[int]:
    findings = analyze(Document(source), ALL_RULES).findings
    return [f.span.start.line + 1 for f in findings if f.code == "JAX701"]


def test_a_function_repeated_in_a_later_cell_is_a_function_of_its_own():
    assert run_snippet(_SAME_FUNCTION_TWICE).error is None
    assert _jax701_lines(_SAME_FUNCTION_TWICE) == []


@pytest.mark.parametrize(
    "source, line",
    [
        # The first copy jitted without a static `x`: it alone raises.
        (_SAME_FUNCTION_TWICE.replace("jit(f, static_argnames='x')", "jit(f)"), 4),
        # The second copy jitted, the first only differentiated.
        (
            _SAME_FUNCTION_TWICE.replace("f = jit(f, static_argnames='x')\n", "").replace(
                "print(grad(f)(2.))", "print(jit(f)(2.))"
            ),
            12,
        ),
    ],
)
def test_only_the_jitted_copy_of_a_repeated_function_is_flagged(source, line):
    assert type(run_snippet(source).error).__name__ == "TracerBoolConversionError"
    assert _jax701_lines(source) == [line]


def test_nul_bytes_and_deep_nesting_do_not_raise():
    assert Document("x = 1\x00\n").problems
    assert Document("x = " + "(" * 5000 + ")" * 5000 + "\n").problems


def test_column_conversions_round_trip_with_astral_characters():
    line = "s = '中文😀' ; x"
    char_col = line.index("x")
    byte_col = len(line[:char_col].encode())
    assert byte_col_to_char(line, byte_col) == char_col
    utf16 = char_col_to_units(line, char_col, "utf-16")
    assert utf16 == char_col + 1  # the emoji takes two UTF-16 units
    assert units_to_char_col(line, utf16, "utf-16") == char_col
    utf8 = char_col_to_units(line, char_col, "utf-8")
    assert utf8 == byte_col
    assert units_to_char_col(line, utf8, "utf-8") == char_col


def test_crlf_and_lone_cr_split_lines_like_python():
    document = Document("import jax\r\nx = 1\ry = 2\n")
    assert len(document.lines) == 4
    assert [unit.start_line for unit in document.units] == [0, 1, 2]


def test_earlier_versions_are_freed_while_half_typed_code_is_cached():
    """A failed parse is cached with its error; the error must not keep, through its
    traceback's frames, the documents being built when it was raised."""
    base = "import jax\n\n@jax.jit\ndef f(x):\n    return x\n\n"
    previous = Document(base)
    versions = [weakref.ref(previous)]
    for n in range(12):
        # Half-typed statements whose merge candidates fail to parse, each a new text.
        document = Document(f"{base}if x{n}\ny{n} = (1,\n", previous=previous)
        analyze(document, ALL_RULES)
        versions.append(weakref.ref(document))
        previous = document
    del document
    gc.collect()
    alive = [index for index, version in enumerate(versions) if version() is not None]
    assert alive == [len(versions) - 1]


def test_a_unit_memo_stays_bounded_while_module_facts_keep_changing():
    """Each new module-level name changes facts in every unit's keys; a long session must
    not keep every version's entries."""
    function = "@jax.jit\ndef f(x):\n    return x + 1\n"
    previous = Document(f"import jax\n\n{function}")
    for n in range(120):
        document = Document(f"import jax\n\n{function}y{n} = {n}\n", previous=previous)
        analyze(document, ALL_RULES)
        previous = document
    memo = next(unit.source.memo for unit in previous.units if unit.source.text == function)
    assert 20 < len(memo) <= memo.limit


def test_node_lines_are_the_whole_lines_each_node_spans():
    """`node_lines` keeps where lines start, not the lines: the same text as joining them,
    for every node, and for spans past the text's end or empty."""
    text = textwrap.dedent(
        """\
        class A:
            def f(self, x):  # é
                return (x +
                        1)

            g = lambda self: [
                y for y in ()]
        """
    )
    source = Document(text).units[0].source
    lines = source.text.split("\n")
    spanned = [n for n in ast.walk(source.tree) if getattr(n, "end_lineno", None) is not None]
    assert len(spanned) > 10
    for node in spanned:
        assert source.node_lines(node) == "\n".join(lines[node.lineno - 1 : node.end_lineno])
    past = ast.Pass(lineno=len(lines) - 1, end_lineno=len(lines) + 4)
    empty = ast.Pass(lineno=3, end_lineno=2)
    for node in (past, empty):
        assert source.node_lines(node) == "\n".join(lines[node.lineno - 1 : node.end_lineno])


def test_unit_words_share_one_string_per_word():
    """The word sets kept per unit (and per piece of a long class) hold interned strings: a
    common word is one object however many units hold it, the parser's own name."""
    member = "    def m{}(self, jnp_value):\n        return jnp_value\n"
    members = "\n".join(member.format(i) for i in range(5))
    document = Document(f"def f(jnp_value):\n    return jnp_value\n\nclass A:\n{members}")
    function, cls = (unit.source for unit in document.units)
    assert len(cls.tree.body[0].body) >= 4  # read piece by piece
    first = next(w for w in function.words() if w == "jnp_value")
    second = next(w for w in cls.words() if w == "jnp_value")
    name = function.tree.body[0].args.args[0].arg
    assert first is second is name


def test_words_for_one_analysis_equal_those_for_later_versions() -> None:
    # A class of many members is read member by member for its next version, whole (and not
    # interned) for a text analysed once: the same words either way.
    from jax_lsp.analysis import document as document_module
    from jax_lsp.analysis.text import identifiers

    members = "".join(f"    def m{i}(self, x):\n        return x + {i}  # é\n" for i in range(6))
    text = f"class Big:\n    '''Doc words.'''\n{members}"
    document_module.clear_caches()
    later = Document(text).units[0].source.words()
    try:
        document_module.words_for_later_versions(False)
        document_module.clear_caches()
        once = Document(text).units[0].source.words()
    finally:
        document_module.words_for_later_versions(True)
    assert later == once == identifiers(text) and "m5" in once


@pytest.mark.parametrize(
    "text",
    [
        'import jax\n\n\n@jax.jit\ndef f(x):\n    y = 1\n    s = "unterminated\n    return x\n',
        "import jax\n@jax.jit\ndef f(x):\n",
        "import jax\n\nif jax:\n    x = (1,\n         2]\n",
    ],
    ids=["detected-at", "after-definition", "closing-bracket"],
)
def test_a_syntax_error_names_the_lines_python_names(text: str):
    """The unit that does not parse starts further down: the lines Python's message names
    are the document's, as `python file.py` reports them."""
    with pytest.raises(SyntaxError) as raised:
        compile(text, "<file>", "exec")
    (problem,) = Document(text).problems
    assert problem.message == raised.value.msg
