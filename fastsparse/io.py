"""The path of fastsparse 0.1 (`fastsparse.io`), kept for one release: its names now live in `fastsparse.export.checkpoint`, `fastsparse.loop.checkpoint`."""
from .export.checkpoint import SAFETENSORS_FORMAT, load_model, load_safetensors, masks_from_state_dict, save_model, save_safetensors, sparse_records
from .loop.checkpoint import rng_state, set_rng_state

__all__ = ['SAFETENSORS_FORMAT', 'load_model', 'load_safetensors', 'masks_from_state_dict', 'rng_state', 'save_model', 'save_safetensors', 'set_rng_state', 'sparse_records']
