# Source: https://github.com/jax-ml/jax/issues/3567 ("Using iterator with fori_loop")
# "the iterator in the loop_fun doesn't work well ... The batch value is always same in a
# loop". The second, minimal example: `cnt += next(iterator)` in a fori_loop body; the body
# is traced once, so the iterator advances once and the sum is wrong.
# Verbatim (nd-02110114's example; expected vs actual printed).
import jax.lax as lax
import jax.numpy as jnp


def main():
    iterator = iter(range(10))

    def iterator_fori_loop():
        def body_fun(i, cnt):
            cnt += next(iterator)  # expect: JAX104
            return cnt

        return lax.fori_loop(0, 10, body_fun, jnp.int32(0))

    print("fori_loop sum:", int(iterator_fori_loop()), "(python sum of range(10) is 45)")


main()
