from lib.schedules import warmup_then_decay
from lib.optim import build_optimizer
