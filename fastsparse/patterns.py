"""The path of fastsparse 0.1 (`fastsparse.patterns`), kept for one release: its names now live in `fastsparse.sparsity.patterns`."""
from .sparsity.patterns import Block, Channel, ConstantFanIn, NM, PATTERNS, Pattern, Unstructured, get_pattern

__all__ = ['Block', 'Channel', 'ConstantFanIn', 'NM', 'PATTERNS', 'Pattern', 'Unstructured', 'get_pattern']
