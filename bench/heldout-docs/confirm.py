#!/usr/bin/env python3
"""Run each notebook's code cells in order under the installed JAX (CPU) and check every label.

For each label the notebook runs from the top to the cell that shows the behaviour
(`shown_in`, else the labelled cell); the label's `check` (a Python expression over `ns`
the notebook's namespace, `out` that cell's stdout and `exc` its exception) must be true.
IPython lines (%magic, !shell) are skipped; matplotlib is stubbed when not installed.
Usage: python confirm.py [--set DIR]  (prints one line a label: confirmed / NOT CONFIRMED;
--set as in score.py)
"""

import collections
import contextlib
import io
import json
import os
import sys
import types

os.environ.setdefault("JAX_PLATFORMS", "cpu")
HERE = os.path.dirname(os.path.abspath(__file__))

sys.path.insert(0, HERE)  # the scorer beside this file reads the labels

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import score  # noqa: E402


def stub_matplotlib():
    try:
        import matplotlib  # noqa: F401

        return
    except ImportError:
        pass

    class Anything(types.ModuleType):
        def __getattr__(self, name):
            return lambda *a, **k: None

    mpl = Anything("matplotlib")
    plt = Anything("matplotlib.pyplot")
    mpl.pyplot = plt
    sys.modules["matplotlib"] = mpl
    sys.modules["matplotlib.pyplot"] = plt


def python_only(source):
    return "\n".join(
        "" if line.lstrip().startswith(("%", "!")) else line for line in source.split("\n")
    )


def key_reuse_error(cells, last):
    """The exception (its class name) cell `last` raises when the notebook runs from the top
    under `jax_debug_key_reuse`."""
    ns, exc = {"__name__": "__main__"}, None
    jax.config.update("jax_debug_key_reuse", True)
    try:
        for number, cell in enumerate(cells[:last], start=1):
            if cell["cell_type"] != "code":
                continue
            exc = None
            with contextlib.redirect_stdout(io.StringIO()):
                try:
                    exec(compile(python_only("".join(cell["source"])), f"[{number}]", "exec"), ns)
                except Exception as error:
                    exc = error
    finally:
        jax.config.update("jax_debug_key_reuse", False)
    return type(exc).__name__ if exc else None


def run_notebook(name, labels):
    with open(os.path.join(score.NOTEBOOKS, name + ".ipynb"), encoding="utf-8") as fh:
        cells = json.load(fh)["cells"]
    by_cell = collections.defaultdict(list)
    for rec in labels:
        if rec["check"]:
            by_cell[int(rec["shown_in"] or rec["cell"])].append(rec)
    ns = {"__name__": "__main__"}
    results = []
    for number, cell in enumerate(cells, start=1):
        if cell["cell_type"] != "code":
            continue
        source = python_only("".join(cell["source"]))
        out, exc = io.StringIO(), None
        with contextlib.redirect_stdout(out):
            try:
                exec(compile(source, f"{name}[{number}]", "exec"), ns)
            except Exception as error:  # the documents show some cells failing
                exc = error
        for rec in by_cell.get(number, []):

            def retraces(fn_name):
                calls = [0]

                def unjitted_loop_body(prev_i):
                    calls[0] += 1
                    return prev_i + 1

                ns["unjitted_loop_body"] = unjitted_loop_body
                ns[fn_name](10, 5)
                return calls[0]

            env = {
                "ns": ns,
                "out": out.getvalue(),
                "exc": exc,
                "jax": jax,
                "jnp": jnp,
                "retraces": retraces,
                "key_reuse_error": lambda n: key_reuse_error(cells, n),
            }
            try:
                ok = bool(eval(rec["check"], env))
                detail = ""
            except Exception as error:
                ok, detail = False, f"{type(error).__name__}: {error}"
            shown = (
                f"{type(exc).__name__}"
                if exc
                else (out.getvalue().strip().replace("\n", " | ")[:70])
            )
            results.append((rec, ok, shown, detail))
    return results


def main():
    score.pop_set_option(sys.argv)
    stub_matplotlib()
    labels = score.load_labels()
    by_nb = collections.defaultdict(list)
    for rec in labels:
        by_nb[rec["notebook"]].append(rec)
    failed = 0
    for name in sorted(by_nb):
        for rec, ok, shown, detail in run_notebook(name, by_nb[name]):
            failed += not ok
            verdict = "confirmed" if ok else "NOT CONFIRMED"
            print(
                f"{verdict:14} {name}[{rec['cell']}] line {rec['line']} {rec['code']:8} "
                f"{rec['check']}  -> {shown} {detail}"
            )
    print(f"jax {jax.__version__}; {failed} not confirmed")


if __name__ == "__main__":
    main()
