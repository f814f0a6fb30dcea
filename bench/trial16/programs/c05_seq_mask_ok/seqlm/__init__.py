from seqlm.losses import masked_xent
from seqlm.data import make_batch
