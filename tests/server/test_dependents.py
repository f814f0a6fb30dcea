"""Which open documents an edited module refreshes: those naming it as an import would."""

from __future__ import annotations

from jax_lsp.lsp.dependents import module_name


def test_a_module_is_named_as_its_imports_spell_it():
    assert module_name("/work/proj/mlproj/data.py") == "data"
    assert module_name("/work/proj/mlproj/__init__.py") == "mlproj"
    assert module_name("/work/proj/stubs/data.pyi") == "data"


def test_files_no_import_names_refresh_nothing():
    assert module_name(None) is None
    assert module_name("/work/proj/notes.txt") is None
    assert module_name("/work/proj/setup.cfg") is None
