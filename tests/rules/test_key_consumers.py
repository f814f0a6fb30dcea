"""JAX602 on keys that reach library consumers and project functions (`analysis/keys.py`:
`LIBRARY_FUNCTIONS`, `LIBRARY_METHODS`, derived uses, keys handed back, imported helpers).
Each row runs under the real library with `jax_debug_key_reuse`: the flagged program raises
`KeyReuseError` (or, where the library derives its numbers without consuming the key, as
flax does, draws identical numbers), and its valid counterpart runs cleanly and is not
flagged."""

from __future__ import annotations

import textwrap

import pytest

from jax_lsp.config import Settings
from jax_lsp.engine import check_source
from jax_lsp.workspace import Workspace
from tests.runtime import run_snippet

jax = pytest.importorskip("jax")
from jax.errors import KeyReuseError  # noqa: E402  (after the skip: JAX may be missing)

# (id, library to import, flagged program, valid program). A flagged program marks the
# reused line `# error`; `same = ...` says what it checks where the library derives its
# numbers without consuming the key (then JAX's checker accepts it: the numbers repeat).
ROWS = [
    (
        "flax-init-twice",
        "flax",
        """
        import flax.linen as nn
        import jax
        import jax.numpy as jnp

        model = nn.Dense(3)
        key = jax.random.key(0)
        encoder = model.init(key, jnp.ones((1, 4)))
        decoder = model.init(key, jnp.ones((1, 4)))  # error
        same = bool((encoder["params"]["kernel"] == decoder["params"]["kernel"]).all())
        """,
        """
        import flax.linen as nn
        import jax
        import jax.numpy as jnp

        model = nn.Dense(3)
        key = jax.random.key(0)
        enc_key, dec_key = jax.random.split(key)
        encoder = model.init(enc_key, jnp.ones((1, 4)))
        decoder = model.init(dec_key, jnp.ones((1, 4)))
        """,
    ),
    (
        "flax-apply-dropout-key-in-a-loop",
        "flax",
        """
        import flax.linen as nn
        import jax
        import jax.numpy as jnp

        class Net(nn.Module):
            @nn.compact
            def __call__(self, x):
                return nn.Dropout(0.5, deterministic=False)(nn.Dense(8)(x))

        net = Net()
        x = jnp.ones((1, 4))
        params = net.init(jax.random.key(1), x)
        dropout_key = jax.random.key(2)
        outs = []
        for step in range(2):
            outs.append(net.apply(params, x, rngs={"dropout": dropout_key}))  # error
        same = bool((outs[0] == outs[1]).all())
        """,
        """
        import flax.linen as nn
        import jax
        import jax.numpy as jnp

        class Net(nn.Module):
            @nn.compact
            def __call__(self, x):
                return nn.Dropout(0.5, deterministic=False)(nn.Dense(8)(x))

        net = Net()
        x = jnp.ones((1, 4))
        params = net.init(jax.random.key(1), x)
        dropout_key = jax.random.key(2)
        outs = []
        for step in range(2):
            dropout_key, step_key = jax.random.split(dropout_key)
            outs.append(net.apply(params, x, rngs={"dropout": step_key}))
        """,
    ),
    (
        "flax-dropout-module-applied-twice",
        "flax",
        """
        import flax.linen as nn
        import jax
        import jax.numpy as jnp

        key = jax.random.key(0)
        x = jnp.ones(8)
        dropout = nn.Dropout(0.5, deterministic=False)
        dropped = dropout.apply({}, x, rngs={"dropout": key})
        again = dropout.apply({}, x, rngs={"dropout": key})  # error
        same = bool((dropped == again).all())
        """,
        """
        import flax.linen as nn
        import jax
        import jax.numpy as jnp

        key = jax.random.key(0)
        mask_key, noise_key = jax.random.split(key)
        x = jnp.ones(8)
        dropout = nn.Dropout(0.5, deterministic=False)
        dropped = dropout.apply({}, x, rngs={"dropout": mask_key})
        again = dropout.apply({}, x, rngs={"dropout": noise_key})
        """,
    ),
    (
        "initializer",
        "flax",
        """
        import flax.linen as nn
        import jax

        kernel_init = nn.initializers.lecun_normal()

        def dense(key, n):
            return kernel_init(key, (n, n))

        def towers(key):
            return dense(key, 3), dense(key, 3)  # error

        towers(jax.random.key(0))
        """,
        """
        import flax.linen as nn
        import jax

        kernel_init = nn.initializers.lecun_normal()

        def dense(key, n):
            return kernel_init(key, (n, n))

        def towers(key):
            a, b = jax.random.split(key)
            return dense(a, 3), dense(b, 3)

        towers(jax.random.key(0))
        """,
    ),
    (
        "haiku-init-then-draw",
        "haiku",
        """
        import haiku as hk
        import jax
        import jax.numpy as jnp

        critic = hk.without_apply_rng(hk.transform(lambda x: hk.Linear(1)(x)))

        def setup(key):
            params = critic.init(key, jnp.ones((1, 4)))
            obs = jax.random.normal(key, (2, 4))  # error
            return params, obs

        setup(jax.random.key(0))
        """,
        """
        import haiku as hk
        import jax
        import jax.numpy as jnp

        critic = hk.without_apply_rng(hk.transform(lambda x: hk.Linear(1)(x)))

        def setup(key):
            init_key, obs_key = jax.random.split(key)
            params = critic.init(init_key, jnp.ones((1, 4)))
            obs = jax.random.normal(obs_key, (2, 4))
            return params, obs

        setup(jax.random.key(0))
        """,
    ),
    (
        "haiku-apply-and-dropout",
        "haiku",
        """
        import haiku as hk
        import jax
        import jax.numpy as jnp

        def forward(x):
            return hk.dropout(hk.next_rng_key(), 0.5, x)

        net = hk.transform(forward)
        x = jnp.ones((1, 8))
        params = net.init(jax.random.key(1), x)
        key = jax.random.key(2)
        a = net.apply(params, key, x)
        b = hk.dropout(key, 0.5, x)  # error
        """,
        """
        import haiku as hk
        import jax
        import jax.numpy as jnp

        def forward(x):
            return hk.dropout(hk.next_rng_key(), 0.5, x)

        net = hk.transform(forward)
        x = jnp.ones((1, 8))
        params = net.init(jax.random.key(1), x)
        apply_key, mask_key = jax.random.split(jax.random.key(2))
        a = net.apply(params, apply_key, x)
        b = hk.dropout(mask_key, 0.5, x)
        """,
    ),
    (
        "numpyro-seed-and-svi",
        "numpyro",
        """
        import jax
        import numpyro
        import numpyro.distributions as dist
        from numpyro import handlers
        from numpyro.infer import SVI, Trace_ELBO

        def model():
            numpyro.sample("x", dist.Normal(0.0, 1.0))

        def guide():  # (numpyro's AutoNormal reuses a key of its own under the checker)
            numpyro.sample("x", dist.Normal(numpyro.param("loc", 0.0), 1.0))

        key = jax.random.key(0)
        trace = handlers.trace(handlers.seed(model, key)).get_trace()
        svi = SVI(model, guide, numpyro.optim.Adam(0.1), Trace_ELBO())
        state = svi.init(key)  # error
        """,
        """
        import jax
        import numpyro
        import numpyro.distributions as dist
        from numpyro import handlers
        from numpyro.infer import SVI, Trace_ELBO

        def model():
            numpyro.sample("x", dist.Normal(0.0, 1.0))

        def guide():  # (numpyro's AutoNormal reuses a key of its own under the checker)
            numpyro.sample("x", dist.Normal(numpyro.param("loc", 0.0), 1.0))

        trace_key, svi_key = jax.random.split(jax.random.key(0))
        trace = handlers.trace(handlers.seed(model, trace_key)).get_trace()
        svi = SVI(model, guide, numpyro.optim.Adam(0.1), Trace_ELBO())
        state = svi.init(svi_key)
        """,
    ),
    (
        "numpyro-distribution-sample",
        "numpyro",
        """
        import jax
        import numpyro.distributions as dist

        prior = dist.Normal(0.0, 1.0)
        key = jax.random.key(0)
        a = prior.sample(key, (3,))
        b = prior.sample(key, (3,))  # error
        """,
        """
        import jax
        import numpyro.distributions as dist

        prior = dist.Normal(0.0, 1.0)
        key_a, key_b = jax.random.split(jax.random.key(0))
        a = prior.sample(key_a, (3,))
        b = prior.sample(key_b, (3,))
        """,
    ),
    (
        "distrax-sample-seed",
        "distrax",
        """
        import distrax
        import jax

        def act(key):
            policy = distrax.Normal(0.0, 1.0)
            action = policy.sample(seed=key)
            noise = jax.random.normal(key)  # error
            return action + noise

        act(jax.random.key(0))
        """,
        """
        import distrax
        import jax

        def act(key):
            sample_key, noise_key = jax.random.split(key)
            policy = distrax.Normal(0.0, 1.0)
            action = policy.sample(seed=sample_key)
            return action + jax.random.normal(noise_key)

        act(jax.random.key(0))
        """,
    ),
    (
        "equinox-layer-and-dropout",
        "equinox",
        """
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        key = jax.random.key(0)
        layer = eqx.nn.Linear(4, 4, key=key)
        dropped = eqx.nn.Dropout(0.5)(jnp.ones(4), key=key)  # error
        """,
        """
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        layer_key, drop_key = jax.random.split(jax.random.key(0))
        layer = eqx.nn.Linear(4, 4, key=layer_key)
        dropped = eqx.nn.Dropout(0.5)(jnp.ones(4), key=drop_key)
        """,
    ),
    (
        "haiku-apply-of-a-module-that-draws",
        "haiku",
        """
        import haiku as hk
        import jax
        import jax.numpy as jnp

        class NoisyLinear(hk.Module):
            def __call__(self, x):
                x = hk.Linear(2)(x)
                return x + jax.random.normal(hk.next_rng_key(), x.shape)

        model = hk.transform(lambda x: NoisyLinear()(x))
        rng = jax.random.key(0)
        x = jnp.ones((1, 3))
        params = model.init(rng, x)
        out = model.apply(params, rng, x)  # error
        """,
        """
        import haiku as hk
        import jax
        import jax.numpy as jnp

        class NoisyLinear(hk.Module):
            def __call__(self, x):
                x = hk.Linear(2)(x)
                return x + jax.random.normal(hk.next_rng_key(), x.shape)

        model = hk.transform(lambda x: NoisyLinear()(x))
        init_rng, apply_rng = jax.random.split(jax.random.key(0))
        x = jnp.ones((1, 3))
        params = model.init(init_rng, x)
        out = model.apply(params, apply_rng, x)
        """,
    ),
    (
        "haiku-inline-apply-of-a-function-that-draws",
        "haiku",
        """
        import haiku as hk
        import jax
        import jax.numpy as jnp

        def forward(x):
            return hk.dropout(hk.next_rng_key(), 0.5, x)

        x = jnp.ones((1, 8))
        params = hk.transform(forward).init(jax.random.key(1), x)
        key = jax.random.key(2)
        a = hk.transform(forward).apply(params, key, x)
        b = hk.transform(forward).apply(params, key, x)  # error
        """,
        """
        import haiku as hk
        import jax
        import jax.numpy as jnp

        def forward(x):
            return hk.dropout(hk.next_rng_key(), 0.5, x)

        x = jnp.ones((1, 8))
        params = hk.transform(forward).init(jax.random.key(1), x)
        first, second = jax.random.split(jax.random.key(2))
        a = hk.transform(forward).apply(params, first, x)
        b = hk.transform(forward).apply(params, second, x)
        """,
    ),
    (
        "haiku-inline-apply-in-a-helper",
        "haiku",
        """
        import haiku as hk
        import jax
        import jax.numpy as jnp

        def forward(x):
            return hk.dropout(hk.next_rng_key(), 0.5, x)

        def step(params, key, x):
            return hk.transform(forward).apply(params, key, x)

        x = jnp.ones((1, 8))
        params = hk.transform(forward).init(jax.random.key(1), x)
        key = jax.random.key(2)
        a = step(params, key, x)
        b = step(params, key, x)  # error
        """,
        """
        import haiku as hk
        import jax
        import jax.numpy as jnp

        def forward(x):
            return hk.dropout(hk.next_rng_key(), 0.5, x)

        def step(params, key, x):
            return hk.transform(forward).apply(params, key, x)

        x = jnp.ones((1, 8))
        params = hk.transform(forward).init(jax.random.key(1), x)
        first, second = jax.random.split(jax.random.key(2))
        a = step(params, first, x)
        b = step(params, second, x)
        """,
    ),
    (
        "helper-drawing-while-training",
        "jax",
        """
        import jax
        import jax.numpy as jnp

        def forward(x, key, train):
            if train:
                x = x * jax.random.bernoulli(key, 0.5, x.shape)
            return x.sum()

        key = jax.random.key(0)
        total = 0.0
        for x in [jnp.ones(3), jnp.ones(3)]:
            total += forward(x, key, train=True)  # error
        """,
        """
        import jax
        import jax.numpy as jnp

        def forward(x, key, train):
            if train:
                x = x * jax.random.bernoulli(key, 0.5, x.shape)
            return x.sum()

        key = jax.random.key(0)
        total = 0.0
        for x in [jnp.ones(3), jnp.ones(3)]:
            key, subkey = jax.random.split(key)
            total += forward(x, subkey, train=True)
        """,
    ),
    (
        "equinox-module-built-from-the-key",
        "equinox",
        """
        import equinox as eqx
        import jax.numpy as jnp
        import jax.random as jr

        class Model(eqx.Module):
            layers: list

            def __init__(self, key):
                k1, k2 = jr.split(key)
                self.layers = [eqx.nn.Linear(2, 2, key=k1), eqx.nn.Linear(2, 2, key=k2)]

        def make_model(key):
            return Model(key)

        key = jr.key(0)
        model = make_model(key)
        x = jr.normal(key, (2,))  # error
        """,
        """
        import equinox as eqx
        import jax.numpy as jnp
        import jax.random as jr

        class Model(eqx.Module):
            layers: list

            def __init__(self, key):
                k1, k2 = jr.split(key)
                self.layers = [eqx.nn.Linear(2, 2, key=k1), eqx.nn.Linear(2, 2, key=k2)]

        def make_model(key):
            return Model(key)

        model_key, data_key = jr.split(jr.key(0))
        model = make_model(model_key)
        x = jr.normal(data_key, (2,))
        """,
    ),
    (
        "equinox-stored-dropout-in-a-loop",
        "equinox",
        """
        import equinox as eqx
        import jax.numpy as jnp
        import jax.random as jr

        class Block(eqx.Module):
            linears: list
            drop: eqx.nn.Dropout

            def __init__(self, key):
                self.linears = [eqx.nn.Linear(2, 2, key=k) for k in jr.split(key, 2)]
                self.drop = eqx.nn.Dropout(0.5)

            def __call__(self, x, *, key):
                for linear in self.linears:
                    x = self.drop(linear(x), key=key)  # error
                return x

        Block(jr.key(0))(jnp.ones(2), key=jr.key(1))
        """,
        """
        import equinox as eqx
        import jax.numpy as jnp
        import jax.random as jr

        class Block(eqx.Module):
            linears: list
            drop: eqx.nn.Dropout

            def __init__(self, key):
                self.linears = [eqx.nn.Linear(2, 2, key=k) for k in jr.split(key, 2)]
                self.drop = eqx.nn.Dropout(0.5)

            def __call__(self, x, *, key):
                for linear in self.linears:
                    key, subkey = jr.split(key)
                    x = self.drop(linear(x), key=subkey)
                return x

        Block(jr.key(0))(jnp.ones(2), key=jr.key(1))
        """,
    ),
    (
        "stored-key-sampler-in-a-loop",
        "jax",
        """
        import jax

        class Sampler:
            def __init__(self, seed):
                self.rng = jax.random.key(seed)

            def sample(self, n):
                return jax.random.normal(self.rng, (n,))

        def batches(n):
            sampler = Sampler(0)
            return [sampler.sample(2) for _ in range(n)]  # error

        batches(3)
        """,
        """
        import jax

        class Sampler:
            def __init__(self, seed):
                self.rng = jax.random.key(seed)

            def sample(self, n):
                self.rng, key = jax.random.split(self.rng)
                return jax.random.normal(key, (n,))

        def batches(n):
            sampler = Sampler(0)
            return [sampler.sample(2) for _ in range(n)]

        batches(3)
        """,
    ),
    (
        "equinox-module-called-twice-with-one-key",
        "equinox",
        """
        import equinox as eqx
        import jax.numpy as jnp
        import jax.random as jr

        class Model(eqx.Module):
            linear: eqx.nn.Linear
            drop: eqx.nn.Dropout

            def __init__(self, key):
                self.linear = eqx.nn.Linear(2, 2, key=key)
                self.drop = eqx.nn.Dropout(0.5)

            def __call__(self, x, *, key):
                return self.drop(self.linear(x), key=key)

        def run(key):
            model_key, key = jr.split(key)
            model = Model(model_key)
            first = model(jnp.ones(2), key=key)
            second = model(jnp.ones(2), key=key)  # error
            return first, second

        run(jr.key(0))
        """,
        """
        import equinox as eqx
        import jax.numpy as jnp
        import jax.random as jr

        class Model(eqx.Module):
            linear: eqx.nn.Linear
            drop: eqx.nn.Dropout

            def __init__(self, key):
                self.linear = eqx.nn.Linear(2, 2, key=key)
                self.drop = eqx.nn.Dropout(0.5)

            def __call__(self, x, *, key):
                return self.drop(self.linear(x), key=key)

        def run(key):
            model_key, first_key, second_key = jr.split(key, 3)
            model = Model(model_key)
            first = model(jnp.ones(2), key=first_key)
            second = model(jnp.ones(2), key=second_key)
            return first, second

        run(jr.key(0))
        """,
    ),
    (
        "helper-hands-back-its-key",
        "jax",
        """
        import jax
        import jax.numpy as jnp

        def sample_action(key, logits):
            return jax.random.categorical(key, logits), key

        def run(key):
            actions = []
            for _ in range(3):
                action, key = sample_action(key, jnp.zeros(3))  # error
                actions.append(int(action))
            return actions

        run(jax.random.key(0))
        """,
        """
        import jax
        import jax.numpy as jnp

        def sample_action(key, logits):
            key, sub = jax.random.split(key)
            return jax.random.categorical(sub, logits), key

        def run(key):
            actions = []
            for _ in range(3):
                action, key = sample_action(key, jnp.zeros(3))
                actions.append(int(action))
            return actions

        run(jax.random.key(0))
        """,
    ),
]


def _flagged_lines(source: str, path: str = "example.py", workspace=None) -> list[int]:
    analysis = check_source(source, path, Settings(), workspace)
    return [f.span.start.line for f in analysis.findings if f.code == "JAX602"]


def _marked_line(source: str) -> int:
    return next(i for i, line in enumerate(source.split("\n")) if line.endswith("# error"))


@pytest.mark.parametrize(("name", "library", "invalid", "valid"), ROWS, ids=[r[0] for r in ROWS])
def test_flagged_reuse_misbehaves_under_the_library(name, library, invalid, valid):
    pytest.importorskip(library)
    invalid, valid = textwrap.dedent(invalid), textwrap.dedent(valid)
    assert _flagged_lines(invalid) == [_marked_line(invalid)]
    assert _flagged_lines(valid) == []
    with jax.debug_key_reuse(True):
        outcome = run_snippet(invalid)
        if "same = " in invalid:
            assert outcome.error is None, outcome.error
            assert outcome.namespace["same"] is True  # the numbers repeat
        else:
            assert isinstance(outcome.error, KeyReuseError), outcome.error
        clean = run_snippet(valid)
    assert clean.error is None, f"{name}: the valid program failed: {clean.error!r}"


# Programs handing one key twice to calls that leave it unread: JAX's checker accepts them, and
# they are not flagged.
UNREAD = [
    (
        "haiku-inline-apply-of-an-mlp",
        "haiku",
        """
        import haiku as hk
        import jax
        import jax.numpy as jnp

        def mlp(x):
            return hk.nets.MLP([4, 2])(x)

        x = jnp.ones((1, 3))
        params = hk.transform(mlp).init(jax.random.key(0), x)
        key = jax.random.key(1)
        a = hk.transform(mlp).apply(params, key, x)
        b = hk.transform(mlp).apply(params, key, x)
        """,
    ),
    (
        "haiku-apply-of-an-mlp",
        "haiku",
        """
        import haiku as hk
        import jax
        import jax.numpy as jnp

        model = hk.transform(lambda x: hk.nets.MLP([4, 2])(x))
        rng = jax.random.key(0)
        x = jnp.ones((1, 3))
        params = model.init(rng, x)
        out = model.apply(params, rng, x)
        again = model.apply(params, rng, x)
        """,
    ),
    (
        "haiku-apply-of-a-function-of-the-scope",
        "haiku",
        """
        import haiku as hk
        import jax
        import jax.numpy as jnp

        def main():
            def forward(x):
                return hk.Linear(2)(x)

            model = hk.transform(forward)
            rng = jax.random.key(0)
            x = jnp.ones((1, 3))
            params = model.init(rng, x)
            return model.apply(params, rng, x)

        main()
        """,
    ),
    (
        "equinox-mlp-called-with-its-key",
        "equinox",
        """
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        key = jax.random.key(0)
        mlp = eqx.nn.MLP(3, 2, 4, 1, key=key)
        first = mlp(jnp.ones(3), key=key)
        second = mlp(jnp.ones(3), key=key)
        """,
    ),
    (
        "flax-init-then-apply-with-the-dropout-key",
        "flax",
        """
        import flax.linen as nn
        import jax
        import jax.numpy as jnp

        class Net(nn.Module):
            @nn.compact
            def __call__(self, x, train):
                return nn.Dropout(0.5, deterministic=not train)(nn.Dense(3)(x))

        key = jax.random.key(0)
        x = jnp.ones((1, 3))
        variables = Net().init(key, x, train=False)
        out = Net().apply(variables, x, train=True, rngs={"dropout": key})
        """,
    ),
    (
        "equinox-dropout-switched-off",
        "equinox",
        """
        import equinox as eqx
        import jax.numpy as jnp
        import jax.random as jr

        class Block(eqx.Module):
            drop: eqx.nn.Dropout

            def __init__(self):
                self.drop = eqx.nn.Dropout(0.5, inference=True)

            def __call__(self, x, *, key):
                for _ in range(2):
                    x = self.drop(x, key=key)
                return x

        key = jr.key(0)
        out = Block()(jnp.ones(2), key=key)
        drop = eqx.nn.Dropout(0.5)
        first = drop(jnp.ones(2), key=key, inference=True)
        second = drop(jnp.ones(2), key=key, inference=True)
        """,
    ),
    (
        "helper-drawing-only-while-training",
        "jax",
        """
        import jax
        import jax.numpy as jnp

        def forward(w, x, key, train):
            if train:
                mask = jax.random.bernoulli(key, 0.5, x.shape)
                x = x * mask
            return x @ w

        key = jax.random.key(0)
        w = jnp.ones((3, 3))
        total = 0.0
        for x in [jnp.ones(3), jnp.ones(3)]:
            total += forward(w, x, key, train=False).sum()
        """,
    ),
    (
        "flax-apply-of-a-module-drawing-nothing",
        "flax",
        """
        import flax.linen as nn
        import jax
        import jax.numpy as jnp

        class Block(nn.Module):
            features: int = 3

            @nn.compact
            def __call__(self, x):
                x = nn.Dropout(0.5, deterministic=True)(nn.Dense(self.features)(x))
                return nn.LayerNorm()(nn.relu(x))

        class MLP(nn.Module):
            @nn.compact
            def __call__(self, x):
                return nn.Dense(1)(Block()(x))

        model = MLP()
        x = jnp.ones((2, 4))
        variables = model.init(jax.random.key(1), x)
        key = jax.random.key(0)
        first = model.apply(variables, x, rngs={"dropout": key})
        again = model.apply(variables, x, rngs={"dropout": key})
        """,
    ),
    (
        "dropout-leaving-early-by-default",
        "jax",
        """
        import jax
        import jax.numpy as jnp

        def dropout(x, key, rate=0.5, deterministic=True):
            if deterministic or rate == 0.0:
                return x
            return x * jax.random.bernoulli(key, 1 - rate, x.shape) / (1 - rate)

        def evaluate(xs, key):
            return [dropout(x, key) for x in xs]

        outs = evaluate([jnp.ones(3), jnp.ones(3)], jax.random.key(0))
        """,
    ),
    (
        "wrapper-passing-the-flag-on",
        "jax",
        """
        import jax
        import jax.numpy as jnp

        def forward(x, key, train):
            if not train:
                return x.sum()
            return (x * jax.random.bernoulli(key, 0.5, x.shape)).sum()

        def loss(x, key, train):
            return forward(x, key, train) ** 2

        key = jax.random.key(0)
        losses = [loss(x, key, False) for x in [jnp.ones(3), jnp.ones(3)]]
        """,
    ),
]


@pytest.mark.parametrize(("name", "library", "source"), UNREAD, ids=[r[0] for r in UNREAD])
def test_key_left_unread_is_no_reuse(name, library, source):
    pytest.importorskip(library)
    source = textwrap.dedent(source)
    assert _flagged_lines(source) == []
    with jax.debug_key_reuse(True):
        outcome = run_snippet(source)
    assert outcome.error is None, f"{name}: JAX's checker rejects it: {outcome.error!r}"


def test_optimizer_init_is_no_key_use():
    """`opt.init(params)` twice takes no key: only a key-named argument counts."""
    source = textwrap.dedent(
        """
        import jax
        import optax

        params = {"w": jax.random.normal(jax.random.key(0), (3,))}
        opt = optax.adam(1e-3)
        first = opt.init(params)
        again = opt.init(params)
        """
    )
    assert _flagged_lines(source) == []


def test_one_key_seeding_two_numpyro_programs_is_a_replay():
    """A model and its guide seeded with one key subsample the same plate: by intent."""
    source = textwrap.dedent(
        """
        import jax
        from numpyro.handlers import seed

        def run(model, guide, key):
            plate_key, key = jax.random.split(key)
            return seed(model, plate_key), seed(guide, plate_key)
        """
    )
    assert _flagged_lines(source) == []


def test_flax_init_then_a_draw_is_no_reuse():
    """flax folds the module path into the key: a `jax.random` draw after `init` meets none of
    its numbers, and JAX's checker accepts it."""
    source = textwrap.dedent(
        """
        import flax.linen as nn
        import jax
        import jax.numpy as jnp

        key = jax.random.key(0)
        params = nn.Dense(3).init(key, jnp.ones((1, 4)))
        noise = jax.random.normal(key, (3,))
        """
    )
    assert _flagged_lines(source) == []
    with jax.debug_key_reuse(True):
        assert run_snippet(source).error is None


IMPORTED = {
    "pkg/__init__.py": "",
    "pkg/sampling.py": """
        import jax
        import flax.linen as nn

        kernel_init = nn.initializers.glorot_normal()
        model = nn.Dropout(0.5, deterministic=False)

        def dense(key, n):
            return kernel_init(key, (n, n))

        def sample_action(key, logits):
            return jax.random.categorical(key, logits), key

        def fresh_action(key, logits):
            key, sub = jax.random.split(key)
            return jax.random.categorical(sub, logits), key

        @jax.jit
        def train_step(x, dropout_key):
            def loss(x):
                return model.apply({}, x, rngs={"dropout": dropout_key}).sum()

            return jax.grad(loss)(x)
        """,
    "pkg/main.py": """
        import jax
        import jax.numpy as jnp

        from .sampling import dense, fresh_action, sample_action, train_step

        def towers(key):
            return dense(key, 3), dense(key, 3)  # error

        def bandit(key, other_key):
            actions = []
            for _ in range(3):
                action, key = sample_action(key, jnp.zeros(3))  # error
                actions.append(action)
            good = []
            for _ in range(3):
                action, other_key = fresh_action(other_key, jnp.zeros(3))
                good.append(action)
            return actions, good

        def train(key, x):
            dropout_key = jax.random.fold_in(key, 1)
            for _ in range(3):
                x = train_step(x, dropout_key)  # error
            return x
        """,
}


def test_imported_functions_carry_their_key_facts(tmp_path):
    for name, text in IMPORTED.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text))
    main = tmp_path / "pkg/main.py"
    source = main.read_text()
    marked = [i for i, line in enumerate(source.split("\n")) if line.endswith("# error")]
    flagged = _flagged_lines(source, str(main), Workspace(str(tmp_path)))
    assert flagged == marked


def test_imported_helper_drawing_only_while_training(tmp_path):
    """An imported function reads its key only when training (`key_conditions`): a call
    passing `train=False`, or leaving `deterministic=True`, leaves the key unread."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "model.py").write_text(
        textwrap.dedent(
            """
            import jax

            def forward(w, x, key, train):
                if train:
                    x = x * jax.random.bernoulli(key, 0.5, x.shape)
                return x @ w

            def dropout(x, key, deterministic=True):
                if deterministic:
                    return x
                return x * jax.random.bernoulli(key, 0.5, x.shape)
            """
        )
    )
    source = textwrap.dedent(
        """
        import jax

        from .model import dropout, forward

        def evaluate(w, xs, key):
            total = 0.0
            for x in xs:
                total += forward(w, x, key, train=False).sum()
            for x in xs:
                total += dropout(x, key).sum()
            return total

        def train(w, xs, key):
            total = 0.0
            for x in xs:
                total += forward(w, x, key, True).sum()  # error
            return total
        """
    )
    main = package / "train.py"
    main.write_text(source)
    flagged = _flagged_lines(source, str(main), Workspace(str(tmp_path)))
    assert flagged == [_marked_line(source)]


LINEN_LAYERS = """
import flax.linen as nn


class Quiet(nn.Module):
    features: int = 3

    @nn.compact
    def __call__(self, x):
        return nn.relu(nn.Dense(self.features)(x))


class Noisy(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dropout(0.5, deterministic=False)(nn.Dense(3)(x))


class Holding(nn.Module):
    inner: nn.Module

    def __call__(self, x):
        return self.inner(x)
"""

LINEN_MAIN = """
import jax
import jax.numpy as jnp

from .layers import Holding, Noisy, Quiet


def run():
    key = jax.random.key(0)
    x = jnp.ones((2, 4))
    quiet = Quiet()
    v = quiet.init(jax.random.key(1), x)
    a = quiet.apply(v, x, rngs={"dropout": key})
    b = quiet.apply(v, x, rngs={"dropout": key})
    noisy = Noisy()
    w = noisy.init(jax.random.key(2), x)
    c = noisy.apply(w, x, rngs={"dropout": key})
    d = noisy.apply(w, x, rngs={"dropout": key})  # error
    held = Holding(Noisy())
    h = held.init(jax.random.key(3), x)
    other = jax.random.key(9)
    e = held.apply(h, x, rngs={"dropout": other})
    f = held.apply(h, x, rngs={"dropout": other})  # error
    return bool((a == b).all()), bool((c == d).all()), bool((e == f).all())


same = run()
"""


def test_imported_linen_module_drawing_nothing_reads_no_apply_key(tmp_path):
    """`apply(..., rngs={"dropout": key})` twice with one key repeats random numbers only
    where the module draws: an imported module drawing nothing (its class's facts say so)
    is not flagged; one with a dropout layer, or holding a module it was given, is."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "layers.py").write_text(LINEN_LAYERS)
    main = package / "main.py"
    main.write_text(LINEN_MAIN)
    flagged = _flagged_lines(LINEN_MAIN, str(main), Workspace(str(tmp_path)))
    marked = [i for i, line in enumerate(LINEN_MAIN.split("\n")) if line.endswith("# error")]
    assert flagged == marked
    # Under flax (JAX's checker on) the key changes the outputs of the modules that draw
    # only: reusing it repeats their dropout masks, and repeats nothing of the quiet one.
    program = LINEN_LAYERS + LINEN_MAIN.replace("from .layers import Holding, Noisy, Quiet", "")
    check = textwrap.dedent(
        """
        x = jnp.ones((2, 4))
        keys = jax.random.key(5), jax.random.key(6)
        def varies(model):
            v = model.init(jax.random.key(1), x)
            a, b = (model.apply(v, x, rngs={"dropout": k}) for k in keys)
            return not bool((a == b).all())
        assert same == (True, True, True)
        assert (varies(Quiet()), varies(Noisy()), varies(Holding(Noisy()))) == (False, True, True)
        """
    )
    with jax.debug_key_reuse(True):
        outcome = run_snippet(program, check)
    assert outcome.error is None, outcome.error
