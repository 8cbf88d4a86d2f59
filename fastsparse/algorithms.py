"""The path of fastsparse 0.1 (`fastsparse.algorithms`), kept for one release: its names now live in `fastsparse.loop.api`, `fastsparse.loop.optim`."""
from .loop.api import ALGORITHMS, Algorithm, get_sparse_algorithm, list_algorithms, register_algorithm, register_dynamic, register_score, sparse_callback
from .loop.optim import sparse_optimizer

__all__ = ['ALGORITHMS', 'Algorithm', 'get_sparse_algorithm', 'list_algorithms', 'register_algorithm', 'register_dynamic', 'register_score', 'sparse_callback', 'sparse_optimizer']
