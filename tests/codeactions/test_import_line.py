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
from jax_lsp.codeactions.import_edits import debug_nans_edit
from jax_lsp.codeactions.site import insert_lines
from jax_lsp.codeactions.source import ModuleSource
from jax_lsp.config import Settings
from jax_lsp.engine import fix_source
from jax_lsp.ipynb import Notebook

# Each case: the module, its lines separated by "|", and the line a new import goes on.
CASES = {
    "docstring": ('"""Doc."""||x = 1|', 1),
    "future import": ("from __future__ import annotations||x = 1|", 1),
    "docstring, future, imports": ('"""D."""|from __future__ import annotations|import os||x|', 3),
    "shebang and encoding": ("#!/usr/bin/env python|# -*- coding: utf-8 -*-|x = 1|", 2),
    "shebang then imports": ("#!/usr/bin/env python|import numpy as np|x = 1|", 2),
    "licence header": ("# Copyright 2026|# Licence: MIT||# The answer|x = 1|", 3),
    "comment of the first statement": ("# The answer|x = 1|", 0),
    "TYPE_CHECKING imports": (
        "from typing import TYPE_CHECKING|if TYPE_CHECKING:|    import np|import os|x|",
        4,
    ),
    "an if that runs code ends the header": ("import os|if DEBUG:|    print(1)|import numpy|", 1),
    "an import with a fallback value ends it": (
        "import os|try:|    import a|except ImportError:|    a = 0|",
        1,
    ),
    "no imports": ("x = 1|", 0),
    "empty module": ("", 0),
    "an import after code stays after it": ("import numpy|x = 1|import os|", 1),
    "a string after imports is no docstring": ('import numpy|"""Not a docstring."""|', 1),
    "no final newline": ("import numpy", 1),
}


@pytest.mark.parametrize(("lines", "expected"), CASES.values(), ids=CASES.keys())
def test_every_consumer_puts_a_new_import_on_the_same_line(lines: str, expected: int):
    text = lines.replace("|", "\n")
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
        first = expected
        if edit.span.start.line == expected:  # not appended to a last line without "\n"
            first += len(edit.content) - len(edit.content.lstrip("\n"))  # blank lines first
        assert lines[first : first + len(added)] == added


def test_an_import_is_not_added_twice_and_debug_nans_reuses_jax():
    text = '"""Doc."""\nimport jax\n\nx = 1\n'
    edit = debug_nans_edit(Document(text), "\n")
    assert apply_edits(text, [edit]) == (
        '"""Doc."""\nimport jax\n\njax.config.update("jax_debug_nans", True)\n\nx = 1\n'
    )
    assert debug_nans_edit(Document(apply_edits(text, [edit])), "\n") is None


def test_an_import_under_type_checking_does_not_bind_jax_at_run_time():
    text = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import jax\n\nx = 1\n"
    fixed = apply_edits(text, [debug_nans_edit(Document(text), "\n")])
    assert fixed.split("\n")[3:6] == ["import jax", "", 'jax.config.update("jax_debug_nans", True)']


def test_insertion_keeps_the_line_endings_and_a_missing_final_newline():
    lines = ["import numpy"]
    edit = insert_lines(lines, 1, "import os\r\n", "\r\n")
    assert apply_edits("import numpy", [edit]) == "import numpy\r\nimport os"
    text = "import numpy\r\nx = 1\r\n"
    edit = debug_nans_edit(Document(text), "\r\n")
    assert apply_edits(text, [edit]) == (
        'import numpy\r\nimport jax\r\n\r\njax.config.update("jax_debug_nans", True)\r\nx = 1\r\n'
    )


def test_a_notebook_import_lands_in_the_cell_of_the_imports():
    """Cells are analyzed as one module (magics blanked); an import inserted at the start of
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


# A fix adding `import jax.numpy as jnp` (JAX701's `jnp.where`) to a module whose header is
# what the key says: the module's first lines before and after (`|` separating lines), as
# ruff's isort and formatter lay them out.
TRACED = "from jax import jit  # noqa: E402|||@jit|def h(x):|    return x if x > 0 else -x|"
LAYOUTS = {
    "code first, a class": (
        "class Grid:|    size = 3|||",
        "import jax.numpy as jnp|||class Grid:|    size = 3|||",
    ),
    "code first, a decorated function": (
        "@staticmethod|def helper():|    pass|||",
        "import jax.numpy as jnp|||@staticmethod|def helper():|    pass|||",
    ),
    "code first, a statement": ("SIZE = 3|", "import jax.numpy as jnp||SIZE = 3|"),
    "a docstring, then code": (
        '"""Grid steps."""|SIZE = 3|',
        '"""Grid steps."""||import jax.numpy as jnp||SIZE = 3|',
    ),
    "a docstring, a blank line, then a class": (
        '"""Grid steps."""||class Grid:|    pass|||',
        '"""Grid steps."""||import jax.numpy as jnp|||class Grid:|    pass|||',
    ),
    "future imports, then a function": (
        "from __future__ import annotations|def helper():|    pass|||",
        "from __future__ import annotations||import jax.numpy as jnp|||def helper():|    pass|||",
    ),
    "a licence, then the comment of a class": (
        "# Copyright 2026|# Licence: MIT||# The grid|class Grid:|    pass|||",
        "# Copyright 2026|# Licence: MIT||import jax.numpy as jnp|||# The grid|class Grid:"
        "|    pass|||",
    ),
    "after other imports: one block with them": (
        "import os||SIZE = 3|",
        "import os|import jax.numpy as jnp||SIZE = 3|",
    ),
}


@pytest.mark.parametrize(("head", "expected"), LAYOUTS.values(), ids=LAYOUTS.keys())
def test_an_added_import_gets_the_blank_lines_ruff_gives_it(head: str, expected: str):
    text = (head + TRACED).replace("|", "\n")
    fixed, applied = fix_source(text, "a.py", Settings())
    assert applied == 1
    assert fixed == (expected + TRACED).replace("|", "\n").replace(
        "x if x > 0 else -x", "jnp.where(x > 0, x, -x)"
    )


@pytest.mark.parametrize(("head", "expected"), LAYOUTS.values(), ids=LAYOUTS.keys())
def test_a_codemod_import_gets_the_same_blank_lines(head: str, expected: str):
    text = (head + TRACED).replace("|", "\n")
    module = ModuleSource(text)
    module.alias("jax.numpy")
    fixed = apply_edits(text, [module.import_edit()])
    assert fixed == (expected + TRACED).replace("|", "\n")


def test_a_fix_whose_condition_and_selection_need_one_import_adds_it_once():
    text = "from jax import jit\n\n\n@jit\ndef h(x):\n    return x if (x > 0 and x < 1) else -x\n"
    fixed, applied = fix_source(text, "a.py", Settings())
    assert applied == 1
    assert fixed.count("import jax.numpy as jnp") == 1
    assert "jnp.where(jnp.logical_and(x > 0, x < 1), x, -x)" in fixed


NANS = 'jax.config.update("jax_debug_nans", True)'


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize(("head", "expected"), LAYOUTS.values(), ids=LAYOUTS.keys())
def test_debug_nans_gets_the_blank_lines_ruff_gives_the_imports(head, expected, newline):
    """The layouts above, ruff-format stable: the debug-NaNs setting and its `import jax` get
    the same blank lines as an added import, and one more between them (imports end there)."""
    text = (head + TRACED).replace("|", newline)
    fixed = apply_edits(text, [debug_nans_edit(Document(text), newline)])
    with_nans = expected.replace("import jax.numpy as jnp|", f"import jax||{NANS}|")
    assert fixed == (with_nans + TRACED).replace("|", newline)
    assert ast.parse(fixed)


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        ("import jax||SIZE = 3|", f"import jax||{NANS}||SIZE = 3|"),
        ("import jax|||class A:|    pass|", f"import jax||{NANS}|||class A:|    pass|"),
        ('"""D."""||import jax||x = 1|', f'"""D."""||import jax||{NANS}||x = 1|'),
    ],
)
def test_debug_nans_below_the_import_of_jax_is_set_apart_from_it(head, expected):
    text = head.replace("|", "\n")
    fixed = apply_edits(text, [debug_nans_edit(Document(text), "\n")])
    assert fixed == expected.replace("|", "\n")
