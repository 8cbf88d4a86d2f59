"""The path of fastsparse 0.1 (`fastsparse.recipes`), kept for one release: its names now live in `fastsparse.loop.recipes`."""
from .loop.recipes import EpochTablePruning, apply_table_step, check_epoch_table, flax_layer_names, load_recipe, prune_types, recipe_callbacks

__all__ = ['EpochTablePruning', 'apply_table_step', 'check_epoch_table', 'flax_layer_names', 'load_recipe', 'prune_types', 'recipe_callbacks']
