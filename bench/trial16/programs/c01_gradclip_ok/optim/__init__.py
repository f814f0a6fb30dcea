from .utils import clip_by_global_norm, global_norm
from .sgd import make_step
