"""The path of fastsparse 0.1 (`fastsparse.export`), kept for one release: its names now live in `fastsparse.export.convert`, `fastsparse.export.format`."""
from .convert import SparseLinear, make_permanent, to_sparse_inference
from .format import INFERENCE_FORMAT, SPARSE_FORMAT, load_inference, load_sparse, save_inference, save_sparse, sparse_state_dict

__all__ = ['INFERENCE_FORMAT', 'SPARSE_FORMAT', 'SparseLinear', 'load_inference', 'load_sparse', 'make_permanent', 'save_inference', 'save_sparse', 'sparse_state_dict', 'to_sparse_inference']
