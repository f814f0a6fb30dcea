"""x64 awareness of JAX901/JAX902 beyond the documented examples, and their fixes."""

from __future__ import annotations

import textwrap

from jax_lsp.analysis.document import Document
from jax_lsp.codeactions.apply import fix_text
from jax_lsp.diagnostics import RULES_BY_CODE
from jax_lsp.engine import analyze
from tests.codeactions.helpers import main_fixes_only

HEADER = "import jax\nimport jax.numpy as jnp\n\n"


def lines_of(source: str, code: str, path: str = "module.py", x64: bool = False) -> list[int]:
    text = HEADER + textwrap.dedent(source)
    findings = analyze(Document(text, path), (RULES_BY_CODE[code],), x64=x64).findings
    return [f.span.start.line - 3 for f in findings]


def fixed(source: str, code: str) -> str:
    text = HEADER + textwrap.dedent(source)

    def run(current: str):
        return analyze(Document(current), (RULES_BY_CODE[code],)).findings

    return fix_text(text, main_fixes_only(run), unsafe=True)[0]


REQUEST = """
def f():
    return jnp.zeros(3, dtype=jnp.float64)
"""


def test_flagged_when_nothing_enables_x64():
    assert lines_of(REQUEST, "JAX901") == [2]


def test_project_setting_enables_x64():
    assert lines_of(REQUEST, "JAX901", x64=True) == []


def test_test_files_are_left_alone():
    assert lines_of(REQUEST, "JAX901", path="tests/test_precision.py") == []


def test_module_enable_covers_functions_but_not_earlier_module_code():
    source = """
    early = jnp.ones(2, dtype=jnp.float64)
    jax.config.update("jax_enable_x64", True)
    late = jnp.ones(2, dtype=jnp.float64)
    def f():
        return jnp.zeros(3, dtype=jnp.float64)
    """
    assert lines_of(source, "JAX901") == [1]


def test_library_reading_the_flag_is_left_alone():
    source = REQUEST + "\nDEFAULT = jnp.float64 if jax.config.jax_enable_x64 else jnp.float32\n"
    assert lines_of(source, "JAX901") == []


def test_functions_called_under_the_context_are_left_alone():
    source = REQUEST + "\nwith jax.enable_x64(True):\n    y = f()\n"
    assert lines_of(source, "JAX901") == []


def test_enabling_to_false_does_not_enable():
    source = REQUEST + '\njax.config.update("jax_enable_x64", False)\n'
    assert lines_of(source, "JAX901") == [2]


def test_float64_fix_enables_x64_after_the_imports():
    assert fixed(REQUEST, "JAX901") == (
        'import jax\nimport jax.numpy as jnp\njax.config.update("jax_enable_x64", True)\n\n'
        + textwrap.dedent(REQUEST)
    )


def test_late_enable_flagged_and_moved():
    source = """
    weights = jnp.ones(3)
    jax.config.update("jax_enable_x64", True)
    """
    assert lines_of(source, "JAX902") == [2]
    assert fixed(source, "JAX902") == (
        'import jax\nimport jax.numpy as jnp\njax.config.update("jax_enable_x64", True)\n'
        "\n\nweights = jnp.ones(3)\n"
    )


def test_late_enable_moves_with_its_comment():
    source = """
    weights = jnp.ones(3)
    jax.config.update("jax_enable_x64", True)  # the ODE solver needs 64 bits
    """
    assert fixed(source, "JAX902") == (
        "import jax\nimport jax.numpy as jnp\n"
        'jax.config.update("jax_enable_x64", True)  # the ODE solver needs 64 bits\n'
        "\n\nweights = jnp.ones(3)\n"
    )


def test_late_enable_sharing_its_line_with_code_is_not_moved():
    source = """
    weights = jnp.ones(3)
    jax.config.update("jax_enable_x64", True); bias = jnp.ones(3)
    """
    assert lines_of(source, "JAX902") == [2]
    assert fixed(source, "JAX902") == HEADER + textwrap.dedent(source)


def test_enable_before_arrays_or_in_functions_is_fine():
    source = """
    jax.config.update("jax_enable_x64", True)
    weights = jnp.ones(3)
    def main():
        jax.config.update("jax_enable_x64", True)
    key = jax.random.key(0)
    """
    assert lines_of(source, "JAX902") == []
