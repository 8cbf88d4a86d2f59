"""The path of fastsparse 0.1 (`fastsparse.optim`), kept for one release: its names now live in `fastsparse.loop.optim`."""
from .loop.optim import DynamicSparseTrainingOptimizerWrapper, PruningOptimizerWrapper, SparseOptimizerWrapper

__all__ = ['DynamicSparseTrainingOptimizerWrapper', 'PruningOptimizerWrapper', 'SparseOptimizerWrapper']
