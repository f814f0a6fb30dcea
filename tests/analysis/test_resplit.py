"""Re-splitting only the edited units gives exactly the units of a whole split."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jax_lsp.analysis.document import Document, _may_keep_code, resplit_units
from jax_lsp.analysis.text import identifiers
from tests.analysis.editing import (
    REAL_FILES,
    assert_same_tree,
    edit_sequences,
    edited_lines,
)

FIXTURES = sorted((Path(__file__).parent.parent / "fixtures").glob("*.py"))
# Lines that move unit boundaries in every way the splitter knows: new top-level statements,
# decorators, continuations, brackets and strings left open, indentation, half-typed code.
SNIPPETS = [
    "",
    "# a comment",
    "x = 1",
    "    y = x + 1",
    "        return y",
    "def f(x):",
    "    return x",
    "class C:",
    "    def m(self):",
    "@jax.jit",
    "@partial(jax.jit, static_argnums=0)",
    "else:",
    "    pass",
    "except ValueError:",
    "z = (",
    ")",
    "]",
    "value = jnp.",
    "call(1,",
    '"""',
    "'''",
    '    """docstring"""',
    "if x:",
    "import jax",
]


def _layout(document: Document) -> list[tuple[int, str]]:
    return [(unit.start_line, unit.text) for unit in document.units]


@settings(max_examples=300, deadline=None)
@given(fixture=st.sampled_from(FIXTURES), edits=edit_sequences(SNIPPETS, 3, 4))
def test_resplit_equals_a_whole_split(fixture, edits):
    document = Document(fixture.read_text(encoding="utf-8"))
    for where, removed, inserted in edits:
        text = "\n".join(edited_lines(document.lines, where, removed, inserted))
        edited = Document(text, previous=document)
        assert _layout(edited) == _layout(Document(text))
        document = edited


def test_an_edit_inside_a_function_reuses_every_other_unit():
    text = "import jax\n\n\ndef f(x):\n    return x\n\n\ndef g(y):\n    return y\n"
    before = Document(text)
    after_text = text.replace("return x", "return x + 1  # typed")
    units = resplit_units(before, after_text.split("\n"))
    assert units is not None  # re-split locally, not given up
    assert units[0].source is before.units[0].source
    assert units[-1].source is before.units[-1].source
    assert _layout(Document(after_text, previous=before)) == _layout(Document(after_text))


def test_edits_that_may_move_distant_boundaries_split_the_whole_text():
    text = "def f():\n    pass\n\n\ndef g():\n    pass\n"
    before = Document(text)
    assert resplit_units(before, text.replace("pass", 'x = """', 1).split("\n")) is None
    assert resplit_units(before, text.replace("pass", "x = jnp.", 1).split("\n")) is None


# Text typed at the end of a line that holds a triple quote (a docstring's closing quotes, a
# one-line docstring, a string opened there): only quote-free, backslash-free text keeps the
# re-split local; the rest must give the same units by splitting everything again.
LINE_ENDINGS = ["; pass", "  # typed", " x", "'", '"', "\\", '"""', "'''", " + 'a'", ""]
QUOTED_TEXTS = [
    text
    for text in (path.read_text(encoding="utf-8") for path in [*FIXTURES, *REAL_FILES])
    if '"""' in text or "'''" in text
] + [
    'import jax\n\n\nclass C:\n    """Doc.\n\n    More.\n    """\n\n'
    '    def m(self, x):\n        """One line."""\n        return x\n\n'
    '    def n(self):\n        s = """a\n        b"""\n        return s\n\n\n'
    'def f():\n    """\n    Opened here.\n    """\n    return 1\n',
]


@settings(max_examples=300, deadline=None)
@given(
    text=st.sampled_from(QUOTED_TEXTS),
    picks=st.lists(
        st.tuples(st.floats(0, 1), st.sampled_from(LINE_ENDINGS)), min_size=1, max_size=4
    ),
)
def test_text_typed_after_a_triple_quote_gives_the_units_of_a_whole_split(text, picks):
    document = Document(text)
    for where, ending in picks:
        quoted = [i for i, line in enumerate(document.lines) if '"""' in line or "'''" in line]
        if not quoted:
            break
        lines = list(document.lines)
        lines[quoted[int(where * (len(quoted) - 1))]] += ending
        text = "\n".join(lines)
        edited = Document(text, previous=document)
        assert _layout(edited) == _layout(Document(text))
        for unit in edited.units:
            if _parses_as_written(unit):
                assert_same_tree(unit.tree, ast.parse(unit.text))
        document = edited


def test_code_typed_after_a_docstring_re_splits_locally():
    text = 'class C:\n    def m(self):\n        """Doc."""\n        return 1\n\n\nx = 1\n'
    before = Document(text)
    typed = text.replace('"""Doc."""', '"""Doc."""; pass')
    assert resplit_units(before, typed.split("\n")) is not None
    # Quotes or a backslash after the closing quotes may open a string: split everything.
    for ending in ("; s = 'a", '; s = "a', " \\"):
        quoted = text.replace('"""Doc."""', '"""Doc."""' + ending)
        assert resplit_units(before, quoted.split("\n")) is None


# Lines typed inside class bodies: members of every kind, half-typed ones, indentation that
# leaves the body, lines added and removed (the members after them move).
MEMBER_SNIPPETS = [
    "",
    "    # a comment",
    "    x: int = 1",
    "    def m(self, x):",
    "        return x",
    "        y = x + 1; z = y",
    "    @jax.jit",
    "    @property",
    "    class Inner:",
    "        pass",
    "  x = 2",
    "x = 3",
    "        if x",
    "        call(1,",
    "    )",
    "\tz = 1",
]
# A class of every kind of member, and the real files and fixtures that hold classes.
_MEMBERS = (
    '    """A docstring."""\n',
    "    n: int = 0\n    scale = 2.0; offset = 1\n",
    "    @jax.jit\n    def step(self, x):\n"
    "        if x > 0:\n            x = x - 1\n        return x\n",
    "    @property\n    def size(self):\n        return self.n  # trailing comment\n",
    "    class Inner:\n        def m(self):\n            pass\n",
    "    def loop(self, xs):\n"
    "        for x in xs:\n            yield (\n                x\n            )\n",
)
CLASS_TEXTS = [
    "import jax\n\n\nclass Model:\n" + "\n".join(_MEMBERS * 3) + "\n# after\nvalue = 1\n",
    *(
        path.read_text(encoding="utf-8")
        for path in [*FIXTURES, *REAL_FILES]
        if "\nclass " in path.read_text(encoding="utf-8")
    ),
]


def _parses_as_written(unit) -> bool:
    return unit.tree is not None and unit.source.problem is None


@settings(max_examples=300, deadline=None)
@given(
    text=st.sampled_from(CLASS_TEXTS),
    edits=edit_sequences(MEMBER_SNIPPETS, 2, 4),
)
def test_a_class_edited_in_its_body_has_the_tree_a_whole_parse_gives(text, edits):
    _assert_edited_units_parse_as_written(text, edits)


def _assert_edited_units_parse_as_written(text: str, edits) -> None:
    """After each edit, the units are a whole split's, each with the tree `ast.parse` gives."""
    document = Document(text)
    for where, removed, inserted in edits:
        text = "\n".join(edited_lines(document.lines, where, removed, inserted))
        edited = Document(text, previous=document)
        assert _layout(edited) == _layout(Document(text))
        for unit in edited.units:
            if _parses_as_written(unit):
                fresh = ast.parse(unit.text)
                assert_same_tree(unit.tree, fresh)
        document = edited


def test_an_edit_inside_a_method_parses_that_method_only():
    methods = "".join(f"    def m{i}(self, x):\n        return x + {i}\n\n" for i in range(4))
    text = f"import jax\n\n\nclass C:\n    n: int = 0\n\n{methods}\nvalue = 1\n"
    before = Document(text)
    after = Document(text.replace("x + 2", "x * 2  # typed"), previous=before)
    old_class, new_class = before.units[1].tree.body[0], after.units[1].tree.body[0]
    assert new_class is not old_class
    kept = [new is old for new, old in zip(new_class.body, old_class.body, strict=True)]
    assert kept == [True, True, True, False, True]  # the field, m0, m1 kept; m2 parsed again
    assert after.units[0].source is before.units[0].source
    # Lines added: the edited method and every member after it are parsed again.
    added = Document(text.replace("x + 1\n", "x + 1\n        # more\n"), previous=before)
    kept = [
        new is old
        for new, old in zip(added.units[1].tree.body[0].body, old_class.body, strict=True)
    ]
    assert kept == [True, True, False, False, False]
    assert_same_tree(added.units[1].tree, ast.parse(added.units[1].source.text))


def test_a_decorator_typed_on_the_blank_line_above_a_def_is_not_mistaken_for_a_comment():
    # The edit touches no line of the old `def` (its decorators started below the blank line),
    # yet the new parse's `def` has one more decorator: the kept parse would hide it.
    text = (
        "import jax\n\n\nclass C:\n    def a(self):\n        return 1\n\n"
        "    @property\n    def b(self):\n        return 2\n"
    )
    before = Document(text)
    after_text = text.replace("return 1\n\n", "return 1\n    @jax.jit\n")
    after = Document(after_text, previous=before)
    assert _layout(after) == _layout(Document(after_text))
    assert_same_tree(after.units[1].tree, ast.parse(after.units[1].source.text))
    decorated = after.units[1].tree.body[0].body[1]
    assert [ast.unparse(d) for d in decorated.decorator_list] == ["jax.jit", "property"]


# Lines typed inside function bodies: statements of every kind, blocks, half-typed ones,
# `await` and `yield` (which a stand-in class header must parse as the function's body does).
BODY_SNIPPETS = [
    "",
    "    # a comment",
    "    x = 1",
    "    return x",
    "    y = await step(x)",
    "    async for z in stream():",
    "        yield z",
    "    if x > 0:",
    "        x = x - 1",
    "    def inner(y):",
    "    @jax.jit",
    "    nonlocal total",
    "  x = 2",
    "x = 3",
    "        if x",
    "    call(1,",
    "    )",
    '    """docstring"""',
]
_STATEMENTS = (
    '    """A docstring."""\n',
    "    n = 0; scale = 2.0\n",
    "    if x > 0:\n        x = x - 1\n    else:\n        x = -x\n",
    "    @jax.jit\n    def inner(y):\n        return y * 2  # trailing comment\n",
    "    for item in items:\n        total = (\n            total + item\n        )\n",
    "    result = await step(x)\n    return result\n",
)
FUNCTION_TEXTS = [
    "import jax\n\n\n@jax.jit\nasync def run(x, items):\n"
    + "\n".join(_STATEMENTS * 3)
    + "\n# after\nvalue = 1\n",
    *(
        path.read_text(encoding="utf-8")
        for path in [*FIXTURES, *REAL_FILES]
        if "\ndef " in path.read_text(encoding="utf-8")
    ),
]


@settings(max_examples=300, deadline=None)
@given(text=st.sampled_from(FUNCTION_TEXTS), edits=edit_sequences(BODY_SNIPPETS, 2, 4))
def test_a_function_edited_in_its_body_has_the_tree_a_whole_parse_gives(text, edits):
    _assert_edited_units_parse_as_written(text, edits)


def test_an_edit_inside_a_function_parses_the_statements_it_touched_only():
    body = "".join(f"    x{i} = x + {i}\n" for i in range(4))
    text = f"import jax\n\n\ndef f(x):\n{body}    return x3\n\n\nvalue = 1\n"
    before = Document(text)

    def kept_statements(edited_text: str) -> list[bool]:
        """Which statements of the edited function's body are the last parse's own nodes."""
        after = Document(edited_text, previous=before)
        assert_same_tree(after.units[1].tree, ast.parse(after.units[1].source.text))
        old, new = before.units[1].tree.body[0].body, after.units[1].tree.body[0].body
        return [mine is theirs for mine, theirs in zip(new, old, strict=True)]

    typed = kept_statements(text.replace("x + 2", "x * 2  # typed"))
    assert typed == [True, True, False, True, True]  # only `x2 = ...` parsed again
    # The header changed: the function is parsed whole.
    assert not any(kept_statements(text.replace("def f(x):", "def f(x, y):")))


# Words that may straddle where a class is cut into pieces, non-ASCII text among them.
_WORD_SNIPPETS = [
    *MEMBER_SNIPPETS,
    "    # naïve café",
    "    def résumé(self):",
    "        return 'ünïcode\u2028words'",
    "    label = '\ud800'",
]


@settings(max_examples=200, deadline=None)
@given(text=st.sampled_from(CLASS_TEXTS), edits=edit_sequences(_WORD_SNIPPETS, 2, 4))
def test_the_words_of_an_edited_class_are_those_of_its_whole_text(text, edits):
    """A class's words are put together from its pieces (the members' lines, looked up by
    their text): the same set as reading the whole text, after any edit."""
    document = Document(text)
    for where, removed, inserted in edits:
        text = "\n".join(edited_lines(document.lines, where, removed, inserted))
        document = Document(text, previous=document)
        for unit in document.units:
            assert unit.source.words() == identifiers(unit.source.text)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("    return x + 1", "    return x + 1  # one more"),  # a comment typed
        ("    return x + 1  # one more", "    return x + 1"),  # and deleted
        ("    return x + 1", "    return x + 1   "),  # blanks at the end
        ('    return "#"', '    return "# more"'),  # a `#` in a string: the parses tell
    ],
)
def test_an_edit_of_comments_or_blanks_may_keep_the_code(before, after):
    assert _may_keep_code([before], [after])


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("    return x + 1", "    return x + 1; pass"),
        ("    return x + 1", "    return x + 2"),
        ("    return x + 1", "    return x +"),  # half-typed
        ("    return x", "    return y"),
    ],
)
def test_an_edit_of_a_token_changes_the_code(before, after):
    assert not _may_keep_code([before], [after])


# Suffixes typed at a line's end, and spans deleted: code, comments, blanks, brackets.
_SUFFIXES = ["  # note", " + 1", "x", ")", "(", " if a else b", "   ", ".T", '"', "  # x = (", ""]


@settings(max_examples=300, deadline=None)
@given(
    fixture=st.sampled_from(FIXTURES),
    where=st.floats(0, 1),
    suffix=st.sampled_from(_SUFFIXES),
    cut=st.tuples(st.integers(0, 80), st.integers(0, 6)),
)
def test_an_edit_said_to_change_the_code_changes_the_parse(fixture, where, suffix, cut):
    """The shortcut that skips comparing two parses after a code edit (`_may_keep_code`)
    says so only when they differ, positions included: it never drops a comment edit.
    (Lines holding `;` or `\\` are left out: a `;` deleted there changes no tree.)"""
    lines = fixture.read_text(encoding="utf-8").split("\n")
    row = int(where * (len(lines) - 1))
    old = lines[row]
    if ";" in old or "\\" in old:
        return
    start, length = min(cut[0], len(old)), cut[1]
    new = old[:start] + old[start + length :] + suffix
    if _may_keep_code([old], [new]):
        return
    edited = [*lines[:row], new, *lines[row + 1 :]]
    try:
        before, after = ast.parse("\n".join(lines)), ast.parse("\n".join(edited))
    except SyntaxError:
        return  # a text that does not parse is not kept either
    assert ast.dump(before, include_attributes=True) != ast.dump(after, include_attributes=True)


def test_an_edit_inside_a_method_parses_the_statements_it_touched_only():
    body = "".join(f"        x{i} = x + {i}\n" for i in range(4))
    text = (
        "import jax\n\n\nclass C:\n    n: int = 0\n\n"
        f"    def m(self, x):\n{body}        return x3\n\n    def last(self):\n        return 1\n"
    )
    before = Document(text)

    def kept(edited_text: str) -> tuple[list[bool], list[bool]]:
        """Which members of the class, and statements of `m`, are the last parse's nodes."""
        after = Document(edited_text, previous=before)
        assert_same_tree(after.units[1].tree, ast.parse(after.units[1].source.text))
        old, new = before.units[1].tree.body[0], after.units[1].tree.body[0]
        members = [mine is theirs for mine, theirs in zip(new.body, old.body, strict=True)]
        statements = [
            mine is theirs for mine, theirs in zip(new.body[1].body, old.body[1].body, strict=True)
        ]
        return members, statements

    # `m` is a new node (its class too), holding the old nodes of the statements not touched.
    assert kept(text.replace("x + 2", "x * 2")) == (
        [True, False, True],
        [True, True, False, True, True],
    )
    # Typed at the end of the last statement of the last method: every end moves with it.
    assert kept(text.replace("return 1", "return 1 + 2"))[0] == [True, True, False]
    # The method's header changed: the method is parsed whole.
    assert not any(kept(text.replace("def m(self, x):", "def m(self, y):"))[1])


# What a keystroke does to a line, the line count kept: the edits the nested splice takes.
_LINE_SUFFIXES = ["; pass", "  # typed", " + 1", "(", ":", ")", "\\", '"""', " x"]
_LINE_REPLACEMENTS = [
    *MEMBER_SNIPPETS,
    "      pass",
    "            return x",
    "   def g(self):",
    " class K:",
    "        @dec",
]


@settings(max_examples=300, deadline=None)
@given(
    text=st.sampled_from(CLASS_TEXTS),
    edits=st.lists(
        st.tuples(
            st.floats(0, 1),
            st.one_of(st.sampled_from(_LINE_SUFFIXES), st.integers(0, 30)),
            st.sampled_from(_LINE_REPLACEMENTS),
        ),
        min_size=1,
        max_size=5,
    ),
)
def test_a_line_edited_in_a_method_has_the_tree_a_whole_parse_gives(text, edits):
    """Keystrokes that keep the line count (what a method's statements are parsed alone
    for): text typed at a line's end, a line cut short, a line replaced."""
    lines = text.split("\n")
    placed = []  # as `edited_lines` takes them: where (a fraction), lines removed, inserted
    for where, change, replacement in edits:
        index = int(where * (len(lines) - 1))
        line = lines[index]
        if isinstance(change, str):
            lines[index] = line + change
        else:
            lines[index] = line[:change] if change < len(line) else replacement
        placed.append(((index + 0.5) / len(lines), 1, [lines[index]]))
    _assert_edited_units_parse_as_written(text, placed)


@pytest.mark.parametrize("header", ["def f(x):", "class C:\n    def f(self, x):"])
@pytest.mark.parametrize(
    ("before", "after"),
    [
        # The edited line ends one statement and starts the next.
        ("    x = (\n        1); pass\n    return x", "    x = (\n    pass\n    return x"),
        ("    x = (\n        1); pass\n    return x", "    x = (\n        2); pass\n    return x"),
        # The statement before the edited one ends on its line.
        ("    y = [\n    0]; x = 1\n    return x", "    y = [\n    0]; x = 2\n    return x"),
    ],
)
def test_an_edit_on_a_line_two_statements_share_parses_both(header, before, after):
    indent = "    " if header.startswith("class") else ""
    body = "\n".join(indent + line for line in before.split("\n"))
    edited_body = "\n".join(indent + line for line in after.split("\n"))
    text = f"import jax\n\n\n{header}\n{body}\n\n\nvalue = 1\n"
    edited = f"import jax\n\n\n{header}\n{edited_body}\n\n\nvalue = 1\n"
    incremental = Document(edited, previous=Document(text))
    for unit in incremental.units:
        # Against `ast.parse` itself: a whole split would read the parse cache, where the
        # incremental parse has just put its tree under the same text.
        try:
            expected = ast.parse(unit.text)
        except SyntaxError:
            assert unit.source.problem is not None
            continue
        assert_same_tree(unit.tree, expected)


@pytest.mark.parametrize("typed", [";", " ;  # done", "; pass;"])
def test_a_semicolon_after_a_blocks_last_statement_ends_the_block_where_the_parser_does(typed):
    text = (
        "class C:\n    def m(self, x):\n        y = x\n        return y\n\n\n"
        "def f(x):\n    return x\n"
    )
    lines = text.split("\n")
    placed = [((index + 0.5) / len(lines), 1, [lines[index] + typed]) for index in (3, 7)]
    _assert_edited_units_parse_as_written(text, placed)
