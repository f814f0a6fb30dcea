# runtime: jax.errors.TracerBoolConversionError
# clean runtime: check: assert float(energy_jit(conf, box)) > 0 and float(scaled_jit(conf)) > 0
# timemachine #800: a validation `assert` guarded by a flag runs under jit when the traced call
# leaves the flag on; where every traced call passes a literal that rules the block out, it
# never runs there. A flag the function rebinds is not known.
import jax
import jax.numpy as jnp


def energy(conf, box, runtime_validate=True, skip_finite_check=False):
    if runtime_validate:
        assert (box.diagonal() > 1.0).all()  # expect: JAX701
    if not skip_finite_check:
        assert jnp.isfinite(conf).all()
    return jnp.sum(conf**2) + jnp.sum(box)


@jax.jit
def energy_jit(conf, box):
    return energy(conf, box, skip_finite_check=True)  # clean: return energy(conf, box, runtime_validate=False, skip_finite_check=True)


def scaled(x, check=False):
    check = not check  # clean:
    if check:
        assert (x > 0).all()  # expect: JAX701
    return x * 2


@jax.jit
def scaled_jit(x):
    return jnp.sum(scaled(x))


conf, box = jnp.ones((3, 3)), jnp.eye(3) * 3.0
print(energy(conf, box))  # eager: the checks run on values
energy_jit(conf, box)
scaled_jit(conf)
