from .rnn import StackedRNN
from .eqx_head import Head
from .data import load_windows
