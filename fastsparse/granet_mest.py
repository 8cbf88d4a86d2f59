"""The path of fastsparse 0.1 (`fastsparse.granet_mest`), kept for one release: its names now live in `fastsparse.methods.granet`, `fastsparse.methods.mest`."""
from .methods.granet import GraNet, GraNet_presets
from .methods.mest import MEST, MEST_presets, elastic_mutation, mest_score

__all__ = ['GraNet', 'GraNet_presets', 'MEST', 'MEST_presets', 'elastic_mutation', 'mest_score']
