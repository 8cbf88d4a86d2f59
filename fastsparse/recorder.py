"""The path of fastsparse 0.1 (`fastsparse.recorder`), kept for one release: its names now live in `fastsparse.loop.history`, `fastsparse.loop.recorder`."""
from .loop.history import SparsityHistory, dead_units
from .loop.recorder import SparsityRecorder, mask_image, plot_sparsity, show_masks

__all__ = ['SparsityHistory', 'SparsityRecorder', 'dead_units', 'mask_image', 'plot_sparsity', 'show_masks']
