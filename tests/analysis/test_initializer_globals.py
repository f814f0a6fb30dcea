"""`ModuleModel.initializer_globals` across the spellings of an initializer factory: its
shortcut (no unit names `initializers`: no initializer) must not lose one."""

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.analysis.model import ModuleModel


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("import jax\n\ninit = jax.nn.initializers.lecun_normal()\n", {"init"}),
        ("import flax.linen as nn\n\ninit = nn.initializers.normal(0.1)\n", {"init"}),
        # The import binding the factory's name sits in another unit than the assignment.
        (
            "from jax.nn.initializers import glorot_uniform as gu\n\n\ninit = gu()\n",
            {"init"},
        ),
        ("from flax.nnx import initializers as I\n\ninit = I.uniform()\n", {"init"}),
        ("import jax\n\ninit = jax.nn.relu\nscale = jax.numpy.ones(3)\n", set()),
        ("import jax\n\n# initializers\ninit = jax.random.normal\n", set()),
    ],
)
def test_initializer_globals(text: str, expected: set[str]) -> None:
    assert ModuleModel(Document(text)).initializer_globals == expected
