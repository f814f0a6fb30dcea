import numpy as np


def make_batch(rng: np.random.Generator, batch_size=4, seq_len=12, vocab=50):
    lengths = rng.integers(3, seq_len + 1, size=batch_size)
    tokens = rng.integers(0, vocab, size=(batch_size, seq_len))
    mask = np.arange(seq_len)[None, :] < lengths[:, None]
    return {"tokens": tokens, "targets": np.roll(tokens, -1, axis=1), "mask": mask}
