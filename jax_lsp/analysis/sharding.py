"""Whether a module may build a mesh with explicit axes, on which JAX shards arrays in types.

An array placed on such a mesh (`jax.make_mesh`, whose axes are explicit by default in recent
JAX, or any mesh given `AxisType.Explicit`) takes an `.at[...]` update only with the result's
sharding spelled out (`out_sharding=`): without it, eager code raises a ValueError and traced
code a ShardingTypeError. A mesh made by `Mesh(devices, names)` has automatic axes, on which
the plain update keeps the array's sharding. Which mesh an array sits on is not known without
running the code, so the module's spelling of these names is what the fixes can go by.
"""

from __future__ import annotations

import ast

from jax_lsp.analysis.document import UnitSource
from jax_lsp.analysis.unit_memo import per_unit

# The names that build, or ask for, explicit mesh axes.
EXPLICIT_MESH_NAMES = frozenset({"make_mesh", "AxisType"})


@per_unit
def names_explicit_meshes(source: UnitSource) -> bool:
    """Whether the unit's code names `make_mesh` or `AxisType` (as a name, an attribute or an
    import), memoised on the parse; comments and strings do not count."""
    return _names_them(source)


def _names_them(source: UnitSource) -> bool:
    if source.tree is None or EXPLICIT_MESH_NAMES.isdisjoint(source.words()):
        return False
    for node in ast.walk(source.tree):
        if isinstance(node, ast.Name) and node.id in EXPLICIT_MESH_NAMES:
            return True
        if isinstance(node, ast.Attribute) and node.attr in EXPLICIT_MESH_NAMES:
            return True
        if isinstance(node, ast.alias) and node.name.rpartition(".")[2] in EXPLICIT_MESH_NAMES:
            return True
    return False
