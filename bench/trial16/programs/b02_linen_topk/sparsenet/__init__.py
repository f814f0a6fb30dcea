from sparsenet.model import SparseMLP

__all__ = ["SparseMLP"]
