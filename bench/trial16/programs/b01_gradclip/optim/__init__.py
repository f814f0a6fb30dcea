from .utils import clip_by_global_norm, global_norm
from .sgd import make_step

__all__ = ["clip_by_global_norm", "global_norm", "make_step"]
