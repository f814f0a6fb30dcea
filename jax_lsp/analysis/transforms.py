"""The JAX transformations that trace a function, and how each decides which parameters trace.

`abstract` transformations (jit, vmap, lax control flow, ...) give parameters without a
concrete value: Python `if`, `int()` and value-dependent shapes fail on them. Differentiation
alone (grad) gives tracers that still carry a concrete value, so only conversions fail there.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace


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
    # Given a class (flax linen's lifted `nn.scan(Cell)`), it traces this method of the
    # instances the made class builds, bound to them; else (`jax.jit(Cls)`) it runs `__init__`.
    class_method: str | None = None


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
    # nnx's transformations take their arguments as `jax.*` does (a Python number given
    # `nnx.jit` is a tracer, unlike `eqx.filter_jit`); only a module's (graph node's) plain
    # attributes stay static. `nnx.scan` traces even the arguments its `in_axes` broadcast.
    "flax.nnx.jit": TransformSpec(
        "nnx.jit", True, ParamPolicy.ALL_BUT_STATIC, disabled_with_jit=True
    ),
    "flax.nnx.vmap": TransformSpec("nnx.vmap", True, ParamPolicy.IN_AXES),
    "flax.nnx.grad": TransformSpec("nnx.grad", False, ParamPolicy.ARGNUMS),
    "flax.nnx.value_and_grad": TransformSpec("nnx.value_and_grad", False, ParamPolicy.ARGNUMS),
    "flax.nnx.scan": TransformSpec("nnx.scan", True, ParamPolicy.ALL),
    "flax.nnx.remat": TransformSpec("nnx.remat", True, ParamPolicy.ALL_BUT_STATIC),
}

# What the frameworks trace, beyond `jax.*` (one row a contract; each row has a program run
# under the real library in `tests/rules/framework_programs/`, named in `FRAMEWORK_CONTRACTS`).
# flax linen's lifted transformations take a Module class and make one whose `__call__` runs
# under the JAX transformation, at `init` as at `apply`, eagerly called or not.
_LINEN_LIFTED = {
    "scan": _control_flow("nn.scan", (0,), ("target",)),
    "vmap": TransformSpec("nn.vmap", True, ParamPolicy.ALL, function_keywords=("target",)),
    "jit": TransformSpec("nn.jit", True, ParamPolicy.ALL, function_keywords=("target",)),
    "remat": TransformSpec("nn.remat", True, ParamPolicy.ALL, function_keywords=("target",)),
    "checkpoint": TransformSpec(
        "nn.checkpoint", True, ParamPolicy.ALL, function_keywords=("target",)
    ),
    "remat_scan": TransformSpec(
        "nn.remat_scan", True, ParamPolicy.ALL, function_keywords=("body_fn",)
    ),
}
for _name, _spec in _LINEN_LIFTED.items():
    _spec = replace(_spec, class_method="__call__")
    TRANSFORMS[f"flax.linen.{_name}"] = _spec
    TRANSFORMS[f"flax.linen.transforms.{_name}"] = _spec
# haiku's transformations, used inside an `hk.transform`ed function: `hk.scan` is `lax.scan`,
# `hk.vmap` is `jax.vmap`, `hk.remat` is `jax.checkpoint`, and the RNN unrolls call their
# core (`core(x, state)`) in a `lax.scan` (`dynamic_unroll`) or a Python loop over tracers.
TRANSFORMS.update(
    {
        "haiku.scan": _control_flow("hk.scan", (0,), ("f",), arity=2),
        "haiku.fori_loop": _control_flow("hk.fori_loop", (2,), ("body_fun",), arity=2),
        "haiku.while_loop": _control_flow(
            "hk.while_loop", (0, 1), ("cond_fun", "body_fun"), arity=1
        ),
        "haiku.cond": _control_flow("hk.cond", (1, 2), ("true_fun", "false_fun")),
        "haiku.switch": _control_flow("hk.switch", (), ("branches",), branches_position=1),
        "haiku.map": _control_flow("hk.map", (0,), ("f",), arity=1),
        "haiku.vmap": TransformSpec(
            "hk.vmap", True, ParamPolicy.IN_AXES, positional_options=("in_axes", "out_axes")
        ),
        "haiku.remat": TransformSpec("hk.remat", True, ParamPolicy.ALL_BUT_STATIC),
        "haiku.dynamic_unroll": _control_flow("hk.dynamic_unroll", (0,), ("core",), arity=2),
    }
)

# optax: `GradientTransformation(init, update)` is an optimizer whose `update` function runs
# where the optimizer's update does (`tx.update(grads, state, params)` in a jitted step).
OPTAX_TRANSFORMATIONS = frozenset(
    {"optax.GradientTransformation", "optax.GradientTransformationExtraArgs"}
)
OPTAX_UPDATE_FUNCTION = TransformSpec("optax.GradientTransformation.update", False, ParamPolicy.ALL)


@dataclass(frozen=True)
class FrameworkContract:
    """One thing a framework traces: the library, the entry point users write, what runs
    traced, and the program (in `tests/rules/framework_programs/`) that shows it under the
    real library, flagged by jax-lsp."""

    framework: str
    entry: str
    traces: str
    program: str


FRAMEWORK_CONTRACTS = (
    FrameworkContract(
        "flax.linen", "jax.jit(model.apply)", "`__call__`, `setup`, its submodules", "linen_apply"
    ),
    FrameworkContract(
        "flax.linen", "model.apply(..., method=Cls.encode)", "the method", "linen_apply_method"
    ),
    FrameworkContract(
        "flax.linen",
        "TrainState.create(apply_fn=CNN().apply); state.apply_fn(...) in jit",
        "`CNN.__call__`",
        "linen_train_state",
    ),
    FrameworkContract("flax.linen", "nn.scan(Cell, ...)", "`Cell.__call__`", "linen_scan"),
    FrameworkContract("flax.linen", "nn.remat(Cell)", "`Cell.__call__`", "linen_remat"),
    FrameworkContract("flax.linen", "nn.vmap(Cell, ...)", "`Cell.__call__`", "linen_vmap"),
    FrameworkContract("flax.linen", "nn.jit(Cell)", "`Cell.__call__`", "linen_jit"),
    FrameworkContract(
        "flax.nnx", "nnx.jit(f)(model, x)", "`model.__call__`, layers it iterates", "nnx_jit"
    ),
    FrameworkContract(
        "flax.nnx", "nnx.jit(f)(x, 1.0)", "`f`, a Python number as a tracer", "nnx_jit_number"
    ),
    FrameworkContract("flax.nnx", "nnx.vmap(f)(model, xs)", "`model.__call__`", "nnx_vmap"),
    FrameworkContract(
        "flax.nnx", "nnx.vmap(f, in_axes=(0, 0, None))", "`f`, but `None` axes", "nnx_vmap_number"
    ),
    FrameworkContract("flax.nnx", "nnx.scan(body)(model, xs)", "`model.__call__`", "nnx_scan"),
    FrameworkContract(
        "flax.nnx",
        "nnx.scan(body, in_axes=(nnx.Carry, 0, None))",
        "`body`, every argument",
        "nnx_scan_broadcast",
    ),
    FrameworkContract("flax.nnx", "nnx.remat(f)(x, 2.0)", "`f`, all but static", "nnx_remat"),
    FrameworkContract("flax.nnx", "nnx.grad(f)(x, w)", "`f`: the `argnums` arguments", "nnx_grad"),
    FrameworkContract(
        "flax.nnx", "for layer in self.layers (nnx.List)", "each layer's `__call__`", "nnx_list"
    ),
    FrameworkContract(
        "equinox", "eqx.filter_jit(f)(model, x)", "`model.__call__`, its layers", "eqx_jit"
    ),
    FrameworkContract("equinox", "eqx.filter_vmap(f)(model, xs)", "`model.__call__`", "eqx_vmap"),
    FrameworkContract(
        "equinox", "eqx.filter_vmap(m)(xs), `m` a model parameter", "`m.__call__`", "eqx_vmap_param"
    ),
    FrameworkContract("haiku", "jax.jit(hk.transform(f).apply)", "`f`", "hk_transform"),
    FrameworkContract(
        "haiku", "jax.jit(hk.transform_with_state(f).init)", "`f`", "hk_transform_with_state"
    ),
    FrameworkContract("haiku", "hk.scan(body, ...)", "`body`", "hk_scan"),
    FrameworkContract("haiku", "hk.dynamic_unroll(Core(), ...)", "`Core.__call__`", "hk_unroll"),
    FrameworkContract("haiku", "hk.vmap(f)", "`f`", "hk_vmap"),
    FrameworkContract("haiku", "hk.remat(f)", "`f`", "hk_remat"),
    FrameworkContract("jax", "pjit(f)", "`f`", "pjit"),
    FrameworkContract("jax", "jax.shard_map(f) in jit", "`f`", "shard_map"),
    FrameworkContract("jax", "jax.pmap(f)", "`f`", "pmap"),
    FrameworkContract(
        "optax", "GradientTransformation(init, update)", "`update` in `tx.update`", "optax_update"
    ),
    FrameworkContract(
        "optax", "optax.chain(GradientTransformation(...), ...)", "its `update`", "optax_chain"
    ),
    FrameworkContract(
        "optax",
        "optax.adamw(learning_rate=schedule); tx.update(...) in jit",
        "`schedule`, given the traced step count",
        "optax_schedule",
    ),
    FrameworkContract("environments", "jax.jit(env.step)", "`Env.step`", "env_step"),
    FrameworkContract("environments", "jax.jit(self.step)", "`Env.step`", "env_self_step"),
)

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
