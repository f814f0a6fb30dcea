"""Cross-module facts (jax_lsp.analysis.infer): a temporary workspace of real module files."""

from __future__ import annotations

import os
import re
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from jax_lsp.analysis import infer
from jax_lsp.analysis.document import Document
from jax_lsp.analysis.external import with_answers
from jax_lsp.analysis.infer import ExternalFacts, ModuleFactsCache, local_external_facts
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.model import ModuleModel
from jax_lsp.analysis.values import Container
from jax_lsp.config import Settings
from jax_lsp.engine import analyze, check_source
from jax_lsp.lsp.crossmodule import CrossModuleFacts
from jax_lsp.lsp.documents import DocumentStore
from jax_lsp.lsp.jedi_oracle import JediOracle
from jax_lsp.workspace import Workspace

OPS = """
import functools

import jax
import jax.numpy as jnp
import numpy as np

from mypkg.helpers import helper


def make_state():
    return jnp.zeros(3)


def make_numpy():
    return np.zeros(3)


def annotated(n) -> jax.Array:
    return build(n)


@functools.partial(jax.jit, static_argnums=1)
def step(x, shape):
    return jnp.reshape(x, shape)


def _norm(x):
    return jnp.sqrt(jnp.sum(x * x))


norm = jax.jit(_norm)


def indirect():
    return helper()
"""

HELPERS = """
import jax.numpy as jnp


def helper():
    out = jnp.ones(3)
    return out
"""


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    write(
        tmp_path,
        {
            "mypkg/__init__.py": "from .ops import make_state as fresh_state\n",
            "mypkg/ops.py": OPS,
            "mypkg/helpers.py": HELPERS,
        },
    )
    return tmp_path


def facts_of(root: Path, name: str, text: str):
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    text = textwrap.dedent(text)
    path.write_text(text)
    document = Document(text, str(path))
    return document, *local_external_facts(document, str(root), ModuleFactsCache())


def codes(document: Document, external) -> list[tuple[str, int]]:
    return [(f.code, f.span.start.line) for f in analyze(document, external=external).findings]


def test_engine_reads_the_imported_module(workspace: Path):
    _, facts, unanswered = facts_of(
        workspace,
        "b.py",
        """
        from mypkg.ops import make_state, make_numpy, annotated, step, norm, indirect
        import mypkg.ops as ops
        from mypkg import fresh_state

        make_state(); make_numpy(); annotated(3); step(1, (3,)); norm(2); indirect()
        ops.make_state(); fresh_state()
        """,
    )
    assert facts["make_state"] == ExternalFacts(True)
    assert facts["ops.make_state"] == ExternalFacts(True)
    assert facts["fresh_state"] == ExternalFacts(True)  # re-exported by the package
    assert facts["make_numpy"] == ExternalFacts(False)
    assert facts["annotated"].returns_array
    assert facts["step"].transform == "jit"
    assert facts["step"].static.positions == frozenset({1})
    assert facts["norm"].transform == "jit" and facts["norm"].returns_array
    assert set(unanswered) == {"indirect"}  # its value comes from a third module


def test_models_dropped_for_memory_are_rebuilt_when_a_new_name_is_asked(workspace, monkeypatch):
    monkeypatch.setattr(infer, "_MAX_MODEL_LINES", 1)  # keep only the newest module's model
    cache = ModuleFactsCache()
    path = workspace / "b.py"

    def ask(calls: str) -> dict:
        imports = "from mypkg.ops import make_state, make_numpy\nfrom mypkg.helpers import helper"
        text = f"{imports}\n{calls}\n"
        path.write_text(text)
        return local_external_facts(Document(text, str(path)), str(workspace), cache)[0]

    assert ask("make_state()")["make_state"] == ExternalFacts(True)  # the ops model is built
    assert ask("make_state(); helper()")["helper"] == ExternalFacts(True)  # then helpers'
    ops = cache._entries[workspace / "mypkg" / "ops.py"]
    assert ops.model is None  # dropped for the helpers module's model
    again = ask("make_state(); make_numpy(); helper()")  # make_numpy: never asked before
    assert again["make_state"] == ExternalFacts(True)
    assert again["make_numpy"] == ExternalFacts(False)


def test_relative_imports(workspace: Path):
    _, facts, _ = facts_of(
        workspace,
        "mypkg/user.py",
        """
        from .ops import make_state
        from . import ops

        make_state(); ops.make_numpy()
        """,
    )
    assert facts["make_state"].returns_array
    assert facts["ops.make_numpy"] == ExternalFacts(False)


def test_facts_reach_the_rules(workspace: Path):
    document, facts, _ = facts_of(
        workspace,
        "b.py",
        """
        import jax
        from mypkg.ops import make_state, make_numpy, step, norm

        state = make_state()
        state[0] = 1.0
        other = make_numpy()
        other[0] = 1.0
        step(state, [3])


        @jax.jit
        def f(x):
            n = norm(x)
            if n > 0:
                return x / n
            return x


        def g(make_state):
            s = make_state()
            s[0] = 1.0
        """,
    )
    found = codes(document, facts)
    assert ("JAX201", 5) in found  # state[0] = 1.0
    assert ("JAX1002", 8) in found  # a list as a static argument of an imported jitted fn
    assert ("JAX701", 14) in found  # `if` on what an imported jitted function returns
    assert not [c for c in found if c[1] in (7, 21)]  # a NumPy array; a shadowing parameter
    # Without the facts, only what the value model concludes by itself: `norm(x)` of a traced
    # `x` in jitted code is compared with 0, which only a traced result would make fail.
    assert codes(document, None) == [("JAX701", 14)]


def test_jedi_answers_what_the_engine_cannot(workspace: Path):
    document, facts, _ = facts_of(
        workspace, "b.py", "from mypkg.ops import indirect\n\nstate = indirect()\nstate[0] = 1\n"
    )
    known, questions = Workspace(str(workspace), asks_jedi=True).facts(document)
    assert known == facts and [key[1] for key in questions] == ["indirect"]
    sites = {key[1]: (site.line, site.column) for key, site in questions.items()}
    found = JediOracle(str(workspace)).returns_array(document.text, document.path, sites)
    assert found == {"indirect"}
    external = {"indirect": ExternalFacts(True, origin="jedi")}
    assert [f.code for f in analyze(document, external=external).findings] == ["JAX201"]


def test_nothing_is_imported_or_executed(tmp_path: Path):
    marker = tmp_path / "MARKER"
    write(
        tmp_path,
        {
            "evil.py": f"""
                import jax.numpy as jnp
                open({str(marker)!r}, "w").write("imported")

                def make_state():
                    open({str(marker)!r}, "w").write("called")
                    return jnp.zeros(3)

                class Factory:
                    def make(self):
                        return make_state()

                def indirect():
                    return Factory().make()  # through a method: the engine does not follow it
                """,
        },
    )
    document, facts, _ = facts_of(
        tmp_path,
        "b.py",
        "from evil import make_state, indirect\n\nx = make_state()\ny = indirect()\n",
    )
    assert facts["make_state"].returns_array
    _, questions = Workspace(str(tmp_path), asks_jedi=True).facts(document)
    sites = {key[1]: (site.line, site.column) for key, site in questions.items()}
    assert list(sites) == ["indirect"]
    found = JediOracle(str(tmp_path)).returns_array(document.text, document.path, sites)
    assert "indirect" in found  # jedi read evil.py ...
    assert not marker.exists()  # ... without running it


def test_an_imported_decorator_never_called_is_no_question_for_jedi(tmp_path: Path):
    """`@override` names an imported callable the engine cannot read, without calling it:
    there is no call site to ask jedi about (the server's analysis of the file failed)."""
    text = (
        "from typing_extensions import override\n\n\n"
        "class Reward:\n    @override\n    def __call__(self, state):\n        return state\n"
    )
    document, _, _ = facts_of(tmp_path, "reward.py", text)
    _, questions = Workspace(str(tmp_path), asks_jedi=True).facts(document)
    assert questions == {}


async def test_jedi_questions_are_asked_once_and_cached(workspace: Path):
    document, _, _ = facts_of(workspace, "b.py", "from mypkg.ops import indirect\n\nindirect()\n")
    cross = CrossModuleFacts(DocumentStore())
    cross.workspace.root = str(workspace)
    _, questions = cross.workspace.facts(document)
    first, asked = cross.ask_jedi(document.text, document.path, str(workspace), questions)
    second, asked_again = cross.ask_jedi(document.text, document.path, str(workspace), questions)
    assert asked and not asked_again  # the second version waits for the same jedi job
    expected = {"indirect": ExternalFacts(True, origin="jedi")}
    assert await first == expected and await second == expected
    known, questions = cross.workspace.facts(document)
    assert known == expected and not questions  # the next version: cached, no jedi


def test_a_tuple_or_dict_an_imported_helper_returns_keeps_its_items(tmp_path: Path):
    write(
        tmp_path,
        {
            "stats.py": """
            import jax.numpy as jnp
            import numpy as np

            def batch_stats(x):
                return {"mean": x.mean(axis=0), "std": x.std(axis=0)}

            def moments(x):
                return jnp.mean(x), jnp.var(x)

            def sizes(x):
                return {"n": len(x), "host": np.zeros(3)}
            """
        },
    )
    document, facts, _ = facts_of(
        tmp_path,
        "train.py",
        """
        import jax
        from stats import batch_stats, moments, sizes

        @jax.jit
        def step(x):
            stats = batch_stats(x)
            scale = float(stats["mean"].sum())
            mu, var = moments(x)
            var[0] = 0.0
            info = sizes(x)
            if info["n"] > 2:
                info["host"][0] = 1.0
            return x * scale
        """,
    )
    assert facts["batch_stats"].returns == Container("dict", (Kind.UNKNOWN,) * 2, ("mean", "std"))
    assert facts["moments"].returns == Container("tuple", (Kind.ARRAY, Kind.ARRAY))
    # the items of a dict of tracers; the int and NumPy items of another stay Python's
    assert codes(document, facts) == [("JAX703", 7), ("JAX201", 9)]


def test_names_from_a_module_that_may_build_explicit_meshes_are_marked(tmp_path: Path):
    """Every name imported from a module whose code names `make_mesh` (a value, a function
    the engine answers, one left to jedi, the module itself) carries the mark; jedi's answer
    for a name keeps it; a module without meshes marks nothing."""
    (tmp_path / "meshes.py").write_text(
        "import jax\nimport jax.numpy as jnp\n\nmesh = jax.make_mesh((1,), ('x',))\n\n"
        "def zeros():\n    return jnp.zeros(3)\n\ndef build(n):\n    return helper(n)\n"
    )
    (tmp_path / "plain.py").write_text("import jax.numpy as jnp\n\nscale = 2.0\n")
    _, facts, unanswered = facts_of(
        tmp_path,
        "train.py",
        """
        import meshes
        from meshes import mesh, zeros, build
        from plain import scale

        x = zeros()
        other = build(2)
        y = scale
        """,
    )
    marked = {name for name, found in facts.items() if found.explicit_meshes}
    assert marked == {"meshes", "mesh", "zeros", "build"}
    assert facts["zeros"].returns_array  # the call's facts are kept
    assert not facts["build"].returns_array and set(unanswered) == {"build"}  # jedi's to answer
    merged = with_answers(facts, {"build": ExternalFacts(True, origin="jedi")})
    assert merged["build"].returns_array and merged["build"].explicit_meshes
    document = Document("import jax.numpy as jnp\nx = jnp.zeros(3)\nx[0] = 1.0\n")
    assert ModuleModel(document, external=merged).may_make_explicit_meshes
    plain = {"scale": ExternalFacts(False)}
    assert not ModuleModel(document, external=plain).may_make_explicit_meshes


def test_meshes_are_followed_through_re_exports_without_models_of_other_modules(tmp_path: Path):
    """A name re-exported on its way from a module that builds meshes is marked (a `)` in a
    comment inside the import's parentheses included); a module that neither names the mesh
    builders nor re-exports the name is answered from its text: no model is built of it."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "impl.py").write_text(
        "import jax\n\nmesh = jax.make_mesh((1,), ('x',))\n\ndef shard(x):\n    return x\n"
    )
    (package / "api.py").write_text(
        "from .impl import (\n    mesh,  # the default one (see impl)\n    shard,\n)\n"
    )
    (package / "plain.py").write_text(
        "import jax.numpy as jnp  # imports (shard) nothing\n\nscale = 2.0\n\n"
        "def shard(x):\n    return x\n"
    )
    cache = ModuleFactsCache()
    path = tmp_path / "train.py"
    # (`scale`, a module-level value, would be read from plain's model: not imported here.)
    text = "from pkg.api import shard\nfrom pkg.plain import shard as plain_shard\n"
    path.write_text(text)
    facts, _ = local_external_facts(Document(text, str(path)), str(tmp_path), cache)
    assert {name for name, found in facts.items() if found.explicit_meshes} == {"shard"}
    assert cache._entries[package / "plain.py"].model is None
    assert cache._entries[package / "impl.py"].model is not None  # it names make_mesh


def test_a_documents_next_versions_reuse_its_facts_until_an_imported_module_changes(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
):
    """The facts are kept on the document's lineage: a keystroke that changes neither the
    imports nor the calls reuses them, but a module they were read from that changes (saved
    on disk, or edited while open) is read again, as is a module file that appears. A file
    saved on disk is seen at once when the editor's file watcher reports it, and otherwise
    once its stamp is older than `STAMP_TRUST_SECONDS`."""
    now = [1000.0]
    monkeypatch.setattr(infer.time, "monotonic", lambda: now[0])
    cache_open: dict[str, str] = {}
    cache = ModuleFactsCache(open_text=lambda path: cache_open.get(path))
    path = workspace / "b.py"
    lines = ["from mypkg.ops import make_state", "", "def f():", "    return make_state()", ""]
    document = Document("\n".join(lines), str(path))
    first = local_external_facts(document, str(workspace), cache)
    assert first[0]["make_state"] == ExternalFacts(True)

    def edited(line: str) -> tuple[Document, tuple]:
        nonlocal document
        lines[2] = line
        document = Document("\n".join(lines), str(path), previous=document)
        return document, local_external_facts(document, str(workspace), cache)

    _, again = edited("def f():  # a comment")
    assert again is first  # nothing it read changed: reused, not read again
    ops = workspace / "mypkg" / "ops.py"
    ops.write_text(OPS.replace("return jnp.zeros(3)", "return np.zeros(3)") + "\n# longer\n")
    _, unseen = edited("def f():  # no watcher")
    assert unseen is first  # its stamp was read within the trust, and nothing reported it
    cache.expire([str(ops)])  # the editor's file watcher reports the save
    _, saved = edited("def f(): ")
    assert saved is not first and saved[0]["make_state"] == ExternalFacts(False)
    ops.write_text(OPS + "\n# longer again\n")
    now[0] += infer.STAMP_TRUST_SECONDS + 0.1  # unreported, but its stamp is read again
    _, later = edited("def f():  # later")
    assert later[0]["make_state"] == ExternalFacts(True)
    cache_open[str(ops)] = OPS  # opened in the editor, edited back
    _, opened = edited("def f():")
    assert opened[0]["make_state"] == ExternalFacts(True)
    cache_open[str(ops)] = OPS.replace("return jnp.zeros(3)", "return [0.0]")
    _, typed = edited("def f():  #")
    assert not typed[0]["make_state"].returns_array  # a list now
    assert typed[0]["make_state"].returns.form == "list"  # type: ignore[union-attr]
    del cache_open[str(ops)]  # closed unsaved: the file on disk counts again, at once
    _, closed = edited("def f():  # closed")
    assert closed[0]["make_state"] == ExternalFacts(True)


def test_a_call_typed_or_an_import_changed_reaches_the_next_versions_facts(workspace: Path):
    """What the calls spell is kept on the lineage while the calls and the imports are the
    same: a call typed, the same name imported from another module, then renamed, each reach
    the facts, as a document read afresh gives them."""
    (workspace / "mypkg" / "np_ops.py").write_text(
        "import numpy as np\n\n\ndef make_state():\n    return np.zeros(3)\n"
    )
    cache = ModuleFactsCache()
    path = workspace / "c.py"
    lines = ["from mypkg.ops import make_state", "", "def f():", "    return 1", ""]
    document = Document("\n".join(lines), str(path))
    versions = []
    for row, line in (
        (3, "    return make_state()"),
        (0, "from mypkg.np_ops import make_state"),
        (0, "from mypkg.np_ops import make_state as build"),
        (3, "    return build()"),
    ):
        lines[row] = line
        document = Document("\n".join(lines), str(path), previous=document)
        facts = local_external_facts(document, str(workspace), cache)[0]
        fresh = local_external_facts(Document(document.text, str(path)), str(workspace), cache)
        assert facts == fresh[0]
        versions.append(facts)
    assert versions == [
        {"make_state": ExternalFacts(True)},
        {"make_state": ExternalFacts(False)},
        {},
        {"build": ExternalFacts(False)},
    ]


def test_names_no_def_binds_are_answered_without_a_model(tmp_path: Path):
    """A class (or constant) imported and called, and a name a module only re-exports, need
    no model of their module: its parse says that no `def` or `name = call(f)` binds them.
    The module that defines the function still has one, and its facts arrive."""
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/impl.py": "import jax.numpy as jnp\n\ndef ones():\n    return jnp.ones(3)\n",
            "pkg/api.py": "from .impl import ones as fresh\n\nclass Net:\n    pass\n",
        },
    )
    cache = ModuleFactsCache()
    path = tmp_path / "train.py"
    text = "from pkg.api import Net, fresh\n\nNet(); fresh()\n"
    path.write_text(text)
    facts, unanswered = local_external_facts(Document(text, str(path)), str(tmp_path), cache)
    assert facts["fresh"] == ExternalFacts(True)
    assert set(unanswered) == {"Net"}
    assert cache._entries[tmp_path / "pkg" / "api.py"].model is None
    assert cache._entries[tmp_path / "pkg" / "impl.py"].model is not None


def test_class_facts_are_worked_out_only_for_an_importer_that_may_read_them(tmp_path: Path):
    """A PyTree class's facts are read where the importer annotates a parameter with it
    or derives from it: an importer that only calls it (or holds it) is answered without a
    model of its module. A class some other statement of its module binds too is modelled
    as before, whatever the importer reads."""
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/state.py": """
            from typing import NamedTuple

            import jax


            class State(NamedTuple):
                pos: jax.Array
            """,
            "pkg/rebound.py": """
            from typing import NamedTuple


            class Other(NamedTuple):
                pos: float


            if True:
                Other = dict
            """,
        },
    )

    def facts_of(text: str) -> tuple[dict, dict, ModuleFactsCache]:
        cache = ModuleFactsCache()
        path = tmp_path / "train.py"
        facts, unanswered = local_external_facts(Document(text, str(path)), str(tmp_path), cache)
        return facts, unanswered, cache

    def modelled(cache: ModuleFactsCache, name: str) -> bool:
        return cache._entries[tmp_path / "pkg" / name].model is not None

    calls = "from pkg.state import State\nfrom pkg.rebound import Other\n\nState(1); Other(2)\n"
    facts, unanswered, cache = facts_of(calls)
    assert not unanswered and not facts["State"].read_by_models
    assert not modelled(cache, "state.py") and modelled(cache, "rebound.py")

    for reader in ("def step(state: State): ...", "if True:\n    class Mine(State): ..."):
        facts, unanswered, cache = facts_of(f"{calls}\n{reader}\n")
        assert not unanswered and facts["State"].instance_fields is not None
        assert modelled(cache, "state.py")

    held = "from pkg.state import State\n\nkinds = [State]\n"
    facts, unanswered, cache = facts_of(held)
    assert facts == {} and not unanswered and not modelled(cache, "state.py")


def test_check_shares_a_modules_model_with_its_importers(workspace: Path):
    """`check` analyses modules that others import: a module imported before it is checked
    is analysed on the model its importer built (same parses, same facts), and one checked
    before it is imported gives its importer the model it was analysed with. The findings
    are those of an analysis that shares nothing."""
    settings = Settings()
    helpers = workspace / "mypkg" / "helpers.py"
    helpers_text = helpers.read_text()
    importer = "from mypkg.helpers import helper\n\nx = helper()\nx[0] = 1\n"

    def fresh_codes(text: str, path: Path) -> list:
        return check_source(text, str(path), settings, Workspace(str(workspace))).findings

    shared = Workspace(str(workspace))
    check_source(importer, str(workspace / "b.py"), settings, shared)  # builds helpers' model
    built = shared._modules._entries[helpers].model
    analysis = check_source(helpers_text, str(helpers), settings, shared)
    assert built is not None and analysis.model is not None
    assert analysis.model.trace is built.trace  # the importer's model, not a new one
    assert analysis.findings == fresh_codes(helpers_text, helpers)

    other = Workspace(str(workspace))
    analysis = check_source(helpers_text, str(helpers), settings, other)
    second = check_source(importer, str(workspace / "c.py"), settings, other)
    # The same model's facts: the project's trace graph may have read helpers for its
    # importers first, and the analysis then took that model (a copy of it).
    assert other._modules._entries[helpers].model.trace is analysis.model.trace
    assert second.findings == fresh_codes(importer, workspace / "c.py")


def test_check_reads_a_modules_file_once_unless_its_analysis_finds_it_written(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
):
    """In one `check` run (`trust_files`) an imported module's file is looked at once, not at
    each importer; a module that `--fix` rewrote is analysed again with its new text, and
    the importers after it read that text."""
    settings = Settings()
    shared = Workspace(str(workspace))
    shared.trust_files()
    stamps: list[Path | None] = []
    file_stamp = infer.file_stamp
    monkeypatch.setattr(infer, "file_stamp", lambda file: stamps.append(file) or file_stamp(file))
    importer = "from mypkg.ops import make_state\n\nx = make_state()\nx[0] = 1\n"
    first = check_source(importer, str(workspace / "b.py"), settings, shared).findings
    assert [f.code for f in first] == ["JAX201"]  # an in-place update of a JAX array
    ops = workspace / "mypkg" / "ops.py"
    looked_at = stamps.count(ops)
    check_source(importer, str(workspace / "c.py"), settings, shared)
    assert stamps.count(ops) == looked_at  # trusted: not looked at again
    fixed = OPS.replace("return jnp.zeros(3)", "return np.zeros(3)")
    ops.write_text(fixed)  # what `--fix` does before it analyses the fixed text
    check_source(fixed, str(ops), settings, shared)
    assert check_source(importer, str(workspace / "d.py"), settings, shared).findings == []


def test_check_parses_a_module_once_for_its_importers_and_itself(workspace: Path):
    """A module whose facts are read from its parse alone (it only re-exports) is analysed on
    that parse; a module analysed with facts of other modules (so its model is not the one
    an importer builds) gives its importer its parses, not its lineage. The findings are those
    of analyses that share nothing."""
    settings = Settings()
    package = workspace / "mypkg"
    importer = "from mypkg import fresh_state\n\nx = fresh_state()\nx[0] = 1\n"

    def fresh(text: str, path: Path) -> list:
        return check_source(text, str(path), settings, Workspace(str(workspace))).findings

    def sources(document: Document) -> list[int]:
        return [id(unit.source) for unit in document.units]  # the same objects, not equal ones

    shared = Workspace(str(workspace))
    ops_text = (package / "ops.py").read_text()
    ops = check_source(ops_text, str(package / "ops.py"), settings, shared).model
    assert ops is not None and ops.external  # helper's facts
    first = check_source(importer, str(workspace / "b.py"), settings, shared)
    assert first.findings and first.findings == fresh(importer, workspace / "b.py")
    ops_entry = shared._modules._entries[package / "ops.py"]
    assert ops_entry.model is not None and not ops_entry.model.external
    assert sources(ops_entry.model.document) == sources(ops.document)
    assert ops_entry.model.document.lineage is not ops.document.lineage
    init_entry = shared._modules._entries[package / "__init__.py"]
    assert init_entry.model is None and init_entry.document is not None
    init_text = (package / "__init__.py").read_text()
    init = check_source(init_text, str(package / "__init__.py"), settings, shared)
    assert init.model is not None
    assert sources(init.model.document) == sources(init_entry.document)
    assert init.findings == fresh(init_text, package / "__init__.py")


@pytest.mark.parametrize(
    "text",
    [
        "ops.step(x)",
        "y = (ops\n     .step)(x)",
        "y = f(ops.  # the step\n      step(x))",
        "y = ops \\\n    .step (x)",
        "y = ((ops).inner).step(x)",
        "@ops.jit()\ndef f(x):\n    return x",
    ],
)
def test_units_that_call_a_name_are_walked_for_their_calls(text: str):
    """The text prefilter lets every unit through that calls a spelling starting with a head
    word, however the spelling is broken up; a unit that only mentions the word is not."""
    document = Document(text)
    source = document.units[0].source
    spellings = infer._call_spellings([source.tree])
    assert any(spelling.startswith("ops.") for spelling in spellings)
    assert infer._may_call_one_of(source, frozenset({"ops"}))
    mentioned = Document("import ops\n\nstep: ops.Step = ops.default\n").units[-1].source
    assert not infer._may_call_one_of(mentioned, frozenset({"ops"}))


def _heads_pattern(heads: frozenset[str]) -> re.Pattern[str]:
    """The search `_text_may_call` answers, as one pattern spelling the heads (what it was
    before: compiled afresh for each file's imports)."""
    gap = r"(?:[\s\\]|#[^\n]*+)"
    words = "|".join(re.escape(head) for head in sorted(heads))
    return re.compile(rf"\b(?:{words})\b(?:[\s)\\]|#[^\n]*+|\.{gap}*\w++)*+\(")


_CALL_TEXT_PIECES = st.sampled_from(
    [
        *("ops", "op", "opsx", "xops", "_ops", "é", "ops2", "nn", "step", "1", "ops.step(", "f(nn"),
        *(".", " ", "\n", "\\\n", "(", ")", "#", "# c\n", "=", "[", "]", "'", ",", "\t"),
    ]
)


@hypothesis_settings(max_examples=400, deadline=None)
@given(
    st.lists(_CALL_TEXT_PIECES, max_size=14).map("".join),
    st.sets(st.sampled_from(["ops", "nn", "op", "é", "ops2"]), min_size=1),
)
def test_text_may_call_answers_as_the_heads_pattern(text: str, heads: set[str]):
    """The head search without a pattern of the heads finds a call where the pattern does,
    and nowhere else."""
    chosen = frozenset(heads)
    expected = _heads_pattern(chosen).search(text) is not None
    assert infer._text_may_call(text, chosen) == expected


def test_class_members_that_cannot_call_an_import_are_not_walked():
    """A class's members are walked for their calls only where their text may call an
    imported name (a decorator counts); the spellings found are the ones `_spelled` keeps."""
    text = textwrap.dedent(
        """\
        class Model:
            kind = ops.Kind

            @ops.jit()
            def decorated(self, x):
                return x

            def calls(self, x):
                return (ops
                        .step)(x)

            def other(self, x):
                helper(x)
                return ops.value
        """
    )
    source = Document(text).units[0].source
    heads = frozenset({"ops"})
    found = infer._head_calls(source, heads)
    assert {"ops.jit", "ops.step"} <= found
    assert "helper" not in found  # `other` only mentions `ops`: not walked
    assert infer._spelled((found,), {}, {"ops": "pkg.ops"}) == infer._spelled(
        (infer._unit_calls(source),), {}, {"ops": "pkg.ops"}
    )


def test_an_edit_in_a_class_searches_the_edited_member_alone(monkeypatch: pytest.MonkeyPatch):
    """The members an edit leaves as they were keep their answer (on their shared nodes):
    the text of the edited one alone is searched again."""
    text = textwrap.dedent(
        """\
        class Model:
            def first(self, x):
                return ops.step(x)

            def second(self, x):
                return x + 1

            def third(self, x):
                return ops.value
        """
    )
    heads = frozenset({"ops"})
    before = Document(text)
    assert "ops.step" in infer._head_calls(before.units[0].source, heads)
    searched: list[str] = []
    search = infer._text_may_call

    def counted(member_text: str, present: frozenset[str]) -> bool:
        searched.append(member_text)
        return search(member_text, present)

    monkeypatch.setattr(infer, "_text_may_call", counted)
    edited = text.replace("return x + 1", "return ops.scale(x)")
    after = Document(edited, previous=before)
    assert infer._head_calls(after.units[0].source, heads) >= {"ops.step", "ops.scale"}
    assert searched == ["    def second(self, x):\n        return ops.scale(x)"]


# What the import words were read with before: a pattern over the whole text, comments removed
# (what follows an `import`: a parenthesised list, or the rest of the line and continuations).
_IMPORT_SPAN = re.compile(r"\bimport\b(\s*\([^)]*\)|(?:[^\n\\]|\\\n?)*)")

_IMPORT_TEXT_PIECES = st.sampled_from(
    [
        *("import", "from", "pkg", "a", "b as c", "é", "ximport", "import_", "1"),
        *(" ", "\n", "\\", "\\\n", "(", ")", ",", ";", "#", "# x)\n", "'", '"', "\t", "\r"),
    ]
)


@hypothesis_settings(max_examples=500, deadline=None)
@given(st.lists(_IMPORT_TEXT_PIECES, max_size=16).map("".join))
def test_import_words_hold_every_word_of_the_whole_text_pattern(text: str):
    """Only the lines holding `import` are read, yet every word the whole-text pattern finds
    is among the import words (a few more are harmless: each is looked up in the parse)."""
    code = infer._COMMENT.sub(r"\1", text)
    expected = {word for span in _IMPORT_SPAN.findall(code) for word in re.findall(r"\w+", span)}
    assert expected <= infer.import_words(text)


def test_import_words_follow_lists_and_continuations():
    text = (
        "from a import (\n    b,  # see c)\n    d,\n) ; from e import f\n"
        "import g, \\\n    h\n# import i\nx = 'import j'\n"
    )
    assert {"b", "d", "f", "g", "h"} <= infer.import_words(text)
    assert "i" not in infer.import_words(text)  # in a comment


def test_real_file_is_realpath(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The folder is resolved once per folder; a file that is a link, `..` after a linked
    # folder and folder-like names are resolved as `realpath` resolves them.
    from jax_lsp.analysis.workspace import real_file

    (tmp_path / "real" / "pkg").mkdir(parents=True)
    (tmp_path / "real" / "pkg" / "m.py").write_text("")
    (tmp_path / "linked").symlink_to(tmp_path / "real" / "pkg")
    (tmp_path / "real" / "l.py").symlink_to(tmp_path / "real" / "pkg" / "m.py")
    monkeypatch.chdir(tmp_path)
    paths = ["real/pkg/m.py", "linked/m.py", "real/l.py", "linked/../l.py", "linked/", "new.py"]
    for path in [*paths, str(tmp_path / "linked" / "m.py"), "linked/.."]:
        assert real_file(path) == os.path.realpath(path), path


def test_facts_no_model_reads_leave_the_importers_model_shared() -> None:
    # A helper known to return no array (jitted or not, without static arguments) tells the
    # model nothing: the module's model is the one its importers build, without facts.
    document = Document("from ops import helper\n\nx = helper()\n", "m.py")
    plain = ModuleModel.of(document)
    told_nothing = ModuleModel.of(document, external={"helper": ExternalFacts(False, "jit")})
    assert not told_nothing.external and told_nothing.trace is plain.trace
    told = ModuleModel.of(document, external={"helper": ExternalFacts(True)})
    assert told.external == {"helper": ExternalFacts(True)} and told.trace is not plain.trace
    assert ExternalFacts(False, explicit_meshes=True).read_by_models
    assert ExternalFacts(False, returns=Container("tuple")).read_by_models


def test_static_fields_of_pytree_classes_nested_across_modules(tmp_path: Path):
    """A parameter annotated `module.Cls` (or `Cls | None`) of a registered dataclass from
    another module holds an object whose fields are those its module declares, and a field
    declared with a PyTree class of a third module holds an object of it in turn: its
    `metadata={"static": True}` fields are aux data, Python values under `jax.jit`. The
    modules live in a namespace subpackage (`pkg/_src/` without `__init__.py`)."""
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/_src/pedestal/params.py": """
            import dataclasses
            import enum

            import jax


            class Mode(enum.Enum):
                FIXED = "fixed"
                ADAPTIVE = "adaptive"


            @jax.tree_util.register_dataclass
            @dataclasses.dataclass(frozen=True)
            class Pedestal:
                height: jax.Array
                mode: Mode = dataclasses.field(metadata={"static": True})
            """,
            "pkg/_src/config/runtime.py": """
            import dataclasses

            import jax

            from pkg._src.pedestal import params as pedestal_params


            @jax.tree_util.register_dataclass
            @dataclasses.dataclass(frozen=True)
            class Runtime:
                pedestal: pedestal_params.Pedestal
            """,
        },
    )
    model = """
    import jax

    from pkg._src.config import runtime as runtime_lib
    from pkg._src.pedestal import params as pedestal_params


    @jax.jit
    def evaluate(runtime: runtime_lib.Runtime, x):
        if runtime.pedestal.mode == pedestal_params.Mode.ADAPTIVE:
            x = x * 2.0
        if runtime.pedestal.height > 0:
            x = x + 1.0
        return x


    @jax.jit
    def maybe(runtime: runtime_lib.Runtime | None, x):
        return x * 2.0 if runtime else x
    """
    document, facts, _ = facts_of(tmp_path, "pkg/_src/fvm/model.py", model)
    pedestal = dict(facts["runtime_lib.Runtime"].leaf_instance_fields)["pedestal"]
    assert dict(pedestal.fields)["mode"] is Kind.STATIC
    # The array field is still a tracer: its truth is the one error.
    assert [c for c in codes(document, facts) if c[0] == "JAX701"] == [("JAX701", 11)]


def test_a_parameter_annotated_with_an_imported_container_alias_is_a_container(tmp_path: Path):
    """`cache: config.Cache | None` where the other module binds `Cache = dict[str, ...]`:
    a dict (or None), whose truth is Python's; `Optional[dict[...]]` too. A parameter
    annotated with an array is still a tracer."""
    write(
        tmp_path,
        {
            "gm/__init__.py": "",
            "gm/config.py": """
            import jax

            LayerCache = dict[str, jax.Array]
            Cache = dict[str, LayerCache]
            """,
        },
    )
    model = """
    from typing import Optional

    import jax

    from gm import config


    @jax.jit
    def forward(x, cache: config.Cache | None = None, extra: Optional[dict] = None):
        old = cache or {}
        more = extra or {}
        return x, old, more


    @jax.jit
    def plain(x: jax.Array):
        return x or 1.0
    """
    document, facts, _ = facts_of(tmp_path, "gm/transformer.py", model)
    assert facts["config.Cache"].container_form == "dict"
    assert [c for c in codes(document, facts) if c[0] == "JAX702"] == [("JAX702", 17)]


@hypothesis_settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.sampled_from(["x", "class", "_a1", "é", " ", "\t", "\n", "\r\n", ":", "=", "==", "#"]),
        max_size=16,
    ).map("".join)
)
def test_line_start_definitions_are_the_multiline_patterns(text: str):
    """The names lines start assigning or defining as a class, found after a newline put
    before the text, are those the multiline `^` patterns find."""
    entry = infer._ModuleEntry(None, {}, document=Document(text, "<mod>"))
    expected = {
        *re.findall(r"^(\w+)[ \t]*[:=]", text, re.MULTILINE),
        *re.findall(r"^class[ \t]+(\w+)", text, re.MULTILINE),
    }
    assert ModuleFactsCache().line_start_definitions(Path("mod.py"), entry) == expected
