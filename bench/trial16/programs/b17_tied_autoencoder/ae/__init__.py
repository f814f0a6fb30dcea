from ae.params import init_autoencoder
from ae.model import reconstruct
