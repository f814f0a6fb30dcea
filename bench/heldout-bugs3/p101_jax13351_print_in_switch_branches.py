# Source: https://github.com/jax-ml/jax/issues/13351 ("Unexpected behavior in jax.lax.switch")
# The user expected `jax.lax.switch(0, functions_list)` to print only "a" and saw "a b c";
# soraros: "lax.switch traces all its branches, so side-effects will happen" ... use
# jax.debug.print. apaszke: "working as intended".
# Verbatim (the branches return a value so that switch has an output).
import jax


def fun_a():
    print('a')  # expect: JAX101
    return 0


def fun_b():
    print('b')
    return 1


def fun_c():
    print('c')
    return 2


functions_list=[fun_a,fun_b,fun_c]

print(jax.lax.switch(0,functions_list))
