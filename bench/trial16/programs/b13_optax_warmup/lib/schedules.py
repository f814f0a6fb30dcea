import jax.numpy as jnp


def warmup_then_decay(peak_lr, warmup_steps, decay_rate=0.999):
    def schedule(step):
        if step < warmup_steps:  # expect: JAX701
            return peak_lr * step / warmup_steps
        return peak_lr * decay_rate ** (step - warmup_steps)

    return schedule
