"""The path of fastsparse 0.1 (`fastsparse.activation`), kept for one release: its names now live in `fastsparse.methods.activation`."""
from .methods.activation import ActNM, ActSparse, prune_act_struct, prune_act_unstruct

__all__ = ['ActNM', 'ActSparse', 'prune_act_struct', 'prune_act_unstruct']
