"""The project's trace graph (jax_lsp.analysis.project): functions of one module traced by
code in another, checked in their own file. Each case is a small project written to disk."""

from __future__ import annotations

import os
import re
import textwrap
from pathlib import Path

from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from jax_lsp.analysis import project
from jax_lsp.analysis.project import ProjectTraces
from jax_lsp.config import Settings, load_settings
from jax_lsp.engine import check_source, traces_given
from jax_lsp.workspace import TraceRounds, Workspace
from tests.cli.helpers import jax_lsp


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


def check(root: Path, name: str, workspace: Workspace | None = None):
    path = root / name
    workspace = workspace or Workspace(str(root))
    return check_source(path.read_text(), str(path), Settings(), workspace)


def codes(root: Path, name: str) -> list[tuple[int, str]]:
    return [(f.span.start.line + 1, f.code) for f in check(root, name).findings]


TRAIN = """
    import jax

    from utils import clip_update


    @jax.jit
    def step(params, grads):
        return clip_update(params, grads, 0.1)
"""

UTILS = """
    import jax.numpy as jnp


    def clip_update(params, grads, lr):
        if jnp.linalg.norm(grads) > 1.0:
            grads = grads / jnp.linalg.norm(grads)
        print("clipping", grads)
        params[0] = params[0] - lr * grads[0]
        return params
"""


def test_a_helper_jitted_from_another_module_has_its_findings_in_its_own_file(tmp_path):
    write(tmp_path, {"train.py": TRAIN, "utils.py": UTILS})
    analysis = check(tmp_path, "utils.py")
    assert [(f.span.start.line + 1, f.code) for f in analysis.findings] == [
        (5, "JAX701"),
        (7, "JAX101"),
        (8, "JAX201"),
    ]
    branch = analysis.findings[0]
    assert "called from `step` in train.py" in branch.message
    train = str(tmp_path / "train.py")
    assert [(r.path, r.span.start.line + 1) for r in branch.related] == [(train, 8), (train, 6)]
    assert codes(tmp_path, "train.py") == []


def test_the_reason_shown_is_the_jit_of_the_same_module_before_another_modules(tmp_path):
    helper = """
        import jax


        def helper(x):
            print(x)
            return x


        @jax.jit
        def step(x):
            return helper(x)
    """
    caller = """
        import jax

        from helpers import helper


        def middle(x):
            return helper(x)


        @jax.jit
        def other(x):
            return middle(x)
    """
    write(tmp_path, {"helpers.py": helper, "other.py": caller})
    for found in (check(tmp_path, "helpers.py").findings, check_rows(tmp_path)):
        (printed,) = found
        assert "(called from `step`; `step` traced by `jax.jit`)" in printed.message
        # its places in its own file (a related place of another file names that file)
        assert len(printed.related) == 2
        assert all(r.path in (None, str(tmp_path / "helpers.py")) for r in printed.related)


def check_rows(root: Path) -> list:
    """The findings of `check` over the project, read back as findings of helpers.py."""
    from jax_lsp.checking import check_paths
    from jax_lsp.engine import analysing_once

    try:
        files = [str(root / "helpers.py"), str(root / "other.py")]
        results = check_paths(files, Settings(), None, False, 1)
    finally:
        analysing_once(False)
    return [f for r in results if r.path.endswith("helpers.py") for f in r.findings]


def test_not_traced_without_the_jit_or_without_the_call(tmp_path):
    write(tmp_path, {"train.py": TRAIN.replace("@jax.jit\n", ""), "utils.py": UTILS})
    assert codes(tmp_path, "utils.py") == []
    write(tmp_path, {"train.py": TRAIN.replace("clip_update(params", "max(params")})
    assert codes(tmp_path, "utils.py") == []


def test_a_package_with_relative_imports_and_reexports(tmp_path):
    """`from envs import CartPole` (re-exported by `envs/__init__.py` from `.cartpole`), an
    instance's bound method given to `jax.jit`, and a chain of calls across three modules."""
    write(
        tmp_path,
        {
            "envs/__init__.py": "from .cartpole import CartPole\n",
            "envs/physics.py": """
                import jax.numpy as jnp


                def failed(x, theta):
                    return jnp.abs(x) > 2.4 or jnp.abs(theta) > 0.2
            """,
            "envs/cartpole.py": """
                from .physics import failed


                class CartPole:
                    def step(self, state, action):
                        x, theta = state
                        return state, failed(x, theta)
            """,
            "train.py": """
                import jax

                from envs import CartPole


                def run(state):
                    env = CartPole()
                    step = jax.jit(env.step)
                    return step(state, 1)
            """,
        },
    )
    analysis = check(tmp_path, "envs/physics.py")
    assert [f.code for f in analysis.findings] == ["JAX702"]
    message = analysis.findings[0].message
    assert "called from `CartPole.step` in cartpole.py" in message
    assert "traced by `jax.jit` in train.py" in message


def test_a_project_decorator_that_jits(tmp_path):
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/compile.py": """
                import jax


                def compiled(fn=None, *, static=()):
                    return jax.jit(fn, static_argnames=static)
            """,
            "pkg/ops.py": """
                from .compile import compiled


                @compiled
                def total(x):
                    return x.sum().item()
            """,
        },
    )
    assert codes(tmp_path, "pkg/ops.py") == [(6, "JAX703")]


COMPILE = """
    import jax


    def compiled(fn=None, *, static=()):
        return jax.jit(fn, static_argnames=static)
"""

LOSS = """
    def loss(x):
        if x > 0:
            return x
        return -x
"""


WRAPPED_LOSS = """
    from pkg.compile import compiled
    from pkg.losses import loss

    step = compiled(loss)
"""


def write_wrapper_project(root: Path, train: str) -> None:
    """pkg/train.py (`train`) and the wrapper and the loss it may hand the wrapper."""
    write(
        root,
        {
            "pkg/__init__.py": "",
            "pkg/compile.py": COMPILE,
            "pkg/losses.py": LOSS,
            "pkg/train.py": train,
        },
    )


def test_a_project_wrapper_called_on_a_function_of_the_module(tmp_path):
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/compile.py": COMPILE,
            "pkg/ops.py": "from .compile import compiled\n\n\n"
            + textwrap.dedent(LOSS)
            + ("\n\nstep = compiled(loss)\n"),
        },
    )
    assert codes(tmp_path, "pkg/ops.py") == [(6, "JAX701")]


def test_a_project_wrapper_called_where_no_transformation_is_named(tmp_path):
    """`train.py` names no transformation: the wrapper's facts say it applies one, so the
    function it hands the wrapper is traced in its own module, as `check .` and a check of
    that module alone both find."""
    write_wrapper_project(tmp_path, WRAPPED_LOSS)
    assert codes(tmp_path, "pkg/losses.py") == [(2, "JAX701")]
    run = jax_lsp("check", "--output-format", "concise", ".", cwd=tmp_path)
    assert run.stdout.splitlines()[0].startswith("pkg/losses.py:2:5: error: JAX701")
    assert "traced by `jax.jit` in train.py" in run.stdout


def test_a_project_wrapper_given_more_than_the_function_traces_nothing(tmp_path):
    """What else the call passes may be options of the transformation (`static`), and a
    name the caller binds may hold any function: neither is claimed."""
    write_wrapper_project(
        tmp_path,
        """
        from pkg.compile import compiled
        from pkg.losses import loss


        def make(choose):
            fn = choose()
            return compiled(fn)


        step = compiled(loss, static=("x",))
        """,
    )
    assert codes(tmp_path, "pkg/losses.py") == []
    assert codes(tmp_path, "pkg/train.py") == []


def test_traces_gathered_through_a_wrapper_follow_the_wrappers_module(tmp_path):
    """The traces losses.py is given were read from train.py's model, built with what
    compile.py tells it: a change of compile.py alone reaches them, once the server (or
    `check --watch`) asks for the stale ones."""
    write_wrapper_project(tmp_path, WRAPPED_LOSS)
    workspace = Workspace(str(tmp_path))
    assert [f.code for f in check(tmp_path, "pkg/losses.py", workspace).findings] == ["JAX701"]
    compile_file = tmp_path / "pkg/compile.py"
    compile_file.write_text(compile_file.read_text().replace("jax.jit(fn, ", "dict(f=fn, "))
    workspace.files_changed([str(compile_file)])
    assert workspace.drop_stale() == [os.path.realpath(tmp_path / "pkg/losses.py")]
    assert check(tmp_path, "pkg/losses.py", workspace).findings == []
    write(tmp_path, {"pkg/compile.py": COMPILE})
    workspace.files_changed([str(compile_file)])
    workspace.drop_stale()
    assert [f.code for f in check(tmp_path, "pkg/losses.py", workspace).findings] == ["JAX701"]


def test_what_the_edited_module_tells_its_importers_is_read_once_its_edits_pause(tmp_path):
    """A keystroke's analysis leaves out what the edited module tells its importers of its
    own functions (reading it takes a model of the new version); `drop_stale`, asked when
    the edits pause, reads it, and drops the traces it changed."""
    text = textwrap.dedent(COMPILE) + "\n\n" + textwrap.dedent(LOSS)
    write(tmp_path, {"b.py": "from a import compiled, loss\n\nstep = compiled(loss)\n"})
    path = tmp_path / "a.py"
    texts = {str(path): text}
    path.write_text(text)
    workspace = Workspace(str(tmp_path), open_text=texts.get)

    def findings(version: str) -> list[str]:
        texts[str(path)] = version
        return [f.code for f in check_source(version, str(path), Settings(), workspace).findings]

    assert findings(text) == ["JAX701"]
    assert workspace.drop_stale() == []
    unjitted = text.replace("jax.jit(fn, static_argnames=static)", "fn")
    assert findings(unjitted) == ["JAX701"]  # typing: the traces gathered before
    assert workspace.drop_stale() == [os.path.realpath(path)]
    assert findings(unjitted) == []
    assert workspace.drop_stale() == []


def test_tests_that_jit_library_code_count_as_callers(tmp_path):
    write(
        tmp_path,
        {
            "lib/__init__.py": "",
            "lib/filters.py": """
                import jax.numpy as jnp


                def moving_average(x, window):
                    return jnp.convolve(x, jnp.ones(window) / window, mode="valid")
            """,
            "tests/test_filters.py": """
                import jax
                import jax.numpy as jnp

                from lib.filters import moving_average


                def test_jit():
                    jax.jit(moving_average)(jnp.arange(8.0), 3)
            """,
        },
    )
    assert codes(tmp_path, "lib/filters.py") == [(5, "JAX803")]


def test_numpy_helpers_and_untraced_callers_stay_clean(tmp_path):
    write(
        tmp_path,
        {
            "helpers.py": """
                import numpy as np


                def normalise(x):
                    if x.sum() > 0:
                        x[0] = 0
                    return float(x.mean())
            """,
            "main.py": """
                import numpy as np

                from helpers import normalise

                print(normalise(np.ones(3)))
            """,
        },
    )
    assert codes(tmp_path, "helpers.py") == []


def test_an_import_cycle_is_followed_once(tmp_path):
    write(
        tmp_path,
        {
            "a.py": """
                import jax

                from b import helper


                @jax.jit
                def step(x):
                    return helper(x)


                def later(x):
                    if x > 0:
                        return x
                    return -x
            """,
            "b.py": """
                from a import later


                def helper(x):
                    return later(x)
            """,
        },
    )
    assert codes(tmp_path, "a.py") == [(12, "JAX701")]
    assert codes(tmp_path, "b.py") == []


def test_a_changed_caller_changes_the_traces_the_same_workspace_gives(tmp_path):
    """The graph is kept while the modules it read are unchanged, and read again when one
    changes (the server's workspace lives as long as the session; its file watcher reports
    each save)."""
    write(tmp_path, {"train.py": TRAIN, "utils.py": UTILS})
    workspace = Workspace(str(tmp_path))
    assert len(check(tmp_path, "utils.py", workspace).findings) == 3
    write(tmp_path, {"train.py": TRAIN.replace("@jax.jit\n", "")})
    workspace.files_changed([str(tmp_path / "train.py")])
    assert check(tmp_path, "utils.py", workspace).findings == []
    write(tmp_path, {"train.py": TRAIN})
    workspace.files_changed([str(tmp_path / "train.py")])
    assert len(check(tmp_path, "utils.py", workspace).findings) == 3


def test_library_mode_traces_what_the_settings_name(tmp_path):
    """`traced = [...]` in `[tool.jax-lsp]`: the functions a library's users trace, by glob
    patterns over dotted names, are checked as jitted code; the others are not."""
    write(
        tmp_path,
        {
            "pyproject.toml": """
                [tool.jax-lsp]
                traced = ["mylib.ops.*", "mylib.envs.*.step"]
            """,
            "mylib/__init__.py": "",
            "mylib/envs/__init__.py": "",
            "mylib/ops.py": """
                def normalise(x):
                    if x.sum() > 0:
                        return x / x.sum()
                    return x
            """,
            "mylib/envs/grid.py": """
                class Grid:
                    def step(self, state, action):
                        if action > 2:
                            return state
                        return state + 1

                    def render(self, state):
                        if state.sum() > 0:
                            print(state)
            """,
        },
    )
    settings = load_settings(tmp_path)
    assert settings.traced == ("mylib.ops.*", "mylib.envs.*.step")
    found = {}
    for name in ("mylib/ops.py", "mylib/envs/grid.py"):
        path = tmp_path / name
        analysis = check_source(path.read_text(), str(path), settings, Workspace(str(tmp_path)))
        found[name] = [(f.span.start.line + 1, f.code) for f in analysis.findings]
    assert found == {"mylib/ops.py": [(2, "JAX701")], "mylib/envs/grid.py": [(3, "JAX701")]}
    assert check(tmp_path, "mylib/ops.py").findings == []  # without the setting
    # The related place is the line that sets `traced`.
    ops = tmp_path / "mylib/ops.py"
    [finding] = check_source(ops.read_text(), str(ops), settings, Workspace(str(tmp_path))).findings
    lines = (tmp_path / "pyproject.toml").read_text().splitlines()
    places = [(r.path, r.span.start.line) for r in finding.related if r.path]
    assert places == [
        (
            str(tmp_path / "pyproject.toml"),
            lines.index('traced = ["mylib.ops.*", "mylib.envs.*.step"]'),
        )
    ]


def test_the_traces_a_module_gives_do_not_depend_on_the_rules_run_before(tmp_path):
    # The rules settle `Stack.__call__`'s scopes before the imported class is known: the
    # traces it gives `ResidualLayer.__call__` must not read those.
    write(
        tmp_path,
        {
            "layers.py": """
                import jax.numpy as jnp
                from flax import nnx


                class ResidualLayer(nnx.Module):
                    def __init__(self, dim, rngs: nnx.Rngs):
                        self.linear = nnx.Linear(dim, dim, rngs=rngs)

                    def __call__(self, x):
                        if jnp.isnan(x).any():
                            raise FloatingPointError("NaN")
                        return x + self.linear(x)
            """,
            "stack.py": """
                from flax import nnx

                from layers import ResidualLayer


                class Stack(nnx.Module):
                    def __init__(self, dim, depth, rngs: nnx.Rngs):
                        self.layers = nnx.List([ResidualLayer(dim, rngs) for _ in range(depth)])

                    def __call__(self, x):
                        for layer in self.layers:
                            x = layer(x)
                        return x
            """,
            "train.py": """
                from flax import nnx

                from stack import Stack


                @nnx.jit
                def forward(model: Stack, x):
                    return model(x)
            """,
        },
    )
    workspace = Workspace(str(tmp_path))
    stack = str(tmp_path / "stack.py")
    rounds = TraceRounds()
    train = str(tmp_path / "train.py")
    rounds.record(train, traces_given(check(tmp_path, "train.py", workspace), workspace), ())
    workspace.give(rounds)
    after_rules = traces_given(check(tmp_path, "stack.py", workspace), workspace)
    assert [t.function for t in after_rules[str(tmp_path / "layers.py")]] == [
        "ResidualLayer.__call__"
    ]
    assert after_rules == workspace.traces_given_by(stack)
    assert codes(tmp_path, "layers.py") == [(10, "JAX701")]


def test_a_deep_import_graph_is_checked_once_per_module(tmp_path, monkeypatch):
    """Layers of modules each importing every module of the layer below: asking a bottom
    module's traces again checks each importer once, not once per import path (3**6 here)."""
    width, depth = 3, 6
    files = {"base.py": "def later(x):\n    if x > 0:\n        return x\n    return -x\n"}
    below = [("base", "later")]
    for layer in range(1, depth + 1):
        here = []
        for index in range(width):
            module, function = f"layer{layer}_{index}", f"f{layer}_{index}"
            imports = "".join(f"from {m} import {f}\n" for m, f in below)
            calls = " + ".join(f"{f}(x)" for _, f in below)
            files[f"{module}.py"] = f"{imports}\n\ndef {function}(x):\n    return {calls}\n"
            here.append((module, function))
        below = here
    imports = "".join(f"from {m} import {f}\n" for m, f in below)
    calls = " + ".join(f"{f}(x)" for _, f in below)
    files["top.py"] = f"import jax\n{imports}\n\n@jax.jit\ndef step(x):\n    return {calls}\n"
    write(tmp_path, files)
    asked = []
    incoming = ProjectTraces.incoming
    monkeypatch.setattr(
        ProjectTraces, "incoming", lambda self, *args: asked.append(1) or incoming(self, *args)
    )
    workspace = Workspace(str(tmp_path))
    for _ in range(2):  # gathered, then confirmed
        asked.clear()
        assert [
            (f.span.start.line + 1, f.code) for f in check(tmp_path, "base.py", workspace).findings
        ] == [(2, "JAX701")]
        assert len(asked) < 3 * len(files)


RELAY = {
    "top.py": """
        import jax

        from mid import relay


        @jax.jit
        def step(x):
            return relay(x)
    """,
    "mid.py": """
        from base import later


        def relay(x):
            return later(x)
    """,
    "base.py": """
        def later(x):
            if x > 0:
                return x
            return -x
    """,
}


def _editor_workspace(root: Path):
    """The server's workspace: open documents' text counts, their edits are told."""
    from lsprotocol import types
    from pygls.uris import from_fs_path

    from jax_lsp.lsp.crossmodule import CrossModuleFacts
    from jax_lsp.lsp.documents import DocumentStore

    documents = DocumentStore()
    cross = CrossModuleFacts(documents)
    cross.workspace.root = str(root)

    def open_document(name: str):
        path = root / name
        item = types.TextDocumentItem(from_fs_path(str(path)), "python", 0, path.read_text())
        return documents.open(item)

    return cross.workspace, open_document


def test_an_open_document_two_imports_away_edited_is_seen_at_the_next_keystroke(
    tmp_path, monkeypatch
):
    """The walk of a module's upstream is made once while nothing it read changed (a minute's
    trust of the files on disk here, so that no time passes for it): asked again, it is not
    walked; an open document upstream edited, it is walked again and the edit is seen."""
    monkeypatch.setattr("jax_lsp.analysis.project.STAMP_TRUST_SECONDS", 60.0)
    write(tmp_path, RELAY)
    workspace, open_document = _editor_workspace(tmp_path)
    top = open_document("top.py")
    base = open_document("base.py")

    def findings() -> list[tuple[int, str]]:
        analysis = check_source(base.text, base.path, Settings(), workspace)
        return [(f.span.start.line + 1, f.code) for f in analysis.findings]

    walked = []
    upstream = ProjectTraces._upstream_unchanged
    monkeypatch.setattr(
        ProjectTraces,
        "_upstream_unchanged",
        lambda self, *args: walked.append(1) or upstream(self, *args),
    )
    assert findings() == [(2, "JAX701")]  # gathered
    assert findings() == [(2, "JAX701")]  # confirmed: the upstream walked
    walked.clear()
    base.set_text(base.text + "\n", 1)  # typing in the module itself changes nothing upstream
    assert findings() == [(2, "JAX701")]
    assert walked == []
    top.set_text(top.text.replace("@jax.jit\n", ""), 1)
    assert findings() == []
    top.set_text(top.text.replace("def step", "@jax.jit\ndef step"), 2)
    assert findings() == [(2, "JAX701")]


def test_a_file_on_disk_two_imports_away_is_read_again_once_its_trust_is_over(
    tmp_path, monkeypatch
):
    """A file on disk upstream is trusted for `STAMP_TRUST_SECONDS` after its stamp was
    read (none here): a confirmation made before does not outlive that."""
    monkeypatch.setattr("jax_lsp.analysis.project.STAMP_TRUST_SECONDS", 0.0)
    write(tmp_path, RELAY)
    workspace, open_document = _editor_workspace(tmp_path)
    base = open_document("base.py")

    def findings() -> list[tuple[int, str]]:
        analysis = check_source(base.text, base.path, Settings(), workspace)
        return [(f.span.start.line + 1, f.code) for f in analysis.findings]

    assert findings() == [(2, "JAX701")]
    assert findings() == [(2, "JAX701")]
    write(tmp_path, {"top.py": RELAY["top.py"].replace("@jax.jit\n", "")})
    assert findings() == []


def test_a_root_given_after_the_workspace_is_made_reaches_the_importers_it_holds(tmp_path):
    """The editor learns the workspace root at `initialize`, after its workspace is made: a
    script at the root that jits a helper of `src/pkg` traces it there as in `check`."""
    write(
        tmp_path,
        {
            "train.py": TRAIN.replace("from utils", "from pkg.utils"),
            "src/pkg/__init__.py": "",
            "src/pkg/utils.py": UTILS,
        },
    )
    workspace = Workspace()
    workspace.root = str(tmp_path)
    found = check(tmp_path, "src/pkg/utils.py", workspace).findings
    assert [(f.span.start.line + 1, f.code) for f in found] == [
        (5, "JAX701"),
        (7, "JAX101"),
        (8, "JAX201"),
    ]


@hypothesis_settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.sampled_from(["A", "b", "Cell", "(", " ", "<", ">", "~", "=", "!", "bool", "_", "é"]),
        max_size=12,
    ).map("".join)
)
def test_may_pass_objects_is_the_one_pattern(text: str):
    """The spellings searched one by one answer as the one pattern of all of them did."""
    pattern = re.compile(r"\b[A-Z]\w*\(|[<>~]|[!=]=|\bbool")
    assert project._may_pass_objects(text) == (pattern.search(text) is not None)


def test_the_names_a_module_defines_follow_each_edit_and_are_kept_while_the_same():
    """The names an importer may import from the module being typed in (asked at every
    keystroke) are the last version's set while every unit's definitions are the same, and
    follow an edit that adds, renames or removes a definition, or changes only comments."""
    from jax_lsp.analysis.document import Document
    from jax_lsp.analysis.infer import ModuleFactsCache

    traces = ProjectTraces(None, ModuleFactsCache(), lambda *args: None)

    def names(document: Document) -> frozenset[str]:
        return traces._document_names("/project/module.py", document)

    first = Document("import jax\n\n\ndef f(x):\n    return x\n")
    added = Document(first.text + "\n\ndef g(y):\n    return y\n", previous=first)
    body = Document(added.text.replace("return y", "return y + 1"), previous=added)
    renamed = Document(body.text.replace("def g(", "def h("), previous=body)
    commented = Document(renamed.text.replace("def h(y):", "def h(y):  # h"), previous=renamed)
    removed = Document(first.text, previous=commented)
    assert names(first) == {"module", "f"}
    assert names(added) == {"module", "f", "g"}
    assert names(body) is names(added)
    assert names(renamed) == {"module", "f", "h"}
    assert names(commented) == names(renamed)
    assert names(removed) == {"module", "f"}


def test_the_project_files_are_listed_with_links_resolved_as_os_walk_finds_them(tmp_path):
    project_folder = tmp_path / "project"
    elsewhere = tmp_path / "elsewhere"
    for name in ("pkg/__init__.py", "pkg/sub/mod.py", ".hidden/h.py", "venv/v.py", "notes.txt"):
        (project_folder / name).parent.mkdir(parents=True, exist_ok=True)
        (project_folder / name).write_text("")
    (project_folder / "venv" / "pyvenv.cfg").write_text("")
    (elsewhere / "inner").mkdir(parents=True)
    (elsewhere / "inner" / "far.py").write_text("")
    (elsewhere / "target.py").write_text("")
    (project_folder / "linked_folder").symlink_to(elsewhere / "inner")  # not followed
    (project_folder / "pkg" / "linked.py").symlink_to(elsewhere / "target.py")
    (tmp_path / "link_to_project").symlink_to(project_folder)
    real = project_folder.resolve()
    expected = (
        str(real / "pkg" / "__init__.py"),
        str(real / "pkg" / "sub" / "mod.py"),
        str((elsewhere / "target.py").resolve()),
    )
    assert project._python_files(str(project_folder)) == tuple(sorted(expected))
    assert project._python_files(str(tmp_path / "link_to_project")) == tuple(sorted(expected))
    assert project._python_files(str(tmp_path / "nowhere")) == ()
