"""The path of fastsparse 0.1 (`fastsparse.prune`), kept for one release: its names now live in `fastsparse.loop.fastai`, `fastsparse.methods.prune`, `fastsparse.sparsity.distributions`."""
from .loop.fastai import PruningCallback
from .methods.prune import PRUNING_ALGORITHMS, PruningUpdater, get_pruning_algorithm, polynomial_sparsity, prune_masks_, prune_model, saliency
from .sparsity.distributions import layer_sparsities

__all__ = ['PRUNING_ALGORITHMS', 'PruningCallback', 'PruningUpdater', 'get_pruning_algorithm', 'layer_sparsities', 'polynomial_sparsity', 'prune_masks_', 'prune_model', 'saliency']
