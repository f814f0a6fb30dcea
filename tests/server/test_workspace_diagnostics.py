"""The workspace diagnostics' choices on their own: which files a workspace pull reports (as
`check` finds them, at most `MAX_FILES`), and which files a change of modules may reach."""

from __future__ import annotations

from jax_lsp.config import Settings
from jax_lsp.lsp import workspace_diagnostics
from jax_lsp.lsp.dependents import ModuleWords
from jax_lsp.lsp.workspace_diagnostics import project_files, reached_files

TRAIN = "import jax\n\nfrom utils import clip_update\n\n\n@jax.jit\ndef step(p, g):\n    ...\n"
UTILS = "from norms import too_big\n\n\ndef clip_update(p, g, lr):\n    ...\n"
NORMS = "import jax.numpy as jnp\n\n\ndef too_big(g):\n    ...\n"
LEAF = "import jax.numpy as jnp\n\n\ndef leaf(g):\n    ...\n"
OTHER = "import numpy as np\n\n\ndef unrelated(x):\n    ...\n"


def test_module_words():
    words = ModuleWords.of(UTILS, "/p/utils.py")
    assert words.names == {"utils", "clip_update"}
    assert {"norms", "too_big"} <= words.imports
    assert words.reached_by({"norms"}, set())  # it imports the changed module
    assert words.reached_by(set(), {"clip_update"})  # the changed module imports it
    assert not words.reached_by({"train"}, {"jax"})
    package = ModuleWords.of("", "/p/pkg/__init__.py")
    assert package.names == {"pkg"}


def test_a_change_reaches_the_modules_it_traces_a_few_imports_away():
    texts = {"train": TRAIN, "utils": UTILS, "norms": NORMS, "other": OTHER}
    # norms imports leaf: three imports from train, past the hops a change follows.
    texts["norms"] = "from leaf import leaf\n" + NORMS
    texts["leaf"] = "from deep import deep\n" + LEAF
    texts["deep"] = "def deep(x):\n    ...\n"
    words = {f"/p/{name}.py": ModuleWords.of(text, f"/p/{name}.py") for name, text in texts.items()}
    train = words["/p/train.py"]
    reached = reached_files(words, {"/p/train.py"}, {"train"}, set(train.imports))
    assert reached == {"/p/train.py", "/p/utils.py", "/p/norms.py", "/p/leaf.py"}
    # A changed file nothing else names is reached alone (one just closed is read again).
    assert reached_files(words, {"/p/new.py"}, {"new"}, set()) == {"/p/new.py"}


def test_the_files_are_those_check_finds(tmp_path, monkeypatch):
    for name in ("a.py", "b.pyi", "nb.ipynb", "build/c.py", "kept/d.py", "venv/e.py"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("")
    (tmp_path / ".gitignore").write_text("venv/\n")
    (tmp_path / ".git").mkdir()
    settings = Settings(root=str(tmp_path)).merged({"extend-exclude": ["build"]})
    files, cut = project_files([(str(tmp_path), settings)])
    relative = sorted(str(f)[len(str(tmp_path)) + 1 :] for f in files)
    assert (relative, cut) == (["a.py", "b.pyi", "kept/d.py"], False)
    monkeypatch.setattr(workspace_diagnostics, "MAX_FILES", 2)
    files, cut = project_files([(str(tmp_path), settings), (str(tmp_path / "kept"), settings)])
    assert (len(files), cut) == (2, True)
