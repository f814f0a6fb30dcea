# `.to(device)` habit: in JAX I put batches on the device explicitly.
import jax
import jax.numpy as jnp
import numpy as np

device = jax.devices()[0]


def to_device(batch):
    return jax.tree_util.tree_map(lambda a: jax.device_put(a, device), batch)


@jax.jit
def accuracy(logits, labels):
    return jnp.mean(jnp.argmax(logits, axis=-1) == labels)


logits = np.random.default_rng(1).normal(size=(64, 10)).astype(np.float32)
labels = np.random.default_rng(2).integers(0, 10, size=64)
batch = to_device({"logits": logits, "labels": labels})
acc = accuracy(batch["logits"], batch["labels"])
print("acc", acc.item(), float(acc), batch["logits"].devices())
