# Source: https://github.com/NVIDIA/nvalchemi-toolkit-ops/pull/72
# ("feat(jax): add graph_mode kwarg to neighbor lists for CUDA graph replay")
# The review bot: the docstring example calls naive_neighbor_list inside jax.jit without
# the shift arguments, so it falls through to compute_naive_num_shifts(cell, cutoff, pbc),
# which calls `int(max_shifts_i64.max())` on a traced array: ConcretizationTypeError; the
# helper "must be called outside jax.jit scope".
# Adapted (the helper's shift arithmetic from the JAX utilities, warp kernels replaced by
# jnp; the overflow check below it, `bool(jnp.any(...))`, is a second instance, unmarked).
import jax
import jax.numpy as jnp


def compute_naive_num_shifts(cell, cutoff, pbc):
    inv_lengths = jnp.linalg.norm(jnp.linalg.inv(cell), axis=-1)
    shift_range = jnp.where(pbc, jnp.ceil(inv_lengths * cutoff), 0).astype(jnp.int32)
    rx, ry, rz = shift_range[..., 0], shift_range[..., 1], shift_range[..., 2]
    num_shifts = (rx * (2 * ry + 1) + ry) * (2 * rz + 1) + rz + 1
    max_shifts = int(num_shifts.max())  # expect: JAX703
    if bool(jnp.any(num_shifts < 0)):
        raise ValueError("Per-system shift count exceeds int32 max.")
    return shift_range, num_shifts, max_shifts


def naive_neighbor_list(positions, cutoff, cell, pbc, max_shifts_per_system=None):
    if max_shifts_per_system is None:
        shift_range, num_shifts, max_shifts_per_system = compute_naive_num_shifts(cell, cutoff, pbc)
    d = positions[:, None, :] - positions[None, :, :]
    return jnp.sum(jnp.linalg.norm(d, axis=-1) < cutoff, axis=-1) - 1


positions = jnp.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 3.0, 0.0]])
cell = jnp.eye(3)[None] * 5.0
pbc = jnp.array([[True, True, True]])
print(naive_neighbor_list(positions, 1.5, cell, pbc))  # eager: fine
try:
    jax.jit(lambda p: naive_neighbor_list(p, 1.5, cell, pbc))(positions)
except jax.errors.ConcretizationTypeError as err:
    print(type(err).__name__)
