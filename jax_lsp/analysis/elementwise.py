"""Functions JAX applies element by element: their result has the broadcast shape of their
array operands (`jnp.maximum(x, y)`, `jnp.isnan(x)`; the dtype may change: `jnp.sin` of ints
gives floats). `tests/analysis/test_elementwise.py` calls each under JAX."""

from __future__ import annotations

ELEMENTWISE_FUNCTIONS = frozenset(
    {
        *(
            f"jax.numpy.{name}"
            for name in (
                *("abs", "absolute", "negative", "positive", "square", "sign", "sqrt", "cbrt"),
                *("exp", "exp2", "expm1", "log", "log1p", "log2", "log10", "reciprocal"),
                *("sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh"),
                *("arcsinh", "arccosh", "arctanh", "floor", "ceil", "round", "rint", "trunc"),
                *("real", "imag", "conj", "conjugate", "isnan", "isinf", "isfinite", "sinc"),
                *("isneginf", "isposinf", "signbit", "isreal", "iscomplex"),
                *("maximum", "minimum", "clip", "add", "subtract", "multiply"),
                *("divide", "true_divide", "floor_divide", "power", "float_power", "mod"),
                *("arctan2", "hypot", "logaddexp", "copysign", "heaviside", "fmax", "fmin"),
                *("logical_and", "logical_or", "logical_not", "logical_xor", "nan_to_num"),
                *("deg2rad", "rad2deg"),
            )
        ),
        *(
            f"jax.nn.{name}"
            for name in ("relu", "sigmoid", "softplus", "silu", "swish", "gelu", "elu")
        ),
        *(
            f"jax.lax.{name}"
            for name in ("max", "min", "neg", "abs", "select", "exp", "log", "sqrt", "rsqrt")
        ),
        *(f"jax.lax.{name}" for name in ("stop_gradient", "tanh", "sin", "cos", "integer_pow")),
        "jax.scipy.special.erf",
        "jax.scipy.special.expit",
        "jax.scipy.special.logit",
    }
)
