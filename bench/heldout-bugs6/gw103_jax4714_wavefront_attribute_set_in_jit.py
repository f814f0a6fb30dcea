# Source: https://github.com/jax-ml/jax/issues/4714 ("UnexpectedTracerError in optics code")
# benjaminpope's optics package (morphine): a wavefront object keeps its complex field in
# `self.wavefront`; a jitted propagation function mutates the object it is given, and using
# the object afterwards fails with UnexpectedTracerError ("Can't lift sublevels"). mattjj:
# a side effect stashes a Tracer in state outside the function.
# Reconstructed (the report's notebook is not in the issue; a BasicWavefront with a
# normalize/propagate pair stands in, with the attribute the report names).
import jax
import jax.numpy as jnp


class BasicWavefront:
    def __init__(self, npix):
        self.wavefront = jnp.ones((npix, npix), dtype=jnp.complex64)

    @property
    def intensity(self):
        return jnp.abs(self.wavefront) ** 2

    def normalize(self):
        total = jnp.sqrt(jnp.sum(self.intensity))
        self.wavefront = self.wavefront / total  # expect: JAX103


@jax.jit
def propagate(wf_phase):
    wf.normalize()
    return jnp.sum(jnp.abs(jnp.fft.fft2(wf.wavefront * jnp.exp(1j * wf_phase))) ** 2)


wf = BasicWavefront(8)
print(propagate(jnp.zeros((8, 8))))
try:
    print(jnp.sum(wf.intensity))
except jax.errors.UnexpectedTracerError as err:
    print(type(err).__name__)
