from .attention import ScaledAttention
