"""Random edit sequences for the incremental-analysis property tests: each edit replaces
`removed` lines at a relative position `where` (0 to 1) with some of the given snippets."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

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
