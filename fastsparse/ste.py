"""The path of fastsparse 0.1 (`fastsparse.ste`), kept for one release: its names now live in `fastsparse.loop.fastai`, `fastsparse.methods.ste`."""
from .loop.fastai import STECallback
from .methods.ste import STEMask, STE_ALGORITHMS, is_ste, ste_finalize, ste_sparsify

__all__ = ['STECallback', 'STEMask', 'STE_ALGORITHMS', 'is_ste', 'ste_finalize', 'ste_sparsify']
