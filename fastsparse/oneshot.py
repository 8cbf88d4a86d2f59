"""The path of fastsparse 0.1 (`fastsparse.oneshot`), kept for one release: its names now live in `fastsparse.methods.oneshot`."""
from .methods.oneshot import CALIBRATED, LayerInputs, ONESHOT_METHODS, find_blocks, oneshot_report, per_row_mask, prune_oneshot, row_keeps, sparsegpt_prune, wanda_mask, wanda_score

__all__ = ['CALIBRATED', 'LayerInputs', 'ONESHOT_METHODS', 'find_blocks', 'oneshot_report', 'per_row_mask', 'prune_oneshot', 'row_keeps', 'sparsegpt_prune', 'wanda_mask', 'wanda_score']
