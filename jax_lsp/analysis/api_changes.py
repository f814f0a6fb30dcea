"""JAX names that releases removed or deprecate: one row a name, with the release that
deprecated it, the release that removed it, and what to write instead.

The table is data, read by JAX1101/JAX1102 and their fixes, and checked row by row against
the installed JAX by the test suite (`tests/rules/test_api_changes.py`): a removed name is
really gone, a deprecated one really warns, a replacement exists. Versions come from JAX's
changelog. Where the changelog gives no release (a removal noticed only as absent from the
installed 0.10.2), the row carries a later release that certainly lacks the name, so a project
pinned between the two is told nothing rather than something false.

`safe` marks a replacement that computes the same wherever the old name worked (the fix is
applied by `check --fix`); other replacements are offered as unsafe fixes, or only named.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

# The newest release the table knows: the version assumed when neither a setting nor an
# installed JAX says which one the project uses.
NEWEST_KNOWN = "0.10.2"


@dataclass(frozen=True)
class ApiChange:
    name: str  # the qualified name: "jax.tree_map", "jax.experimental.host_callback"
    deprecated: str | None  # the release that deprecated it (None: removed unannounced)
    removed: str | None  # the release that removed it (None: still there, warning)
    replacement: str | None = None  # a qualified name to write instead, when there is one
    safe: bool = False  # the replacement computes the same wherever the old name worked
    advice: str = ""  # what to do, when no plain replacement says it
    # For `jax.ops.index_update`-style calls: the `.at[...]` method that replaces the call.
    at_method: str | None = None
    # A name no release the table covers defines (users borrow it from `jax.tree_util` or
    # NumPy): reported with every version, as AttributeError.
    never_public: bool = False

    @property
    def use_instead(self) -> str:
        if self.at_method is not None:
            return f"`x.at[i].{self.at_method}(v)`"
        if self.replacement is not None:
            text = f"`{self.replacement}`"
            return f"{text} ({self.advice})" if self.advice else text
        return self.advice


_NEVER = "0"  # the "release" removing a name no release had: before every version


def _rows() -> tuple[ApiChange, ...]:
    rows = []

    def add(name, deprecated, removed, replacement=None, safe=False, advice="", at=None):
        rows.append(ApiChange(name, deprecated, removed, replacement, safe, advice, at))

    # The top-level tree aliases.
    for old, new in (
        ("tree_map", "map"),
        ("tree_flatten", "flatten"),
        ("tree_unflatten", "unflatten"),
        ("tree_leaves", "leaves"),
        ("tree_structure", "structure"),
        ("tree_transpose", "transpose"),
    ):
        add(f"jax.{old}", "0.4.26", "0.6.0", f"jax.tree.{new}", True)
    add("jax.treedef_is_leaf", "0.4.26", "0.6.0", "jax.tree_util.treedef_is_leaf", True)
    # Never top-level aliases (0.3.25 to 0.10.2 checked): `jax.tree_util` has them.
    for old in ("tree_reduce",):
        rows.append(
            ApiChange(f"jax.{old}", None, _NEVER, f"jax.tree_util.{old}", True, never_public=True)
        )
    add("jax.tree_multimap", "0.3.5", "0.3.16", "jax.tree.map", True)
    add("jax.tree_util.tree_multimap", "0.3.5", "0.3.16", "jax.tree_util.tree_map", True)
    add(
        "jax.tree_util.register_keypaths",
        "0.4.6",
        "0.4.24",
        "jax.tree_util.register_pytree_with_keys",
        advice="it takes the flatten function with keys",
    )
    # `jax.ops` index updates: `x.at[i]` since 0.2.22.
    for old, method in (
        ("index_update", "set"),
        ("index_add", "add"),
        ("index_mul", "multiply"),
        ("index_min", "min"),
        ("index_max", "max"),
    ):
        add(f"jax.ops.{old}", "0.2.22", "0.3.2", at=method)
    add("jax.ops.index", "0.2.22", "0.3.2", "jax.numpy.index_exp", True)
    # Example libraries moved out of `jax.experimental`.
    for module in ("optimizers", "stax"):
        add(
            f"jax.experimental.{module}",
            "0.2.25",
            "0.3.16",
            f"jax.example_libraries.{module}",
            True,
        )
    add("jax.experimental.callback", None, "0.4.2", advice="no replacement")
    # Array types before `jax.Array`.
    add("jax.numpy.DeviceArray", "0.4.7", "0.4.14", "jax.Array", True)
    add("jax.interpreters.xla.DeviceArray", "0.4.7", "0.4.11", "jax.Array", True)
    add("jax.interpreters.pxla.ShardedDeviceArray", "0.4.7", "0.4.14", "jax.Array", True)
    add("jax.ShapedArray", "0.4.4", "0.4.14", "jax.core.ShapedArray", True)
    add("jax.random.KeyArray", "0.4.16", "0.4.24", "jax.Array", True)
    add("jax.random.PRNGKeyArray", "0.4.16", "0.4.24", "jax.Array", True)
    # Sharding names out of `jax.experimental`.
    add("jax.experimental.PartitionSpec", "0.4.1", "0.4.11", "jax.sharding.PartitionSpec", True)
    add(
        "jax.experimental.pjit.PartitionSpec", "0.4.4", "0.4.11", "jax.sharding.PartitionSpec", True
    )
    add(
        "jax.experimental.pjit.NamedSharding", "0.4.4", "0.4.11", "jax.sharding.NamedSharding", True
    )
    add("jax.experimental.maps.Mesh", "0.4.1", "0.4.11", "jax.sharding.Mesh", True)
    add(
        "jax.experimental.maps",
        "0.4.26",
        "0.4.31",
        advice="`jax.shard_map`, or `jax.vmap` with `spmd_axis_name=`, for `xmap`",
    )
    add(
        "jax.experimental.pjit.with_sharding_constraint",
        "0.4.16",
        "0.6.0",  # gone by then; the changelog names no release
        "jax.lax.with_sharding_constraint",
        True,
    )
    # NumPy aliases that NumPy itself dropped.
    add("jax.numpy.msort", "0.4.1", "0.4.9", advice="`jnp.sort(a, axis=0)`")
    rows.append(
        ApiChange(
            "jax.numpy.asfarray",
            None,
            _NEVER,
            advice="`jnp.asarray(a, dtype=float)` (NumPy 2 removed `np.asfarray` too)",
            never_public=True,
        )
    )
    for old, new in (
        ("alltrue", "all"),
        ("sometrue", "any"),
        ("product", "prod"),
        ("cumproduct", "cumprod"),
    ):
        add(f"jax.numpy.{old}", "0.4.12", "0.4.16", f"jax.numpy.{new}", True)
    add("jax.abstract_arrays", "0.4.12", "0.4.17", advice="its contents are in `jax.core`")
    add("jax.numpy.NINF", "0.4.16", "0.4.24", advice="`-jnp.inf`")
    add("jax.numpy.PZERO", "0.4.16", "0.4.24", advice="`0.0`")
    add("jax.numpy.NZERO", "0.4.16", "0.4.24", advice="`-0.0`")
    add("jax.numpy.row_stack", "0.4.16", "0.4.24", "jax.numpy.vstack", True)
    add(
        "jax.numpy.issubsctype",
        "0.4.16",
        "0.4.24",
        advice="`jnp.issubdtype(x.dtype, t)`",
    )
    add("jax.numpy.trapz", "0.4.16", "0.4.24", "jax.scipy.integrate.trapezoid", True)
    add(
        "jax.numpy.in1d",
        "0.4.16",
        "0.4.24",
        "jax.numpy.isin",
        advice="`in1d` flattens its result; `isin` keeps the shape of its first argument",
    )
    add("jax.scipy.linalg.tril", "0.4.16", "0.4.24", "jax.numpy.tril", True)
    add("jax.scipy.linalg.triu", "0.4.16", "0.4.24", "jax.numpy.triu", True)
    add("jax.linear_util", "0.4.16", "0.4.24", "jax.extend.linear_util", True)
    for old in ("threefry2x32_key", "rbg_key", "unsafe_rbg_key"):
        impl = old.removesuffix("_key")
        add(
            f"jax.random.{old}",
            "0.4.17",
            "0.4.24",
            advice=f"`jax.random.key(seed, impl='{impl}')`",
        )
    add("jax.random.default_prng_impl", None, "0.4.24", advice="no replacement")
    add("jax.lax.tie_in", "0.4.24", "0.4.29", advice="`tie_in(x, y)` is `y`")
    add("jax.nn.normalize", None, "0.4.29", "jax.nn.standardize")
    add(
        "jax.random.shuffle",
        None,
        "0.4.31",
        advice="`jax.random.permutation(key, x, independent=True)`",
    )
    add(
        "jax.xla_computation",
        "0.4.30",
        "0.4.34",
        advice="`jax.jit(f).lower(*args).compiler_ir('hlo')`",
    )
    add(
        "jax.experimental.host_callback",
        "0.4.26",
        "0.4.35",
        advice="`jax.debug.callback` (for `id_tap`/`id_print`), `jax.pure_callback` or "
        "`jax.experimental.io_callback` (for `call`)",
    )
    add(
        "jax.clear_backends",
        "0.4.26",
        "0.4.36",
        advice="`jax.clear_caches()` to drop compiled code, or "
        "`jax.extend.backend.clear_backends()`",
    )
    add("jax.experimental.export", "0.4.30", "0.4.36", "jax.export", advice="its API changed")
    add("jax.numpy.round_", "0.4.32", "0.4.38", "jax.numpy.round", True)
    add("jax.experimental.array_api", "0.4.32", "0.5.0", advice="`jax.numpy` is the array API")
    # Internals of `jax.core` users reached for.
    for old in ("Primitive", "ClosedJaxpr", "Jaxpr", "JaxprEqn", "Literal", "Var"):
        add(f"jax.core.{old}", "0.4.38", "0.6.0", f"jax.extend.core.{old}", True)
    add("jax.core.jaxpr_as_fun", "0.4.38", "0.6.0", "jax.extend.core.jaxpr_as_fun", True)
    add("jax.core.raise_to_shaped", "0.4.38", "0.6.0", advice="values are already shaped")
    add("jax.core.concrete_aval", "0.4.38", "0.6.0", advice="no replacement")
    add("jax.lax.infeed", "0.6.0", "0.7.0", advice="no replacement")
    add("jax.lax.outfeed", "0.6.0", "0.7.0", advice="no replacement")
    add("jax.core.get_aval", "0.8.2", "0.10.0", "jax.typeof")
    add("jax.ad_checkpoint.checkpoint", "0.8.2", "0.10.0", "jax.checkpoint", True)
    add("jax.ad_checkpoint.remat", "0.8.2", "0.10.0", "jax.remat", True)
    add("jax.lax.pvary", "0.8.2", "0.10.0", advice="`jax.lax.pcast(x, axis_name, to='varying')`")
    add(
        "jax.scipy.special.sph_harm",
        "0.7.0",
        "0.10.0",
        "jax.scipy.special.sph_harm_y",
        advice="its arguments come in another order",
    )
    add("jax.numpy.fix", "0.9.0", "0.10.0", "jax.numpy.trunc", True)
    for old in ("device_put_replicated", "device_put_sharded"):
        add(f"jax.{old}", None, "0.10.0", advice="`jax.device_put` with a sharding")
    # Removed by 0.10 at the latest (no release named): the context managers live at the top.
    add("jax.experimental.enable_x64", None, "0.10.0", advice="`jax.enable_x64(True)`")
    add("jax.experimental.disable_x64", None, "0.10.0", advice="`jax.enable_x64(False)`")
    # Deprecated in the installed release, still working (they warn).
    add("jax.experimental.pjit.pjit", "0.10.0", None, "jax.jit", advice="its arguments differ")
    add(
        "jax.experimental.shard_map.shard_map",
        "0.8.0",
        None,
        "jax.shard_map",
        advice="`mesh` is a keyword and `check_rep` became `check_vma`",
    )
    add("jax.scipy.special.lpmn", "0.5.0", None, advice="no replacement is planned")
    add("jax.scipy.special.lpmn_values", "0.5.0", None, advice="no replacement is planned")
    for old in ("CallPrimitive", "DropVar", "Effect", "Effects", "DebugInfo"):
        add(f"jax.core.{old}", "0.8.2", None, f"jax.extend.core.{old}", True)
    add("jax.core.pytype_aval_mappings", "0.8.2", None, advice="no public replacement")
    add("jax.core.concrete_or_error", "0.8.2", None, advice="no public replacement")
    add(
        "jax.interpreters.pxla.thread_resources",
        "0.8.2",
        None,
        advice="`with jax.set_mesh(mesh)` and `jax.sharding.get_abstract_mesh()`",
    )
    return tuple(rows)


API_CHANGES: tuple[ApiChange, ...] = _rows()
BY_NAME: dict[str, ApiChange] = {row.name: row for row in API_CHANGES}
# The last part of every name: an attribute ending otherwise is none of the table's.
LAST_PARTS = frozenset(row.name.rpartition(".")[2] for row in API_CHANGES)


@functools.lru_cache(maxsize=64)
def parse_version(text: str) -> tuple[int, ...]:
    """`"0.4.26"` -> (0, 4, 26); trailing tags (`0.4.26rc1`, `0.5.0.dev2`) are dropped, and
    missing parts are zeros (`"0.6"` is 0.6.0, not a release before it)."""
    parts: list[int] = []
    for piece in text.strip().split("."):
        digits = ""
        for char in piece:
            if not char.isdigit():
                break
            digits += char
        if not digits:
            break
        parts.append(int(digits))
        if len(digits) != len(piece):
            break
    return tuple(parts) + (0,) * (3 - len(parts)) if parts else ()


def status(row: ApiChange, version: tuple[int, ...]) -> str | None:
    """ "removed", "deprecated" or None: what `row`'s name is in JAX `version`."""
    if row.removed is not None and version >= parse_version(row.removed):
        return "removed"
    if row.deprecated is not None and version >= parse_version(row.deprecated):
        return "deprecated"
    return None


@functools.cache
def installed_jax_version() -> str | None:
    """The version of the JAX installed beside jax-lsp (the project's, when jax-lsp runs in
    its environment), from the distribution's metadata (jax is never imported); None when
    there is none."""
    import importlib.metadata  # ~20 ms: only once a name of the table is met

    try:
        return importlib.metadata.version("jax")
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return None


def jax_release(setting: str | None) -> tuple[int, ...]:
    """The release `setting` (`target-jax-version`) names, else the installed JAX's, else the
    newest the table knows."""
    return parse_version(setting or installed_jax_version() or NEWEST_KNOWN)


def default_version() -> tuple[int, ...]:
    """The release assumed without a setting."""
    return jax_release(None)


def row_for(dotted: str) -> ApiChange | None:
    """The row of `dotted` or of the nearest module holding it (`jax.experimental.
    host_callback.id_tap` -> the `jax.experimental.host_callback` row)."""
    while dotted:
        row = BY_NAME.get(dotted)
        if row is not None:
            return row
        dotted = dotted.rpartition(".")[0]
    return None
