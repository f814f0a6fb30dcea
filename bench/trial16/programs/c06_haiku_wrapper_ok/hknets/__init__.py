from hknets.modules import MaskedPool
from hknets.nets import make_forward
from hknets.compile import compiled
