# Source: https://m.17golang.com/article/456939.html ("JAX梯度计算:正确使用布尔运算符技巧", 2026,
# retelling a Stack Overflow question about jax.grad through lax.switch)
# The branches of a lax.switch used a chained comparison `jnp.where(0. < x < 1., x, 0.)`;
# Python evaluates `0. < x < 1.` as `(0. < x) and (x < 1.)`, and `and` converts the traced
# `0. < x` to bool: TracerBoolConversionError when taking grad. Fix: `(0. < x) & (x < 1.)`.
# Verbatim from the article's "wrong" version (grad call and try/except added).
import jax
import jax.numpy as jnp
from jax import grad
from jax.lax import switch

func_0 = lambda x: jnp.where(0.0 < x < 1.0, x, 0.0)  # expect: JAX702
func_1 = lambda x: jnp.where((0.0 < x) & (x < 1.0), x, 1.0)

func_list = [func_0, func_1]
func = lambda index, x: switch(index, func_list, x)

try:
    print(grad(func, argnums=1)(1, 0.5))
except jax.errors.TracerBoolConversionError as err:
    print(type(err).__name__)
