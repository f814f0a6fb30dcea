from .buffer import Buffer, init_buffer, push
from .collect import collect
