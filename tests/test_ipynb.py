"""Notebooks: code cells checked as one module, findings reported per cell, fixes written back."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from jax_lsp.findings import Position
from jax_lsp.ipynb import CELL_MARKER, Notebook


def notebook_json(*cells: tuple[str, str]) -> str:
    return json.dumps(
        {
            "cells": [
                {"cell_type": kind, "source": source.splitlines(keepends=True), "metadata": {}}
                | ({"outputs": [], "execution_count": None} if kind == "code" else {})
                for kind, source in cells
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


NOTEBOOK = notebook_json(
    ("markdown", "# Updating arrays\n"),
    ("code", "%matplotlib inline\nimport jax.numpy as jnp\nx = jnp.zeros(3)"),
    ("code", "!nvidia-smi\nx[0] = 1.0\nx.at[1].set(2.0)\nx.sum()"),
    ("code", "%%bash\necho not python"),
)


def test_cells_join_in_order_with_magics_blanked():
    notebook = Notebook.parse(NOTEBOOK)
    assert notebook.text.split("\n") == [
        "",
        "import jax.numpy as jnp",
        "x = jnp.zeros(3)",
        CELL_MARKER,
        "",
        "x[0] = 1.0",
        "x.at[1].set(2.0)",
        "x.sum()",
        CELL_MARKER,
        "",
        "",
        "",
    ]
    assert notebook.locate(Position(5, 0)) == (3, Position(1, 0))  # markdown cells counted
    assert notebook.locate(Position(2, 4)) == (2, Position(2, 4))


def test_check_reports_cells_and_fix_writes_cells_back(tmp_path: Path):
    path = tmp_path / "demo.ipynb"
    path.write_text(NOTEBOOK)

    def run(*args: str) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "jax_lsp", "check", str(path), *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=120)

    result = run()
    assert result.returncode == 1
    assert "demo.ipynb:cell 3:2:1: error: JAX201" in result.stdout  # markdown cells counted
    assert "demo.ipynb:cell 3:3:1: warning: JAX203" in result.stdout
    rows = json.loads(run("--output-format", "json").stdout)
    assert [(r["cell"], r["location"]["row"]) for r in rows] == [(3, 2), (3, 3)]

    assert run("--fix").returncode == 0
    cells = ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]]
    assert cells == [
        "# Updating arrays\n",
        "%matplotlib inline\nimport jax.numpy as jnp\nx = jnp.zeros(3)",
        "!nvidia-smi\nx = x.at[0].set(1.0)\nx = x.at[1].set(2.0)\nx.sum()",
        "%%bash\necho not python",
    ]


def test_a_fix_that_empties_a_cell_writes_it_back_empty(tmp_path: Path):
    # The late x64 switch, alone in its cell, moves up to the imports of the first cell.
    path = tmp_path / "x64.ipynb"
    path.write_text(
        notebook_json(
            ("code", "import jax\nimport jax.numpy as jnp\n"),
            ("code", "x = jnp.arange(5.0)\n"),
            ("code", "jax.config.update('jax_enable_x64', True)  # for the solver\n"),
            ("code", "y = jnp.arange(5.0)\n"),
        )
    )
    command = [sys.executable, "-m", "jax_lsp", "check", str(path), "--fix", "--unsafe-fixes"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert "Fixed 1 finding" in result.stdout, result.stderr
    cells = [c["source"] for c in json.loads(path.read_text())["cells"]]
    assert cells == [
        [
            "import jax\n",
            "import jax.numpy as jnp\n",
            "jax.config.update('jax_enable_x64', True)  # for the solver\n",
        ],
        ["x = jnp.arange(5.0)\n"],
        [],
        ["y = jnp.arange(5.0)\n"],
    ]


def test_a_broken_notebook_is_one_line_on_stderr(tmp_path: Path):
    (tmp_path / "broken.ipynb").write_text("{not json")
    (tmp_path / "ok.py").write_text("import jax.numpy as jnp\nx = jnp.zeros(2)\nx[0] = 1\n")
    result = subprocess.run(
        [sys.executable, "-m", "jax_lsp", "check", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.stderr.count("\n") == 1 and "broken.ipynb" in result.stderr
    assert "ok.py:3:1: error: JAX201" in result.stdout


# -- IPython syntax: one implementation for the CLI and the server ---------------------------

from jax_lsp.ipython import blank_ipython  # noqa: E402
from jax_lsp.lsp.notebook_cells import combine  # noqa: E402


def blank(source: str) -> str:
    return "\n".join(blank_ipython(source.split("\n")))


def test_a_block_whose_only_line_is_shell_stays_a_block():
    source = "try:\n    import optax\nexcept ImportError:\n    !pip install optax\n"
    blanked = blank(source)
    assert blanked == "try:\n    import optax\nexcept ImportError:\n    pass\n"
    compile(blanked, "<cell>", "exec")


def test_magics_shell_and_help_are_blanked_keeping_lines():
    source = "\n".join(
        [
            "%matplotlib inline",
            "files = !ls -la",
            "timing = %timeit -o f(x)",
            "!pip install \\",
            "    optax",
            "jnp.where?",
            "jnp.where??",
            "?jnp.where",
            "if True:",
            "    %time f(x)",
            "    jnp.sum?",
        ]
    )
    assert blank(source).split("\n") == [
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "if True:",
        "    pass",
        "    pass",
    ]


def test_question_marks_in_strings_and_comments_and_brackets_are_python():
    source = "\n".join(
        [
            'label = "what?"',
            "x = 1  # why?",
            'doc = """',
            "%not a magic",
            "!not shell",
            "really?",
            '"""',
            "total = (a",
            "         % b)",
            "flag = x != y",
            "bits = x % 2",
        ]
    )
    assert blank(source) == source


def test_cell_magics_blank_foreign_bodies_and_keep_python_ones():
    assert blank("%%bash\necho hi\nls") == "\n\n"
    assert blank("%%timeit\ny = jnp.sum(x)") == "\ny = jnp.sum(x)"
    assert blank("%%capture out\nimport jax") == "\nimport jax"


def test_cli_and_server_read_notebook_cells_the_same_way():
    cells = [
        "import jax.numpy as jnp\n%matplotlib inline\nx = jnp.zeros(3)\n",
        "try:\n    import optax\nexcept ImportError:\n    !pip install optax\n",
        "%%timeit\nx.sum()\n",
        "jnp.where?\nx[0] = 1.0  # what?\n",
        "%%bash\necho hi\n",
    ]
    raw = json.dumps({"cells": [{"cell_type": "code", "source": c, "metadata": {}} for c in cells]})
    cli = Notebook.parse(raw).text.removesuffix("\n").split(f"\n{CELL_MARKER}\n")
    server_text, slices = combine([(f"cell{i}", 1, c) for i, c in enumerate(cells)])
    server_lines = server_text.split("\n")
    server = ["\n".join(server_lines[s.start_line : s.start_line + s.line_count]) for s in slices]
    assert cli == server
    assert server_text == Notebook.parse(raw).text  # the same module: the same findings, fixes
    compile("\n".join(server), "<notebook>", "exec")


def test_notebook_syntax_errors_are_reported_in_cell_coordinates(tmp_path: Path):
    cells = [("code", "import jax.numpy as jnp\n"), ("code", "x = 1\ndef broken(:\n    pass\n")]
    (tmp_path / "broken_cell.ipynb").write_text(notebook_json(*cells))
    result = subprocess.run(
        [sys.executable, "-m", "jax_lsp", "check", "broken_cell.ipynb"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "broken_cell.ipynb:cell 2:2:12: error: invalid-syntax SyntaxError" in result.stdout


@pytest.mark.slow  # check --fix run as a subprocess
def test_a_fix_that_adds_lines_keeps_the_ipython_lines_in_place(tmp_path: Path):
    cell = (
        "%matplotlib inline\nfrom jax import jit\n!nvidia-smi\n@jit\ndef inside(x):\n"
        "    return x > 0 and x < 1\n"
    )
    path = tmp_path / "logic.ipynb"
    path.write_text(notebook_json(("code", cell)))
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "jax_lsp",
            "check",
            "--select",
            "JAX702",
            "--fix",
            str(path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    source = "".join(json.loads(path.read_text())["cells"][0]["source"])
    assert source == (  # the fix's import added after the imports, the shell line kept below it
        "%matplotlib inline\nfrom jax import jit\nimport jax.numpy as jnp\n!nvidia-smi\n@jit\n"
        "def inside(x):\n    return jnp.logical_and(x > 0, x < 1)\n"
    )


def test_sarif_points_at_the_line_of_the_ipynb_file(tmp_path: Path):
    """SARIF's artifact is the .ipynb JSON file: a finding's region is the JSON line holding
    the cell's source line (what GitHub code scanning shows), never the cell-relative line;
    where the file's layout cannot be matched (one long line), the result names the file only."""
    laid_out = tmp_path / "laid_out.ipynb"
    laid_out.write_text(json.dumps(json.loads(NOTEBOOK), indent=1) + "\n")
    compact = tmp_path / "compact.ipynb"
    compact.write_text(NOTEBOOK)

    def results(path: Path) -> list[dict]:
        command = [sys.executable, "-m", "jax_lsp", "check", str(path)]
        command += ["--output-format", "sarif", "--exit-zero"]
        run = subprocess.run(command, capture_output=True, text=True, timeout=120)
        return json.loads(run.stdout)["runs"][0]["results"]

    lines = laid_out.read_text().split("\n")
    found = results(laid_out)
    assert [r["ruleId"] for r in found] == ["JAX201", "JAX203"]
    for result, source in zip(found, ("x[0] = 1.0", "x.at[1].set(2.0)"), strict=True):
        region = result["locations"][0]["physicalLocation"]["region"]
        line = lines[region["startLine"] - 1]
        assert json.loads(line.strip().rstrip(",")).rstrip("\n") == source
        assert line[region["startColumn"] - 1 :].startswith(source[:3])
        assert result["properties"] == {"cell": 3} and "fixes" not in result
    for result in results(compact):
        assert "region" not in result["locations"][0]["physicalLocation"]


def _apply_json_edits(cells: list[str], edits: list[dict]) -> list[str]:
    """What a consumer of the JSON report does: each edit applied to the cell it names (rows
    and columns 1-based within that cell), last first."""
    cells = list(cells)
    for edit in sorted(
        edits,
        key=lambda e: (e["cell"], e["location"]["row"], e["location"]["column"]),
        reverse=True,
    ):
        lines = cells[edit["cell"] - 1].split("\n")
        offset = [0]
        for line in lines:
            offset.append(offset[-1] + len(line) + 1)
        start = offset[edit["location"]["row"] - 1] + edit["location"]["column"] - 1
        end = offset[edit["end_location"]["row"] - 1] + edit["end_location"]["column"] - 1
        text = cells[edit["cell"] - 1]
        cells[edit["cell"] - 1] = text[:start] + edit["content"] + text[end:]
    return cells


@pytest.mark.slow  # check run twice as a subprocess
@pytest.mark.parametrize("ending", ["", "\n"], ids=["no-final-newline", "final-newline"])
def test_json_fix_edits_name_their_cell_as_fix_applies_them(tmp_path: Path, ending: str):
    """An import the fix adds lands in the first code cell, not the finding's:
    every edit says its cell, and applying the edits by cell gives what `--fix` writes."""
    path = tmp_path / "imports.ipynb"
    path.write_text(
        notebook_json(
            ("markdown", "# Padding\n"),
            ("code", "import jax\nimport jax.numpy as jnp" + ending),
            ("code", "@jax.jit\ndef pad(v, n):\n    return jnp.zeros(n) + v.sum()"),
        )
    )

    def run(*args: str) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "jax_lsp", "check", str(path), *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=120)

    (row,) = json.loads(run("--output-format", "json").stdout)
    assert (row["code"], row["cell"]) == ("JAX803", 3)
    edits = row["fix"]["edits"]
    assert {edit["cell"] for edit in edits} == {2, 3}
    before = ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]]
    by_json = _apply_json_edits(before, edits)
    assert run("--fix", "--unsafe-fixes").returncode == 0
    after = ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]]
    assert after == by_json
    assert after[1] == "import jax\nimport jax.numpy as jnp\nfrom functools import partial" + ending


# A cell's last expression is displayed (IPython's `last_expr`), not discarded: only the `.at`
# updates that are not a cell's last expression, or whose cell ends with `;`, lose their result.
DISPLAYED = [
    "import jax.numpy as jnp\nw = jnp.zeros(3)",
    "w.at[0].set(5.0)",
    "w.at[1].add(1.0)\nw",
    "w.at[2].set(1.0);  # shown nothing",
    "for i in range(2):\n    w.at[i].set(0.0)",
]


def test_a_cells_displayed_last_expression_is_no_discarded_update(tmp_path: Path):
    from tests.cli.helpers import jax_lsp

    path = tmp_path / "disp.ipynb"
    path.write_text(notebook_json(*(("code", cell) for cell in DISPLAYED)))
    run = jax_lsp("check", "--output-format", "json", "--exit-zero", path.name, cwd=tmp_path)
    rows = json.loads(run.stdout)
    assert [(r["code"], r["cell"], r["location"]["row"]) for r in rows] == [
        ("JAX203", 3, 1),
        ("JAX203", 4, 1),
        ("JAX203", 5, 2),
    ]
    jax_lsp("check", "--fix", path.name, cwd=tmp_path)
    cells = ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]]
    assert cells[1] == "w.at[0].set(5.0)"  # displayed: left as it is
    assert cells[2] == "w = w.at[1].add(1.0)\nw"


def test_the_server_reads_a_cells_displayed_expression_as_check_does():
    """The server's cells go to the engine joined as `check` joins an .ipynb's
    (`lsp.analyzer.analyze_notebook`): the same findings, in each cell."""
    from jax_lsp.config import Settings
    from jax_lsp.engine import check_source
    from jax_lsp.lsp.notebook_cells import findings_by_cell

    text, slices = combine([(f"cell{i}", 1, cell) for i, cell in enumerate(DISPLAYED)])
    findings = check_source(text, "/nb/disp.ipynb", Settings()).findings
    by_cell = findings_by_cell(findings, slices, {})
    found = {
        uri: [(f.finding.code, f.finding.span.start.line) for f in items]
        for uri, items in by_cell.items()
    }
    assert found == {
        "cell0": [],
        "cell1": [],
        "cell2": [("JAX203", 0)],
        "cell3": [("JAX203", 0)],
        "cell4": [("JAX203", 1)],
    }
