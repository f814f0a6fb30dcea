"""What the model may assume about calling a function imported from another module, and where
the document calls it: the data `infer.py` (the engine's answer) and the server's jedi worker
(jedi's, through `lsp/crossmodule.py`) give the model. Its own module, below both the model
and `infer.py`, so that `infer.py` may build models of imported modules without an import
cycle."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from jax_lsp.analysis.jitted import StaticSignature
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.values import Container, Value


@dataclass(frozen=True)
class ExternalFacts:
    """What the model may assume about calling one imported function. Hashable: it is part
    of the per-unit cache key."""

    returns_array: bool  # a call returns a jax.Array (a tracer inside traced code)
    transform: str | None = None  # "jit", "vmap", ...: transformed where it is defined
    static: StaticSignature | None = None  # its static arguments, when jitted with some
    origin: str = "engine"  # "engine" or "jedi": who answered
    # A tuple or dict it returns, with its items where known (`{"mean": x.mean()}`): read
    # with its parameters unknown, and with each of them a tracer inside traced code (where
    # a Python value, `Kind.STATIC`, is known too: `sum(jnp.size(v) for v in leaves)`).
    returns: Container | None = None
    traced_returns: Container | Kind | None = None
    # Imported from a workspace module whose code may build a mesh with explicit axes
    # (`analysis.sharding`): an array on such a mesh may come in through it. Also held for a
    # name that is not called (`from setup import mesh`), with no call facts.
    explicit_meshes: bool = False
    # A wrapper: it applies this transformation (its `TRANSFORMS` name) to the function it
    # is given first, with no options the caller must read (`@compiled` runs `jax.jit(f)`).
    wraps: str | None = None
    # Its key parameters as a caller sees them (`analysis.keys`): the positional parameters'
    # names, those it consumes (draws from or splits, itself or through calls), those it
    # derives from by family (a flax `init`/`apply`), and the consumed ones it returns
    # (place in the returned tuple, -1 for the whole value; parameter).
    key_params: tuple[str, ...] = ()
    consumed_keys: frozenset[str] = frozenset()
    derived_keys: tuple[tuple[str, str], ...] = ()
    returned_keys: tuple[tuple[int, str], ...] = ()
    # The conditions on its other parameters under which it reads each consumed key
    # (`key_consumers.draw_conditions`): (key, ((parameter, state), ...)), with the literal
    # defaults of those parameters: a call passing `train=False` leaves the key unread.
    key_conditions: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    condition_defaults: tuple[tuple[str, object], ...] = ()
    # The places of its result that every return fills with a boolean array (-1: the value
    # itself; else an index of the tuple it returns): `x, y, mask = load_batch()`.
    returned_booleans: frozenset[int] = frozenset()
    # The keys under which every dict it returns holds a boolean array (a data loader's
    # `{"tokens": tokens, "mask": lengths[:, None] > positions}`).
    returned_boolean_keys: frozenset[str] = frozenset()
    # Not a function: a name its module binds once at top level and never changes
    # (`CONFIG = {"sizes": [32, 32]}`, `KERNEL = jnp.array(...)`), with the value that
    # module's model gives it (`values.portable`: kinds and containers only).
    value: Value | None = None
    # A PyTree class (a NamedTuple, a flax struct, a registered dataclass, ...): the values
    # of a traced instance's fields (`ModuleModel._instance`), passed through a
    # transformation that traces some leaves, and every leaf (`jax.jit`).
    instance_fields: tuple[tuple[str, Value], ...] | None = None
    leaf_instance_fields: tuple[tuple[str, Value], ...] | None = None
    # A class: the attributes its instances hold that its module sees set (by its methods or
    # those of its bases there, or its body), none of them a method or property: for a
    # class deriving from it, `self.attr` reads what was stored.
    instance_attributes: frozenset[str] | None = None
    # A class whose plain methods draw from a key `__init__` alone stores (no other method,
    # subclass or code of its module assigns it): (method, attribute) pairs. Two calls of
    # such a method on one instance draw the same numbers.
    stored_key_draws: tuple[tuple[str, str], ...] = ()
    # A flax linen module class whose `apply` draws no random numbers (`linen_draws`): the
    # key a caller gives it in `rngs=` is not read.
    quiet_linen: bool = False
    # Why JAX cannot hash what it stands for, passed as a static argument: of a class, its
    # instances (`Config()` of a dataclass not frozen); of a module-level value, the value
    # (`DEFAULT = Config()`).
    unhashable_instances: str | None = None
    unhashable_value: str | None = None
    # A module-level alias of a container type (`Cache = dict[str, jax.Array]`): "dict",
    # "list" or "tuple", what a parameter annotated with it holds (a pytree node, no array).
    container_form: str | None = None

    @property
    def read_by_models(self) -> bool:
        """Whether a model reads anything from these facts: an array or a container
        returned, static arguments, explicit meshes, a module-level value, a PyTree class's
        fields (`transform` and `origin` are for people). A function known to return no
        array, not jitted with static arguments, analyses as one without facts."""
        return (
            self.returns_array
            or self.value is not None
            or self.instance_fields is not None
            or bool(self.instance_attributes)
            or self.returns is not None
            or self.traced_returns is not None
            or self.static is not None
            or self.explicit_meshes
            or bool(self.consumed_keys or self.derived_keys)
            or self.wraps is not None
            or bool(self.returned_booleans)
            or bool(self.returned_boolean_keys)
            or self.quiet_linen
            or bool(self.stored_key_draws)
            or self.unhashable_instances is not None
            or self.unhashable_value is not None
            or self.container_form is not None
        )


def imports_a_wrapper(facts: Mapping[str, ExternalFacts] | None) -> bool:
    """Does one of the imported names transform the function it is given (`wraps`)? Then a
    module traces what it hands that name, though its text may name no transformation."""
    return facts is not None and any(fact.wraps is not None for fact in facts.values())


def read_by_models(facts: Mapping[str, ExternalFacts]) -> dict[str, ExternalFacts]:
    """The facts of `facts` a module's model reads (`ExternalFacts.read_by_models`)."""
    return {name: fact for name, fact in facts.items() if fact.read_by_models}


@dataclass(frozen=True)
class CallSite:
    """Where the document calls an imported name (0-based line, column of the last part)."""

    line: int
    column: int


def facts_key(external: Mapping[str, ExternalFacts] | None) -> tuple:
    """A hashable summary of `external`, for cache keys."""
    return tuple(sorted((external or {}).items()))


def with_answers(
    facts: Mapping[str, ExternalFacts], answers: Mapping[str, ExternalFacts]
) -> dict[str, ExternalFacts]:
    """`facts` with `answers` (jedi's) winning for the names both hold, each keeping the
    explicit-mesh flag of `facts`: where a name is imported from is the engine's to say."""
    merged = dict(facts)
    for name, answer in answers.items():
        known = merged.get(name)
        if known is not None and known.explicit_meshes and not answer.explicit_meshes:
            answer = replace(answer, explicit_meshes=True)
        merged[name] = answer
    return merged
