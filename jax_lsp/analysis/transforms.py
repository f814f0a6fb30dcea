"""The JAX transformations that trace a function, and how each decides which parameters trace.

`abstract` transformations (jit, vmap, lax control flow, ...) give parameters without a
concrete value: Python `if`, `int()` and value-dependent shapes fail on them. Differentiation
alone (grad) gives tracers that still carry a concrete value, so only conversions fail there.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class ParamPolicy(enum.Enum):
    ALL_BUT_STATIC = "all but static_argnums/static_argnames"
    IN_AXES = "all but in_axes=None positions"
    ARGNUMS = "the argnums positions (default 0)"
    ALL = "every parameter"
    ARRAY_ANNOTATED = "parameters annotated as arrays (filtered transformations)"


@dataclass(frozen=True)
class TransformSpec:
    label: str  # what users call it, e.g. "jit" or "lax.fori_loop"
    abstract: bool
    policy: ParamPolicy
    function_positions: tuple[int, ...] = (0,)
    function_keywords: tuple[str, ...] = ("fun", "f")
    # `lax.switch` takes a sequence of functions at this position.
    branches_position: int | None = None
    static_keywords: tuple[str, ...] = ("static_argnums", "static_argnames")
    # Options that may also be passed positionally after the function: `vmap(f, (0, None))`.
    positional_options: tuple[str, ...] = ()
    # How many positional arguments the transformation passes to the function (None: any).
    # `fori_loop` calls `body(i, carry)`: further parameters keep their defaults, untraced.
    arity: int | None = None
    # It calls the function with positional operands alone (`lax.cond(p, f, g, x)` calls
    # `f(x)`): keyword-only parameters keep their defaults, untraced.
    positional_call: bool = False
    # Outside traced code it runs the function eagerly, on concrete values (`shard_map`).
    eager_outside_trace: bool = False
    # `jax.config.update("jax_disable_jit", True)` makes it run the function eagerly.
    disabled_with_jit: bool = False
    # Traces its function only inside an abstract trace (custom differentiation rules).
    abstract_only: bool = False


_JIT = TransformSpec("jit", True, ParamPolicy.ALL_BUT_STATIC, disabled_with_jit=True)
_FILTERED = ParamPolicy.ARRAY_ANNOTATED
_ARGNUMS = ("argnums",)


def _control_flow(
    label: str,
    positions: tuple[int, ...],
    keywords: tuple[str, ...],
    arity: int | None = None,
    branches_position: int | None = None,
) -> TransformSpec:
    """A `lax` loop or branch: it traces its function abstractly, calls it with positional
    operands, and runs it eagerly when jit is disabled."""
    return TransformSpec(
        label,
        True,
        ParamPolicy.ALL,
        positions,
        keywords,
        branches_position=branches_position,
        arity=arity,
        disabled_with_jit=True,
        positional_call=True,
    )


TRANSFORMS: dict[str, TransformSpec] = {
    "jax.jit": _JIT,
    "jax.pjit": _JIT,
    "jax.experimental.pjit.pjit": _JIT,
    "jax.pmap": TransformSpec(
        "pmap", True, ParamPolicy.ALL_BUT_STATIC, static_keywords=("static_broadcasted_argnums",)
    ),
    "jax.checkpoint": TransformSpec("checkpoint", True, ParamPolicy.ALL_BUT_STATIC),
    "jax.make_jaxpr": TransformSpec("make_jaxpr", True, ParamPolicy.ALL_BUT_STATIC),
    "jax.eval_shape": TransformSpec("eval_shape", True, ParamPolicy.ALL),
    "jax.vmap": TransformSpec(
        "vmap", True, ParamPolicy.IN_AXES, positional_options=("in_axes", "out_axes")
    ),
    "jax.shard_map": TransformSpec("shard_map", True, ParamPolicy.ALL, eager_outside_trace=True),
    "jax.grad": TransformSpec("grad", False, ParamPolicy.ARGNUMS, positional_options=_ARGNUMS),
    "jax.value_and_grad": TransformSpec(
        "value_and_grad", False, ParamPolicy.ARGNUMS, positional_options=_ARGNUMS
    ),
    "jax.jacfwd": TransformSpec("jacfwd", False, ParamPolicy.ARGNUMS, positional_options=_ARGNUMS),
    "jax.jacrev": TransformSpec("jacrev", False, ParamPolicy.ARGNUMS, positional_options=_ARGNUMS),
    "jax.hessian": TransformSpec(
        "hessian", False, ParamPolicy.ARGNUMS, positional_options=_ARGNUMS
    ),
    "jax.lax.fori_loop": _control_flow("lax.fori_loop", (2,), ("body_fun",), arity=2),
    "jax.lax.while_loop": _control_flow(
        "lax.while_loop", (0, 1), ("cond_fun", "body_fun"), arity=1
    ),
    "jax.lax.scan": _control_flow("lax.scan", (0,), ("f",), arity=2),
    "jax.lax.cond": _control_flow("lax.cond", (1, 2), ("true_fun", "false_fun")),
    "jax.lax.switch": _control_flow("lax.switch", (), ("branches",), branches_position=1),
    "jax.lax.map": _control_flow("lax.map", (0,), ("f",), arity=1),
    "jax.lax.associative_scan": TransformSpec(
        "lax.associative_scan", True, ParamPolicy.ALL, positional_call=True
    ),
    # SciPy's counterparts trace the function they are given: `minimize` runs BFGS in a
    # `lax.while_loop` on `fun(x, *args)` (the `args` closed over, concrete outside a trace),
    # `odeint` jits its integrator with `func(y, t, *args)` (the `args` traced too).
    "jax.scipy.optimize.minimize": TransformSpec(
        "scipy.optimize.minimize", True, ParamPolicy.ARGNUMS
    ),
    "jax.experimental.ode.odeint": TransformSpec(
        "ode.odeint", True, ParamPolicy.ALL, function_keywords=("func",)
    ),
    "equinox.filter_jit": TransformSpec("eqx.filter_jit", True, _FILTERED, disabled_with_jit=True),
    "equinox.filter_vmap": TransformSpec("eqx.filter_vmap", True, _FILTERED),
    "equinox.filter_pmap": TransformSpec("eqx.filter_pmap", True, _FILTERED),
    "equinox.filter_grad": TransformSpec("eqx.filter_grad", False, _FILTERED),
    "equinox.filter_value_and_grad": TransformSpec("eqx.filter_value_and_grad", False, _FILTERED),
    "equinox.filter_checkpoint": TransformSpec("eqx.filter_checkpoint", True, _FILTERED),
    "flax.nnx.jit": TransformSpec("nnx.jit", True, _FILTERED, disabled_with_jit=True),
    "flax.nnx.vmap": TransformSpec("nnx.vmap", True, _FILTERED),
    "flax.nnx.grad": TransformSpec("nnx.grad", False, _FILTERED),
    "flax.nnx.value_and_grad": TransformSpec("nnx.value_and_grad", False, _FILTERED),
    "flax.nnx.scan": TransformSpec("nnx.scan", True, _FILTERED),
    "flax.nnx.remat": TransformSpec("nnx.remat", True, _FILTERED),
}

# The lax loops (by label) that trace their body, and a while loop's test, once and run it on
# every iteration: a Python effect there (a draw from a fixed key, `count += 1`) happens once.
REPEATING_LOOPS = frozenset({"lax.fori_loop", "lax.while_loop", "lax.scan", "lax.map"})

# The lax branches (by label): they trace every branch, whichever one the index selects, so a
# Python effect in any branch happens, at trace time, whatever the predicate or index.
TRACED_BRANCHES = frozenset({"lax.cond", "lax.switch"})

# The transformations that differentiate (by label), and the form of what they give.
GRADIENTS = {
    "grad": "grad",
    "eqx.filter_grad": "grad",
    "nnx.grad": "grad",
    "value_and_grad": "value_and_grad",
    "eqx.filter_value_and_grad": "value_and_grad",
    "nnx.value_and_grad": "value_and_grad",
    "jacfwd": "jacobian",
    "jacrev": "jacobian",
    "hessian": "jacobian",
}
# The rules registered on a `jax.custom_vjp` / `jax.custom_jvp` function (`f.defvjp(fwd,
# bwd)`, `@f.defjvp`): JAX traces them where it traces the function, abstractly only under an
# abstract transformation (under `grad` alone, `bwd` sees concrete residuals). Parameters
# named by `nondiff_argnums` arrive as Python values (`static_argnums` of the rule).
CUSTOM_RULES = {
    method: TransformSpec(label, True, ParamPolicy.ALL_BUT_STATIC, abstract_only=True)
    for method, label in (("defvjp", "jax.custom_vjp"), ("defjvp", "jax.custom_jvp"))
}
CUSTOM_DERIVATIVES = frozenset({"jax.custom_vjp", "jax.custom_jvp"})
# Registering methods, and where each rule's non-differentiable arguments come: "same" (at
# the primal's positions: `fwd`) or "first" (leading: `bwd(n, res, g)`, `jvp(n, primals, t)`).
RULE_REGISTRATIONS = {"defvjp": ("same", "first"), "defjvp": ("first",)}

PARTIAL = frozenset({"functools.partial"})
# Not transformations: they call a function on the leaves of their trees (traced leaves of
# traced trees).
TREE_MAPS = frozenset({"jax.tree_util.tree_map", "jax.tree.map"})

# optax calls a schedule (a function of the step count) inside the optimizer's `update`:
# traced wherever the update runs traced (the step count is then a tracer).
OPTAX_SCHEDULE = TransformSpec("optax.update", False, ParamPolicy.ALL, arity=1)
# optax's optimizers whose first parameter is the learning rate (a number or a schedule).
OPTAX_LEARNING_RATE_FIRST = frozenset(
    f"optax.{name}"
    for name in (
        *("sgd", "adam", "adamw", "adagrad", "adabelief", "adadelta", "adafactor", "adamax"),
        *("adamaxw", "amsgrad", "fromage", "lamb", "lars", "lion", "nadam", "nadamw"),
        *("noisy_sgd", "novograd", "optimistic_gradient_descent", "radam", "rmsprop", "sm3"),
        *("yogi", "rprop", "sign_sgd", "scale_by_learning_rate", "scale_by_schedule"),
    )
)
OPTAX_HYPERPARAMS = frozenset({"optax.inject_hyperparams", "optax.inject_stateful_hyperparams"})
# Methods that run an optimizer's update: optax's `tx.update(grads, state, ...)`, flax's
# `state.apply_gradients(grads=...)`, nnx's `optimizer.update(model, grads)`.
OPTIMIZER_UPDATES = frozenset({"update", "apply_gradients"})
