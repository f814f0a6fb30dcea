"""A haiku transformed object is the same wherever it travels: `jax.jit(net.apply)` traces
the function given to `hk.transform` when `net` is bound at module level, returned by a
factory, or imported from the module that makes it (`analysis/haiku.py`)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from jax_lsp.config import Settings
from jax_lsp.engine import check_source
from jax_lsp.workspace import Workspace

MODULES = """
    import haiku as hk
    import jax.numpy as jnp


    class Pool(hk.Module):
        def __call__(self, lengths):
            return jnp.arange(lengths.max())
"""


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


def codes(root: Path, name: str) -> list[tuple[int, str]]:
    path = root / name
    analysis = check_source(path.read_text(), str(path), Settings(), Workspace(str(root)))
    return [(f.span.start.line + 1, f.code) for f in analysis.findings]


def check_text(text: str) -> list[tuple[int, str]]:
    analysis = check_source(textwrap.dedent(text).lstrip("\n"), "net.py", Settings())
    return [(f.span.start.line + 1, f.code) for f in analysis.findings]


FACTORY = """
    import haiku as hk
    import jax
    import jax.numpy as jnp


    class Pool(hk.Module):
        def __call__(self, lengths):
            return jnp.arange(lengths.max())


    def make_net():
        def forward(lengths):
            return Pool()(lengths)

        return hk.without_apply_rng(hk.transform(forward))


    net = make_net()
    apply = jax.jit(net.apply)
"""


def test_the_object_a_factory_of_the_module_returns():
    assert check_text(FACTORY) == [(8, "JAX803")]


def test_a_factory_returning_other_objects_too_is_not_followed():
    branching = FACTORY.replace(
        "        return hk.without_apply_rng(hk.transform(forward))",
        "        if lengths_known:\n"
        "            return hk.without_apply_rng(hk.transform(forward))\n"
        "        return other_net",
    ).replace("def make_net():", "def make_net(lengths_known=True, other_net=None):")
    assert check_text(branching) == []


def test_without_the_jit_nothing_is_traced():
    assert check_text(FACTORY.replace("jax.jit(net.apply)", "net.apply")) == []


def test_an_object_imported_from_the_module_that_makes_it(tmp_path):
    nets = """
        import haiku as hk

        from pkg.modules import Pool


        def forward(lengths):
            return Pool()(lengths)


        net = hk.without_apply_rng(hk.transform(forward))
    """
    train = """
        import jax

        from pkg.nets import net

        apply = jax.jit(net.apply)
    """
    files = {"pkg/__init__.py": "", "pkg/modules.py": MODULES, "pkg/nets.py": nets}
    write(tmp_path, {**files, "train.py": train})
    assert codes(tmp_path, "pkg/modules.py") == [(7, "JAX803")]
    write(tmp_path, {"train.py": train.replace("jax.jit(net.apply)", "net.apply")})
    assert codes(tmp_path, "pkg/modules.py") == []


def test_the_object_an_imported_factory_returns(tmp_path):
    nets = """
        import haiku as hk

        from .modules import Pool


        def make_net(size):
            def forward(lengths):
                return Pool()(lengths) * size

            return hk.transform(forward)
    """
    train = """
        import jax

        from pkg import make_net

        net = make_net(4)
        apply = jax.jit(net.apply)
    """
    files = {
        "pkg/__init__.py": "from pkg.nets import make_net\n",
        "pkg/modules.py": MODULES,
        "pkg/nets.py": nets,
    }
    write(tmp_path, {**files, "train.py": train})
    assert codes(tmp_path, "pkg/modules.py") == [(7, "JAX803")]
    assert codes(tmp_path, "train.py") == []
