"""What kind of value an expression holds: a traced value, a JAX array, a NumPy array, ...

Rules must stay quiet when unsure, so anything the model cannot establish is UNKNOWN and
merging different kinds gives UNKNOWN (a traced value merged with a JAX array stays traced).
"""

from __future__ import annotations

import enum


class Kind(enum.Enum):
    TRACED = "traced"  # a tracer while JAX traces the function: no concrete value
    ARRAY = "array"  # a concrete jax.Array
    NUMPY = "numpy"  # a NumPy array or scalar: mutable, concrete, never a JAX gotcha
    STATIC = "static"  # a concrete Python value (literal, shape, len(), static argument)
    SEQUENCE = "sequence"  # a Python list/tuple built here (literal, comprehension, list())
    ITERATOR = "iterator"  # a stateful Python iterator or generator
    UNKNOWN = "unknown"

    # Members are singletons compared by identity: hash them in C. Enum's own `__hash__` is a
    # Python call, and kinds are hashed in every memo key of the incremental analysis.
    __hash__ = object.__hash__

    @property
    def is_jax(self) -> bool:
        return self in (Kind.TRACED, Kind.ARRAY)


def merge(first: Kind, second: Kind) -> Kind:
    if first is second:
        return first
    if {first, second} == {Kind.TRACED, Kind.ARRAY}:
        return Kind.TRACED
    return Kind.UNKNOWN


def merge_all(kinds: list[Kind]) -> Kind:
    if not kinds:
        return Kind.UNKNOWN
    result = kinds[0]
    for kind in kinds[1:]:
        result = merge(result, kind)
    return result


# Modules whose functions return JAX arrays.
ARRAY_MODULES = ("jax.numpy", "jax.random", "jax.lax", "jax.nn", "jax.scipy")
# The option classes of `jax.lax`: a call makes a Python object (an enum member, a named
# tuple), hashable, never an array.
_LAX_OPTION_CLASSES = frozenset(
    f"jax.lax.{name}"
    for name in [
        *("AccuracyMode", "ConvDimensionNumbers", "DotAlgorithm", "DotAlgorithmPreset"),
        *("FftType", "GatherDimensionNumbers", "GatherScatterMode", "Precision"),
        *("RaggedDotDimensionNumbers", "RandomAlgorithm", "RoundingMethod"),
        *("ScatterDimensionNumbers", "Tolerance"),
    ]
)
# ... except these, which answer questions about shapes and dtypes with Python values, and
# those option classes.
STATIC_RESULTS = frozenset(
    f"jax.numpy.{name}"
    for name in [
        "shape",
        "ndim",
        "size",
        "result_type",
        "dtype",
        "issubdtype",
        "iinfo",
        "finfo",
        "promote_types",
        "can_cast",
        "isdtype",
        "isscalar",
        "iscomplexobj",
        "isrealobj",
        "broadcast_shapes",
    ]
) | frozenset({"jax.lax.broadcast_shapes", "jax.lax.axis_size", *_LAX_OPTION_CLASSES})
# optax functions that compute one JAX array with jnp whatever they are given (NumPy arrays
# too): norms and losses. Not `squared_error` or `smooth_labels` (NumPy in, NumPy out), not
# the loss factories or `ctc_loss_with_forward_probs` (a tuple), not `tree_sum` / `tree_max`
# (a Python number for an empty tree).
_OPTAX_LOSSES = (
    *("convex_kl_divergence", "cosine_distance", "cosine_similarity", "ctc_loss"),
    *("generalized_kl_divergence", "hinge_loss", "huber_loss", "kl_divergence"),
    *("kl_divergence_with_log_targets", "l2_loss", "log_cosh", "ntxent"),
    *("safe_softmax_cross_entropy", "sigmoid_binary_cross_entropy", "sigmoid_focal_loss"),
    *("softmax_cross_entropy", "softmax_cross_entropy_with_integer_labels"),
    *("binary_dice_loss", "dice_loss", "multiclass_generalized_dice_loss"),
    *("multiclass_hinge_loss", "multiclass_perceptron_loss", "multiclass_sparsemax_loss"),
    *("perceptron_loss", "poly_loss_cross_entropy", "ranking_softmax_loss", "sparsemax_loss"),
    "triplet_margin_loss",
)
# ... of which optax also exports these at its top level (`optax.l2_loss`)
_OPTAX_TOP_LEVEL_LOSSES = frozenset(
    [
        *("convex_kl_divergence", "cosine_distance", "cosine_similarity", "ctc_loss"),
        *("generalized_kl_divergence", "hinge_loss", "huber_loss", "kl_divergence"),
        *("l2_loss", "log_cosh", "ntxent", "safe_softmax_cross_entropy"),
        *("sigmoid_binary_cross_entropy", "sigmoid_focal_loss", "softmax_cross_entropy"),
        "softmax_cross_entropy_with_integer_labels",
    ]
)
_OPTAX_ARRAY_FUNCTIONS = frozenset(
    [
        *(f"optax.losses.{name}" for name in _OPTAX_LOSSES),
        *(f"optax.{name}" for name in _OPTAX_LOSSES if name in _OPTAX_TOP_LEVEL_LOSSES),
        *("optax.global_norm", "optax.safe_norm", "optax.tree_utils.tree_norm"),
    ]
)
ARRAY_FUNCTIONS = (
    frozenset({"jax.device_put", "jax.lax.stop_gradient", "jax.block_until_ready", "jax.Array"})
    | _OPTAX_ARRAY_FUNCTIONS
)
# Library layers whose call returns one JAX array (`nn.Dense(3)(x)`): what their `__call__`
# computes from its input (a layer returning a tuple, such as a recurrent cell, is left out).
_LAYER_NAMES = {
    "flax.linen": (
        *("Dense", "DenseGeneral", "Conv", "ConvTranspose", "ConvLocal", "Embed", "LayerNorm"),
        *("BatchNorm", "GroupNorm", "RMSNorm", "InstanceNorm", "Dropout", "Einsum", "PReLU"),
        *("MultiHeadDotProductAttention", "SelfAttention", "MultiHeadAttention"),
    ),
    "flax.nnx": (
        *("Linear", "LinearGeneral", "Conv", "ConvTranspose", "Embed", "LayerNorm"),
        *("BatchNorm", "GroupNorm", "RMSNorm", "InstanceNorm", "Dropout", "Einsum", "PReLU"),
        "MultiHeadAttention",
    ),
    "equinox.nn": (
        *("Linear", "Conv", "ConvTranspose", "Conv1d", "Conv2d", "Conv3d", "Embedding"),
        *("LayerNorm", "GroupNorm", "RMSNorm", "Dropout", "MLP", "PReLU"),
    ),
    "haiku": (  # not the recurrent cores: they give (output, state)
        *("Linear", "Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose"),
        *("Conv3DTranspose", "Embed", "LayerNorm", "BatchNorm", "GroupNorm", "RMSNorm"),
        *("MultiHeadAttention", "Flatten"),
    ),
    "haiku.nets": ("MLP",),
}
ARRAY_LAYERS = frozenset(
    f"{module}.{name}" for module, names in _LAYER_NAMES.items() for name in names
)
# flax nnx's variables: `nnx.Param(jnp.zeros(3))` holds the array it is given as its
# `.value` (an object whose item assignment `v[i] = y` nnx rewrites with `.at`; not the array).
NNX_VARIABLES = frozenset(
    f"flax.nnx.{name}" for name in ("Variable", "Param", "BatchStat", "Cache", "Intermediate")
)
# Array attributes that are Python values even on a tracer.
STATIC_ATTRIBUTES = frozenset(
    [
        "shape",
        "ndim",
        "dtype",
        "size",
        "itemsize",
        "nbytes",
        "weak_type",
        "sharding",
        "aval",
        "committed",
    ]
)
SAME_KIND_ATTRIBUTES = frozenset({"T", "mT", "real", "imag"})
# Array methods that return arrays of the receiver's kind.
ARRAY_METHODS = frozenset(
    [
        "all",
        "any",
        "argmax",
        "argmin",
        "argpartition",
        "argsort",
        "astype",
        "choose",
        "clip",
        "compress",
        "conj",
        "conjugate",
        "copy",
        "cumprod",
        "cumsum",
        "cumulative_sum",
        "diagonal",
        "dot",
        "flatten",
        "max",
        "mean",
        "min",
        "nonzero",
        "prod",
        "ptp",
        "ravel",
        "repeat",
        "reshape",
        "round",
        "searchsorted",
        "sort",
        "squeeze",
        "std",
        "sum",
        "swapaxes",
        "take",
        "trace",
        "transpose",
        "var",
        "view",
        "block_until_ready",
        "get",
        "set",
        "add",
        "subtract",
        "multiply",
        "mul",
        "divide",
        "power",
        "apply",
        "__getitem__",
        "__add__",
        "__mul__",
    ]
)
# Methods that turn an array into a Python value (they concretize).
CONCRETIZING_METHODS = frozenset({"item", "tolist", "__int__", "__float__", "__bool__"})
# Every attribute a JAX array has that the sets above leave out.
_OTHER_ARRAY_ATTRIBUTES = frozenset(
    [
        *("at", "device", "devices", "addressable_shards", "addressable_data", "flat"),
        *("format", "is_fully_addressable", "is_fully_replicated", "global_shards", "base"),
        *(
            "copy_to_host_async",
            "delete",
            "is_deleted",
            "on_device_size_in_bytes",
            "unsafe_buffer_pointer",
        ),
        *("argmax", "argmin", "argsort", "astype", "clip", "any", "item", "tolist", "squeeze"),
    ]
)
ARRAY_ATTRIBUTES = (
    STATIC_ATTRIBUTES
    | SAME_KIND_ATTRIBUTES
    | ARRAY_METHODS
    | CONCRETIZING_METHODS
    | _OTHER_ARRAY_ATTRIBUTES
)
# Python's reductions of an iterable (or of their arguments): a Python number when every
# element is one.
PYTHON_REDUCTIONS = frozenset(["builtins.sum", "builtins.min", "builtins.max"])

STATIC_BUILTINS = frozenset(
    [
        "builtins.len",
        "builtins.isinstance",
        "builtins.issubclass",
        "builtins.hasattr",
        "builtins.callable",
        "builtins.type",
        "builtins.id",
        "builtins.str",
        "builtins.repr",
        "builtins.range",
        "builtins.int",
        "builtins.float",
        "builtins.bool",
        "builtins.complex",
        "builtins.getattr",
    ]
)
ARRAY_ANNOTATIONS = frozenset({"jax.Array", "jax.numpy.ndarray"})
JAXTYPING_DTYPES = frozenset(
    [
        "Float",
        "Int",
        "UInt",
        "Integer",
        "Bool",
        "Complex",
        "Inexact",
        "Real",
        "Num",
        "Shaped",
        "Key",
        "Float32",
        "Float64",
        "Float16",
        "BFloat16",
        "Int32",
        "Int64",
        "Int8",
        "Int16",
        "UInt8",
        "UInt32",
        "Complex64",
        "Complex128",
    ]
)
