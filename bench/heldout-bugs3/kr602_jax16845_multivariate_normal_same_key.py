# Source: https://github.com/jax-ml/jax/issues/16845 ("Unexpected behavior in random number
# generation leading to inaccurate statistics")
# The reporter drew s1 ~ N(0, 1) and then s2 ~ N(s1, 1) expecting variance 2 and got about 4;
# jakevdp: "you are re-using the same key, which leads to generation of non-independent
# samples. If you want to generate independent random samples, you should first split the key".
# Verbatim (jax.numpy imported as `numpy` as the user did); the variance of s2 is printed.
from jax import numpy, random

key = random.PRNGKey(1337)
s1 = random.multivariate_normal(
    key, numpy.array([0]), numpy.eye(1), shape=(10000,)
)
s2 = random.multivariate_normal(key, s1, numpy.eye(1))  # expect: JAX602
print(numpy.cov(s2, rowvar=False))  # about 4, not 2
s3 = random.multivariate_normal(key, s1[:9998], numpy.eye(1))
print(numpy.cov(s3, rowvar=False))
