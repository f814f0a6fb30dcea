from .layers import PositionalMLP
