import optax

from lib.schedules import warmup_then_decay


def build_optimizer(cfg):
    lr = warmup_then_decay(cfg["lr"], cfg["warmup"])
    return optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(learning_rate=lr, weight_decay=1e-4))
