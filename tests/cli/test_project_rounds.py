"""`check` over a project: each module is analysed with the traces the other modules give it,
settled in rounds (`jax_lsp.workspace.TraceRounds`), in one process and in worker processes,
with `--fix`, and for a file checked alone (its importers are read for their traces)."""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

from jax_lsp.checking import _PARALLEL_THRESHOLD, _analyse, _map_reads, _stale_items
from jax_lsp.config import Settings
from jax_lsp.parallel import Workers
from jax_lsp.workspace import TraceRounds, Workspace
from tests.analysis.test_project_traces import write
from tests.cli.helpers import jax_lsp, jax_lsp_process

TRAIN = """
    import jax

    from helpers import clip_update


    @jax.jit
    def step(params, grads):
        return clip_update(params, grads, 0.1)
"""

# Traced only through `step` in train.py; calls into deeper.py, two modules from the jit.
HELPERS = """
    from deeper import scale


    def clip_update(params, grads, lr):
        params[0] = params[0] - lr * scale(grads)[0]
        return params
"""

DEEPER = """
    import jax.numpy as jnp


    def scale(grads):
        if jnp.linalg.norm(grads) > 1.0:
            grads = grads / jnp.linalg.norm(grads)
        return grads
"""


def findings(stdout: str) -> list[tuple[str, int, str]]:
    return sorted(
        (Path(f["filename"]).name, f["location"]["row"], f["code"]) for f in json.loads(stdout)
    )


EXPECTED = [("deeper.py", 5, "JAX701"), ("helpers.py", 5, "JAX201")]


def test_a_chain_of_modules_is_settled_in_one_process(tmp_path):
    write(tmp_path, {"train.py": TRAIN, "helpers.py": HELPERS, "deeper.py": DEEPER})
    run = jax_lsp("check", "--output-format", "json", "--jobs", "1", ".", cwd=tmp_path)
    assert findings(run.stdout) == EXPECTED


def test_a_chain_of_modules_is_settled_across_worker_processes(tmp_path):
    # More files than `check` analyses in one process: the rounds run on two workers.
    fillers = {f"filler_{index:02}.py": f"VALUE_{index} = {index}\n" for index in range(40)}
    write(tmp_path, {"train.py": TRAIN, "helpers.py": HELPERS, "deeper.py": DEEPER, **fillers})
    run = jax_lsp_process("check", "--output-format", "json", "--jobs", "2", ".", cwd=tmp_path)
    assert findings(run.stdout) == EXPECTED, run.stderr


def test_fixes_across_worker_processes_are_applied_once_the_traces_hold(tmp_path):
    # The workers that settled the rounds apply the fixes too (unsafe: see the next test).
    fillers = {f"filler_{index:02}.py": f"VALUE_{index} = {index}\n" for index in range(40)}
    write(tmp_path, {"train.py": TRAIN, "helpers.py": HELPERS, "deeper.py": DEEPER, **fillers})
    run = jax_lsp_process(
        *("check", "--fix", "--unsafe-fixes", "--output-format", "json", "--jobs", "2", "."),
        cwd=tmp_path,
    )
    assert "params = params.at[0].set(" in (tmp_path / "helpers.py").read_text()
    assert "jnp.where(" in (tmp_path / "deeper.py").read_text()
    assert findings(run.stdout) == [], run.stderr


def test_a_file_checked_alone_is_traced_by_its_importers(tmp_path):
    write(tmp_path, {"train.py": TRAIN, "helpers.py": HELPERS, "deeper.py": DEEPER})
    run = jax_lsp("check", "--output-format", "json", "deeper.py", cwd=tmp_path)
    assert findings(run.stdout) == [("deeper.py", 5, "JAX701")]


def test_fixes_are_applied_once_the_traces_hold(tmp_path):
    write(tmp_path, {"train.py": TRAIN, "helpers.py": HELPERS, "deeper.py": DEEPER})
    # Unsafe: `clip_update` is traced only because `step` calls it (`test_caller_given_arrays`).
    run = jax_lsp("check", "--fix", "--unsafe-fixes", "--output-format", "json", ".", cwd=tmp_path)
    assert "params = params.at[0].set(" in (tmp_path / "helpers.py").read_text()
    assert "jnp.where(" in (tmp_path / "deeper.py").read_text()  # its branch's unsafe fix
    assert findings(run.stdout) == []


def test_only_modules_whose_imports_resolve_here_are_importers(tmp_path):
    # `other/train.py` spells `from helpers import ...` too, but no `helpers` is beside it.
    write(
        tmp_path,
        {
            "project/train.py": TRAIN,
            "project/helpers.py": HELPERS,
            "project/deeper.py": DEEPER,
            "other/train.py": TRAIN,
        },
    )
    workspace = Workspace(str(tmp_path))
    helpers = str(tmp_path / "project" / "helpers.py")
    assert workspace.tracing_files([helpers]) == [str(tmp_path / "project" / "train.py")]


def test_rounds_settle_what_each_file_receives():
    rounds = TraceRounds()
    trace = ("trace from a",)
    rounds.record("/p/a.py", {"/p/b.py": trace}, ())  # type: ignore[dict-item]
    rounds.record("/p/b.py", {}, ())
    assert rounds.to_redo() == ["/p/b.py"]  # analysed with nothing, now given a trace
    assert rounds.incoming("/p/b.py") == trace
    rounds.record("/p/b.py", {}, rounds.incoming("/p/b.py"))
    assert rounds.to_redo() == []


def test_a_worker_records_into_its_own_view():
    rounds = TraceRounds()
    view = rounds.view()
    view.record("/p/a.py", {"/p/b.py": ("trace from a",)}, ())  # type: ignore[dict-item]
    assert view.incoming("/p/b.py") == ("trace from a",)
    assert rounds.incoming("/p/b.py") == ()


def test_a_view_says_which_files_it_analysed_with_other_traces_than_it_now_gives():
    view = TraceRounds().view()
    view.record("/p/b.py", {}, ())  # analysed first: a cycle, b imports a
    assert not view.stale("/p/b.py")
    view.record("/p/a.py", {"/p/b.py": ("trace from a",)}, ())  # type: ignore[dict-item]
    assert view.stale("/p/b.py")
    assert not view.stale("/p/a.py")
    assert not view.stale("/p/c.py")  # not analysed here
    items = [("/p/b.py", True), ("/p/a.py", True)]
    assert _stale_items(view, items) == [0]  # the worker analyses b again
    view.record("/p/b.py", {}, view.incoming("/p/b.py"))
    assert _stale_items(view, items) == []


class _Captured:
    """Stands for `Workers`: keeps what `_analyse` asks of it."""

    def map(self, function, items, weights, lost, serially, groups, again):
        self.sent = pickle.loads(pickle.dumps((function, again)))  # as a later batch is sent
        return []


def test_a_worker_asks_what_to_analyse_again_of_the_view_its_analyses_record_into():
    workers = _Captured()
    _analyse(["/p/a.py"], Settings(), None, False, workers, TraceRounds(), {"/p/a.py"}, {})
    function, again = workers.sent
    assert function.args[0].keywords["rounds"] is again.args[0]
    _analyse(["/p/a.py"], Settings(), "write", False, workers, TraceRounds(), {"/p/a.py"}, {})
    assert workers.sent[1] is None  # fixes are applied once, the traces settled


def test_modules_are_analysed_after_their_importers(tmp_path):
    write(tmp_path, {"train.py": TRAIN, "helpers.py": HELPERS, "deeper.py": DEEPER})
    names = ["deeper.py", "helpers.py", "train.py"]
    order = Workspace(str(tmp_path)).importers_first([str(tmp_path / n) for n in names])
    assert [Path(file).name for file in order] == ["train.py", "helpers.py", "deeper.py"]


def test_modules_linked_by_imports_are_one_group(tmp_path):
    # `check` gives each worker whole groups: an unrelated module is a group of its own.
    lone = "import jax\n\n\ndef noise(key):\n    return jax.random.normal(key)\n"
    write(tmp_path, {"train.py": TRAIN, "helpers.py": HELPERS, "deeper.py": DEEPER})
    (tmp_path / "lone.py").write_text(lone)
    names = ["deeper.py", "lone.py", "train.py", "helpers.py"]
    groups = Workspace(str(tmp_path)).linked_groups([str(tmp_path / n) for n in names])
    assert {Path(file).name: group for file, group in groups.items()} == {
        "deeper.py": 0,
        "lone.py": 1,
        "train.py": 0,
        "helpers.py": 0,
    }


def test_imports_read_ahead_elsewhere_give_the_same_importers(tmp_path):
    # `check` reads the project's import statements on its workers: a file changed since it
    # was read there is read again here.
    write(tmp_path, {"train.py": TRAIN, "helpers.py": HELPERS, "deeper.py": DEEPER})
    files = [str(tmp_path / name) for name in ("train.py", "helpers.py", "deeper.py")]
    workspace = Workspace(str(tmp_path))
    read: list[str] = []

    def map_files(function, paths):
        read.extend(paths)
        found = [function(path) for path in paths]
        # helpers.py no longer imports deeper.py: nothing waits for deeper.py's importers
        (tmp_path / "helpers.py").write_text("def clip_update(params, grads, lr):\n    return 0\n")
        return found

    workspace.read_ahead(files, map_files)
    assert sorted(read) == sorted(files)
    order = workspace.importers_first(files)
    assert [Path(file).name for file in order] == ["deeper.py", "train.py", "helpers.py"]


def _stamped(path: str) -> tuple[str, int]:
    return path, os.getpid()


def test_imports_are_read_ahead_on_the_workers_several_files_an_item():
    paths = [f"/p/m{number}.py" for number in range(200)]
    with Workers(2, _PARALLEL_THRESHOLD) as workers:
        found = _map_reads(workers, _stamped, paths)
        assert workers.started
    assert [path for path, _ in found] == paths
    assert os.getpid() not in {pid for _, pid in found}


def test_few_files_are_read_ahead_here():
    paths = [f"/p/m{number}.py" for number in range(_PARALLEL_THRESHOLD - 1)]
    with Workers(2, _PARALLEL_THRESHOLD) as workers:
        assert _map_reads(workers, _stamped, paths) == [(path, os.getpid()) for path in paths]
        assert not workers.started


# `train.py` traces `zero_first` of `utils.py` and has a fix of its own: analysed for its diff,
# it still gives `utils.py` that trace, so both modules' fixes are shown.
UTILS = """
    def zero_first(x):
        x[0] = 0.0
        return x
"""

TRAIN_WITH_FIX = """
    import jax
    import jax.numpy as jnp
    from pkg.utils import zero_first


    @jax.jit
    def step(params):
        grads = zero_first(params)
        return grads


    @jax.jit
    def accumulate(x):
        total = jnp.zeros(3)
        total[0] += x.sum()
        return total
"""


def _written_as_diff(before: dict[str, str], root: Path) -> str:
    """The unified diff, as `--diff` prints it, of each file of `before` to its text now."""
    import difflib

    return "".join(
        "".join(
            difflib.unified_diff(
                text.splitlines(keepends=True),
                (root / name).read_text().splitlines(keepends=True),
                fromfile=f"a/{name}",
                tofile=f"b/{name}",
            )
        )
        for name, text in sorted(before.items())
    )


def test_diff_shows_what_fix_writes_in_the_modules_a_fixed_module_traces(tmp_path):
    files = {"pkg/__init__.py": "", "pkg/utils.py": UTILS, "pkg/train.py": TRAIN_WITH_FIX}
    write(tmp_path, files)
    before = {name: (tmp_path / name).read_text() for name in files}
    # Unsafe fixes too: the diff must show whatever set `--fix` applies, safe or not.
    diff = jax_lsp("check", "--unsafe-fixes", "--diff", "--jobs", "1", ".", cwd=tmp_path)
    assert {name: (tmp_path / name).read_text() for name in files} == before
    fix = jax_lsp("check", "--unsafe-fixes", "--fix", "--jobs", "1", ".", cwd=tmp_path)
    assert "Fixed 2 findings" in fix.stdout
    assert "x = x.at[0].set(0.0)" in (tmp_path / "pkg/utils.py").read_text()
    assert diff.stdout == _written_as_diff(before, tmp_path)
    assert "Would fix 2 findings." in diff.stderr


# `step` passes `zero_first` what `clip` returned: an array by `clip`'s facts, which every way of
# checking reads into train.py's model of the traces it gives.
CLIPPING_UTILS = """
    import jax.numpy as jnp


    def clip(grads):
        return jnp.where(grads > 1.0, 1.0, grads)


    def zero_first(x):
        x[0] = 0.0
        return x
"""

CLIPPING_TRAIN = """
    import jax
    from pkg.utils import clip, zero_first


    @jax.jit
    def step(params):
        grads = jax.grad(lambda p: (p ** 2).sum())(params)
        grads = clip(grads)
        grads = zero_first(grads)
        return grads
"""


def test_a_file_checked_alone_gets_what_the_project_check_finds_in_it(tmp_path):
    files = {"pkg/__init__.py": "", "pkg/utils.py": CLIPPING_UTILS, "pkg/train.py": CLIPPING_TRAIN}
    write(tmp_path, files)
    whole = jax_lsp("check", "--output-format", "json", ".", cwd=tmp_path)
    alone = jax_lsp("check", "--output-format", "json", "pkg/utils.py", cwd=tmp_path)
    assert findings(whole.stdout) == [("utils.py", 9, "JAX201")]
    assert findings(alone.stdout) == findings(whole.stdout)


# `train.py` passes a `Cell` to `runner.run`, which scans `cell.step`: runner.py traces a method
# of cells.py without importing it.
CELLS = """
    class Cell:
        def step(self, carry, x):
            carry[0] = x
            return carry, x
"""

RUNNER = """
    import jax


    def run(cell, carry, xs):
        return jax.lax.scan(cell.step, carry, xs)
"""

CELL_TRAIN = """
    import jax.numpy as jnp

    from cells import Cell
    from runner import run


    def main():
        return run(Cell(), jnp.zeros(3), jnp.ones(4))
"""


def test_a_file_checked_alone_is_traced_by_the_modules_given_its_objects(tmp_path):
    write(tmp_path, {"cells.py": CELLS, "runner.py": RUNNER, "train.py": CELL_TRAIN})
    whole = jax_lsp("check", "--output-format", "json", ".", cwd=tmp_path)
    alone = jax_lsp("check", "--output-format", "json", "cells.py", cwd=tmp_path)
    assert findings(whole.stdout) == [("cells.py", 3, "JAX201")]
    assert findings(alone.stdout) == findings(whole.stdout)
