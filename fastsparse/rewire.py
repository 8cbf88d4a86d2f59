"""The path of fastsparse 0.1 (`fastsparse.rewire`), kept for one release: its names now live in `fastsparse.methods.dynamic`, `fastsparse.methods.rewire`, `fastsparse.methods.scores`, `fastsparse.core.commit`."""
from .methods.dynamic import DynamicSparseUpdater, RigL, SET, SNFS, SparseUpdater
from .methods.rewire import ROADS, allocate, choose_road, drop_grow_, finite_grads, momentum_redistribution
from .core.commit import zero_opt_state_
from .methods.scores import ScoreNeeds, gradient_magnitude, gradient_momentum, opt_state, random_score, score_needs, sparse_score, weight_magnitude

__all__ = ['DynamicSparseUpdater', 'ROADS', 'RigL', 'SET', 'SNFS', 'ScoreNeeds', 'SparseUpdater', 'allocate', 'choose_road', 'drop_grow_', 'finite_grads', 'gradient_magnitude', 'gradient_momentum', 'momentum_redistribution', 'opt_state', 'random_score', 'score_needs', 'sparse_score', 'weight_magnitude', 'zero_opt_state_']
