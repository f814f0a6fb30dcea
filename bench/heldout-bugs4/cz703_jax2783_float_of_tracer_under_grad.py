# Source: https://github.com/jax-ml/jax/issues/2783 ("float(x) does not work if x is a concrete
# tracer, but int(x) works")
# gnecula expected `x if float(x) >= 0. else -x` to be differentiable; under grad float(x)
# raised "JAX Tracer object cannot be interpreted as a float". mattjj: float() would act as a
# silent stop_gradient, so it stays an error. Today: ConcretizationTypeError.
# Verbatim (`api.grad` is jax.grad; try/except added).
import jax


def func(x):
    return x if float(x) >= 0.0 else -x  # expect: JAX703


try:
    print(jax.grad(func)(3.0))
except jax.errors.ConcretizationTypeError as err:
    print(type(err).__name__)
