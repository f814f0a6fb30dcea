"""Where a new import goes: one answer (`analysis.header.import_insertion_line`) for the module
model (what rules' import edits use), the codemods' `ModuleSource` and the debug-NaNs action."""

from __future__ import annotations

import ast
import json

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.analysis.header import import_insertion_line
from jax_lsp.analysis.model import ModuleModel
from jax_lsp.codeactions.apply import apply_edits
from jax_lsp.codeactions.import_edits import debug_nans_edit, insert_lines
from jax_lsp.codeactions.source import ModuleSource
from jax_lsp.notebook import Notebook

CASES = {
    "docstring": ('"""Doc."""\n\nx = 1\n', 1),
    "future import": ("from __future__ import annotations\n\nx = 1\n", 1),
    "docstring, future and imports": (
        '"""Doc."""\nfrom __future__ import annotations\nimport numpy as np\n\nx = 1\n',
        3,
    ),
    "shebang and encoding": ("#!/usr/bin/env python\n# -*- coding: utf-8 -*-\nx = 1\n", 2),
    "shebang then imports": ("#!/usr/bin/env python\nimport numpy as np\nx = 1\n", 2),
    "licence header": ("# Copyright 2026\n# Licence: MIT\n\n# The answer\nx = 1\n", 3),
    "comment of the first statement": ("# The answer\nx = 1\n", 0),
    "TYPE_CHECKING imports": (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import numpy as np\n"
        "import os\n\nx = 1\n",
        4,
    ),
    "an if that runs code ends the header": (
        "import os\nif DEBUG:\n    print(1)\nimport numpy\n",
        1,
    ),
    "an optional import with a fallback value ends the header": (
        "import numpy\ntry:\n    import optax\nexcept ImportError:\n    optax = None\nx = 1\n",
        1,
    ),
    "no imports": ("x = 1\n", 0),
    "empty module": ("", 0),
    "an import after code stays after it": ("import numpy\nx = 1\nimport os\n", 1),
    "a string after imports is no docstring": ('import numpy\n"""Not a docstring."""\n', 1),
    "no final newline": ("import numpy", 1),
}


@pytest.mark.parametrize(("text", "expected"), CASES.values(), ids=CASES.keys())
def test_every_consumer_puts_a_new_import_on_the_same_line(text: str, expected: int):
    document = Document(text)
    assert import_insertion_line(document) == expected
    assert ModuleModel(document).import_line == expected

    module = ModuleSource(text)
    assert module.alias("functools.partial") == "functools.partial"
    codemod_edit = module.import_edit()
    nans_edit = debug_nans_edit(Document(text), "\n")
    for edit in (codemod_edit, nans_edit):
        fixed = apply_edits(text, [edit])
        assert ast.parse(fixed)  # the text still parses with the import in place
        lines = fixed.split("\n")
        added = edit.content.strip("\n").split("\n")
        assert lines[expected : expected + len(added)] == added


def test_an_import_is_not_added_twice_and_debug_nans_reuses_jax():
    text = '"""Doc."""\nimport jax\n\nx = 1\n'
    edit = debug_nans_edit(Document(text), "\n")
    assert apply_edits(text, [edit]) == (
        '"""Doc."""\nimport jax\njax.config.update("jax_debug_nans", True)\n\nx = 1\n'
    )
    assert debug_nans_edit(Document(apply_edits(text, [edit])), "\n") is None


def test_an_import_under_type_checking_does_not_bind_jax_at_run_time():
    text = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import jax\n\nx = 1\n"
    fixed = apply_edits(text, [debug_nans_edit(Document(text), "\n")])
    assert fixed.split("\n")[3:5] == ["import jax", 'jax.config.update("jax_debug_nans", True)']


def test_insertion_keeps_the_line_endings_and_a_missing_final_newline():
    lines = ["import numpy"]
    edit = insert_lines(lines, 1, "import os\r\n", "\r\n")
    assert apply_edits("import numpy", [edit]) == "import numpy\r\nimport os"
    text = "import numpy\r\nx = 1\r\n"
    edit = debug_nans_edit(Document(text), "\r\n")
    assert apply_edits(text, [edit]) == (
        'import numpy\r\nimport jax\r\njax.config.update("jax_debug_nans", True)\r\nx = 1\r\n'
    )


def test_a_notebook_import_lands_in_the_cell_of_the_imports():
    """Cells are analysed as one module (magics blanked); an import inserted at the start of
    the second cell stays at the end of the first, after its imports."""
    cells = ["%matplotlib inline\nimport numpy as np", "x = np.zeros(3)"]
    raw = json.dumps({"cells": [{"cell_type": "code", "source": text} for text in cells]})
    notebook = Notebook.parse(raw)
    assert import_insertion_line(Document(notebook.text)) == 2
    module = ModuleSource(notebook.text)
    module.alias("functools")
    fixed = apply_edits(notebook.text, [module.import_edit()])
    sources = ["".join(cell["source"]) for cell in json.loads(notebook.with_text(fixed))["cells"]]
    assert sources[0].split("\n")[1:3] == ["import numpy as np", "import functools"]
    assert sources[1].strip() == "x = np.zeros(3)"
