# Source: https://github.com/jax-ml/jax/issues/226 ("In-place updating can lead to counterintuitive behavior")
# craffel looped over lists of parameters and gradients and wrote `param -= learning_rate *
# gradient`: with NumPy arrays this updates the arrays in the list; with jax arrays `-=`
# rebinds the loop variable to a new array and `params` is not updated (mattjj suggested a
# list comprehension that builds the new params). The Common Gotchas now list it.
# Adapted (the loop is the reporter's; a two-layer params list and its gradients added).
import jax
import jax.numpy as jnp

params = [jnp.ones((2, 2)), jnp.ones(2)]


def loss(params, x):
    w, b = params
    return jnp.sum((x @ w + b) ** 2)


grads = jax.grad(loss)(params, jnp.ones((3, 2)))
learning_rate = 0.1
for param, gradient in zip(params, grads):
    # params does not get updated
    param -= learning_rate * gradient  # expect: JAX203
print("params[1] after the step:", params[1])
print("expected:", [p - learning_rate * g for p, g in zip(params, grads)][1])
