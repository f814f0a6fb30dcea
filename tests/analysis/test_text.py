"""Word prefilters over source text: they may say yes too often, never too rarely."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from jax_lsp.analysis.shapes import has_int_binding, may_index_literally
from jax_lsp.analysis.text import contains_word, identifiers


def test_whole_identifiers_only() -> None:
    assert contains_word("x = jr.normal(key)", "jr")
    assert contains_word("jr", "jr")
    assert not contains_word("x = jrandom.normal(key)", "jr")
    assert not contains_word("mjr = 1", "jr")
    assert not contains_word("jr_key = 1", "jr")
    assert contains_word("a = zeros_like(x); b = zeros(3)", "zeros")  # the second occurrence


def test_after_digits_counts() -> None:
    assert contains_word("2zeros", "zeros")  # a superset of the tokenizer's words is fine


@given(st.text(alphabet="ab_1 .(\n", max_size=30), st.sampled_from(["a", "ab", "b_", "a1"]))
def test_never_misses_an_identifier(text: str, word: str) -> None:
    identifiers = set(re.findall(r"[^\W\d]\w*", text))
    if word in identifiers:
        assert contains_word(text, word)


@given(st.text(alphabet="ab_1 .(\n'é#", max_size=40))
def test_identifiers_are_a_superset(text: str) -> None:
    assert set(re.findall(r"[^\W\d]\w*", text)) <= identifiers(text) | _after_digits(text)


def _after_digits(text: str) -> set[str]:
    """Words the regular expression finds inside `1abc` (not Python code: only keywords can
    follow a digit there)."""
    return {m.group(1) for m in re.finditer(r"\d([^\W\d]\w*)", text)}


# Text is translated as bytes: the words must be those the text's own translation gives
# (ASCII characters that cannot be part of an identifier made spaces), Unicode spaces,
# non-ASCII letters and lone surrogates included.
_NOT_IDENTIFIER = str.maketrans(
    {chr(c): " " for c in range(128) if not (chr(c).isalnum() or chr(c) == "_")}
)


_CHARACTERS = "ab_1 .(\n\t\x1c\x00é名\u00a0\u2028\u3000\ud800\U0001d518"


@given(st.text(alphabet=st.sampled_from(_CHARACTERS)))
def test_identifiers_are_the_words_of_the_translated_text(text: str) -> None:
    assert identifiers(text) == frozenset(text.translate(_NOT_IDENTIFIER).split())


@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_identifiers_of_ascii_text(text: str) -> None:
    assert identifiers(text) == frozenset(text.translate(_NOT_IDENTIFIER).split())


@given(st.text(alphabet="aé_1-= \t\n+<!(x", max_size=40))
def test_int_binding_as_the_pattern(text: str) -> None:
    # The scan behind each `=` answers what the word-boundary pattern it replaced answers.
    assert has_int_binding(text) == bool(re.search(r"\b\w+\s*=\s*-?\d", text))


def test_int_binding_examples() -> None:
    assert has_int_binding("N = 100")
    assert has_int_binding("x[i] = -1\nsize_2 =\n 3")
    assert not has_int_binding("if n == 0: pass")
    assert not has_int_binding("n += 1; m <= 2; y = n")


def test_literal_index_examples() -> None:
    assert may_index_literally("y = x[11]")
    assert may_index_literally("y = x[i, 0]")
    assert may_index_literally("y = jnp.take(x, i)")
    assert may_index_literally("N = 100")  # `x[N]` may follow
    assert not may_index_literally("y = x[i]\nz = x[:k]")
