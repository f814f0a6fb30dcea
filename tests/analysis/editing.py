"""Random edit sequences for the incremental-analysis property tests: each edit replaces
`removed` lines at a relative position `where` (0 to 1) with some of the given snippets."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from jax_lsp.analysis.document import Document

TESTS = Path(__file__).parent.parent
FIXTURES = sorted((TESTS / "fixtures").glob("*.py"))
# Real files of the pinned corpus, when it has been fetched (bench/corpus.py).
CORPUS = TESTS.parent / "bench" / ".cache" / "corpus"
REAL_FILES = [
    CORPUS / name
    for name in (
        "numpyro/numpyro/distributions/constraints.py",
        "diffrax/diffrax/_solution.py",
        "optax/optax/_src/transform.py",
    )
    if (CORPUS / name).is_file()
]


def edit_sequences(snippets: list[str], max_removed: int, max_edits: int) -> st.SearchStrategy:
    return st.lists(
        st.tuples(
            st.floats(0, 1),
            st.integers(0, max_removed),
            st.lists(st.sampled_from(snippets), max_size=3),
        ),
        min_size=1,
        max_size=max_edits,
    )


def edited_lines(lines: list[str], where: float, removed: int, inserted: list[str]) -> list[str]:
    start = int(where * len(lines))
    return [*lines[:start], *inserted, *lines[start + removed :]]


def edited_versions(
    document: Document, edits: list[tuple[float, int, list[str]]]
) -> Iterator[tuple[str, Document]]:
    """Each edit's text and its document, built from the previous version (as the server
    builds it)."""
    for where, removed, inserted in edits:
        text = "\n".join(edited_lines(document.lines, where, removed, inserted))
        document = Document(text, previous=document)
        yield text, document


def assert_same_tree(tree: ast.AST, expected: ast.AST) -> None:
    """`ast.dump(tree, include_attributes=True) == ast.dump(expected, ...)`, asserted. The trees
    are compared node by node first (dumping whole modules at every edit was most of these
    tests' time); only when that finds a difference are they dumped, to decide and to show it."""
    if not _same_tree(tree, expected):
        dump = ast.dump(tree, include_attributes=True)
        assert dump == ast.dump(expected, include_attributes=True)


def _same_tree(a: Any, b: Any) -> bool:
    """As strict as equal dumps: the same node types, fields and positions, and leaves of the
    same type and repr (`0.0 == -0.0`, `nan != nan`)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, ast.AST):
        return all(
            _same_tree(getattr(a, name, None), getattr(b, name, None))
            for name in (*a._fields, *a._attributes)
        )
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same_tree, a, b))
    if isinstance(a, float | complex):
        return repr(a) == repr(b)
    return a == b
