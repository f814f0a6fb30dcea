"""JSON's `noqa_row` is the line where a `# noqa` is legal and honoured: for a finding on a line
that opens a multi-line string, or inside one (a field of a multi-line f-string), the line where
the string ends, as ruff places it. A comment written there silences the finding."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from tests.cli.helpers import jax_lsp
from tests.test_ipynb import notebook_json

STRINGS = textwrap.dedent(
    '''\
    import jax


    @jax.jit
    def step(x):
        print(f"""step
        value {x}""")
        y = x.item() + len(f"""a
        {x}""")
        msg = f"""a {
            x.item()
        } b"""
        return y + x.item()
    '''
)


def _rows(path: Path) -> list[tuple[str, int, int]]:
    run = jax_lsp("check", "--output-format", "json", path.name, cwd=path.parent)
    rows = json.loads(run.stdout)
    return [(row["code"], row["location"]["row"], row["noqa_row"]) for row in rows]


def test_noqa_row_is_where_the_string_ends_and_a_noqa_there_silences(tmp_path: Path):
    path = tmp_path / "a.py"
    path.write_text(STRINGS)
    rows = _rows(path)
    assert rows == [
        ("JAX101", 6, 7),  # the print opens the string: after its closing quotes
        ("JAX703", 8, 9),
        ("JAX703", 11, 12),  # inside the string: a comment there would be its text
        ("JAX703", 13, 13),  # no string: its own line
    ]
    lines = STRINGS.split("\n")
    for code, _, noqa_row in rows:
        lines[noqa_row - 1] += f"  # noqa: {code}"
    path.write_text("\n".join(lines))
    compile(path.read_text(), str(path), "exec")  # every comment is outside the strings
    assert _rows(path) == []


def test_a_notebook_noqa_row_counts_in_its_cell(tmp_path: Path):
    path = tmp_path / "a.ipynb"
    cells = [("code", "import jax\n"), ("code", STRINGS.split("\n", 2)[2])]
    path.write_text(notebook_json(*cells))
    rows = json.loads(jax_lsp("check", "--output-format", "json", "a.ipynb", cwd=tmp_path).stdout)
    assert [(r["cell"], r["location"]["row"], r["noqa_row"]) for r in rows] == [
        (2, 4, 5),
        (2, 6, 7),
        (2, 9, 10),
        (2, 11, 11),
    ]
