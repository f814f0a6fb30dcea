import numpy as np


def load_windows(n, length, dim, seed=0):
    rng = np.random.default_rng(seed)
    series = rng.standard_normal((n + length, dim)).cumsum(0)
    windows = np.zeros((n, length, dim), dtype=np.float32)
    for i in range(n):
        windows[i] = series[i : i + length]
    windows[:, :, 0] -= windows[:, :1, 0]
    lengths = rng.integers(length // 2, length + 1, size=n)
    return windows, lengths
