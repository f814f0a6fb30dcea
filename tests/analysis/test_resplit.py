"""Re-splitting only the edited units gives exactly the units of a whole split."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from jax_lsp.analysis.document import Document, resplit_units
from tests.analysis.editing import edit_sequences, edited_lines

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
    return [(unit.start_line, unit.source.text) for unit in document.units]


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
