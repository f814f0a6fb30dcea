"""The `jax.numpy` counterpart of a NumPy function called on a traced value (JAX703):
`np.clip(x, 0, 1)` -> `jnp.clip(x, 0, 1)`, `np.linalg.norm(v)` -> `jnp.linalg.norm(v)`.

Only for a call spelled through the NumPy module (`np.clip`, `numpy.linalg.norm`), never for a
name imported from it (`from numpy import clip`), and only for the functions `jax.numpy` has
under the same name (`NOT_IN_JAX_NUMPY` lists those of the rule's tables it lacks, measured on
jax 0.10.2; `jax.numpy` has no masked arrays: nothing of `numpy.ma`). Unsafe: `jax.numpy`
computes in 32 bits unless x64 is on, and a few functions (`unique`, `nonzero`) then need
`size=` under `jit`.
"""

from __future__ import annotations

import ast

from jax_lsp.codeactions.import_edits import module_prefix_and_edits
from jax_lsp.codeactions.site import FixSite
from jax_lsp.findings import Applicability, Edit, Fix

# NumPy functions of JAX703's tables with no `jax.numpy` function of the same name.
NOT_IN_JAX_NUMPY = frozenset(
    f"numpy.{name}"
    for name in [
        "array2string",
        "asanyarray",
        "asarray_chkfinite",
        "ascontiguousarray",
        "asfortranarray",
        "asmatrix",
        "byte",
        "bytes_",
        "clongdouble",
        "complex256",
        "copyto",
        "fix",
        "float128",
        "half",
        "intc",
        "intp",
        "long",
        "longdouble",
        "longlong",
        "may_share_memory",
        "min_scalar_type",
        "mintypecode",
        "putmask",
        "real_if_close",
        "record",
        "require",
        "row_stack",
        "shares_memory",
        "short",
        "ubyte",
        "uintc",
        "uintp",
        "ulong",
        "ulonglong",
        "ushort",
        "void",
    ]
)


# NumPy submodules with no `jax.numpy` counterpart.
_WITHOUT_JAX_MODULE = ("numpy.ma.",)


def jnp_name(qualname: str) -> str | None:
    """The `jax.numpy` name of the NumPy function `qualname` ("numpy.linalg.norm" ->
    "linalg.norm"), None when `jax.numpy` has none."""
    if qualname in NOT_IN_JAX_NUMPY or not qualname.startswith("numpy."):
        return None
    if qualname.startswith(_WITHOUT_JAX_MODULE):
        return None
    return qualname.removeprefix("numpy.")


def numpy_to_jnp_fix(call: ast.Call, qualname: str, ctx: FixSite) -> Fix | None:
    """`np.name(...)` -> `jnp.name(...)` for the NumPy function `qualname` ("numpy.clip")."""
    name = jnp_name(qualname)
    if name is None or not _spelled_through_module(call.func, qualname.count(".")):
        return None
    return jnp_function_fix(call, name, ctx)


def jnp_function_fix(call: ast.Call, name: str, ctx: FixSite) -> Fix | None:
    """The call's function replaced by `jnp.name`, its arguments kept (unsafe: the callers
    say why). Also `max(a, b)` -> `jnp.maximum(a, b)` on traced values (JAX701)."""
    spelled = module_prefix_and_edits(ctx, "jax.numpy", "jnp")
    if spelled is None:
        return None
    prefix, import_edits = spelled
    return Fix(
        f"Use `{prefix}.{name}`",
        (Edit(ctx.span(call.func), f"{prefix}.{name}"), *import_edits),
        Applicability.UNSAFE,
    )


def _spelled_through_module(func: ast.expr, depth: int) -> bool:
    """`func` is `module.a.b` with `depth` attributes on a bare name (`np.linalg.norm`: 2)."""
    for _ in range(depth):
        if not isinstance(func, ast.Attribute):
            return False
        func = func.value
    return isinstance(func, ast.Name)
