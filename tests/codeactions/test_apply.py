"""`apply_edits` and `replacement` on texts of every line ending, against their definitions:
the fast paths for texts without "\r" (str.split instead of a pattern) must cut the same lines."""

from __future__ import annotations

import random
import re

import pytest

from jax_lsp.codeactions.apply import apply_edits, replacement
from jax_lsp.config import Settings
from jax_lsp.engine import check_source, enable_debug_nans
from jax_lsp.findings import Edit, Span
from jax_lsp.text import split_lines

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")  # a line with its ending


def _defined_replacement(old: str, new: str) -> Edit:
    """The definition: the lines both texts start and end with are left out."""
    old_lines, new_lines = _LINE.findall(old), _LINE.findall(new)
    prefix = 0
    while prefix < min(len(old_lines), len(new_lines)) and old_lines[prefix] == new_lines[prefix]:
        prefix += 1
    suffix = 0
    while (
        suffix < min(len(old_lines), len(new_lines)) - prefix
        and old_lines[len(old_lines) - 1 - suffix] == new_lines[len(new_lines) - 1 - suffix]
    ):
        suffix += 1
    middle = "".join(new_lines[prefix : len(new_lines) - suffix])
    return Edit(Span.of(prefix, 0, len(old_lines) - suffix, 0), middle)


def _texts(seed: int, count: int):
    rng = random.Random(seed)
    pieces = ["a", "b", "\n", "\n", "x\n", "", "\r", "\r\n"]
    for trial in range(count):
        pool = pieces if trial % 3 == 0 else pieces[:6]  # mostly without "\r"
        old = "".join(rng.choice(pool) for _ in range(rng.randint(0, 12)))
        new = "".join(rng.choice(pool) for _ in range(rng.randint(0, 12)))
        if rng.random() < 0.5:  # an edit inside the old text
            new = old[: rng.randint(0, len(old))] + new + old[rng.randint(0, len(old)) :]
        if rng.random() < 0.2:  # long shared heads and tails (compared in chunks)
            old, new = (old + "\n") * 70 + old + "q\n" * 70, (old + "\n") * 70 + new + "q\n" * 70
        yield old, new, rng


@pytest.mark.slow  # 20,000 random texts
def test_replacement_cuts_the_lines_its_definition_does():
    for old, new, _ in _texts(seed=16, count=20_000):
        assert replacement(old, new) == _defined_replacement(old, new), (old, new)
        assert apply_edits(old, [replacement(old, new)]) == new


def test_edits_land_where_the_lines_say():
    for old, _, rng in _texts(seed=17, count=5_000):
        lines = split_lines(old)
        line = rng.randrange(len(lines))
        column = rng.randint(0, len(lines[line]))
        edit = Edit(Span.of(line, column, line, column), "<>")
        cut = sum(len(text) for text in _LINE.findall(old)[:line]) + column
        assert apply_edits(old, [edit]) == old[:cut] + "<>" + old[cut:], (old, line, column)


def test_debug_nans_from_an_edited_versions_parse_is_the_fresh_parses():
    """The server hands `enable_debug_nans` the last analysis: a version parsed from the one
    before (a comment typed keeps the old parse) gives the text a fresh parse gives."""
    first = "import numpy as np\n\n\ndef f(x):\n    return x\n"
    analysis = check_source(first, "m.py", Settings())
    for text in (
        first.replace("return x", "return x  # typed"),
        "import jax\n" + first,
        first.replace("    return x", "    y = x\n    return y"),
    ):
        analysis = check_source(text, "m.py", Settings(), previous=analysis.document)
        assert enable_debug_nans(text, analysis) == enable_debug_nans(text)
        assert enable_debug_nans(text, analysis) != text
    stale = enable_debug_nans("x = 1\n", analysis)  # an analysis of another text: not used
    assert stale == 'import jax\n\njax.config.update("jax_debug_nans", True)\n\nx = 1\n'
