"""The path of fastsparse 0.1 (`fastsparse.flops`), kept for one release: its names now live in `fastsparse.core.flops`, `fastsparse.loop.flops`."""
from .core.flops import count_flops, layer_flops, step_flops, trace_positions
from .loop.flops import FlopsCounter

__all__ = ['FlopsCounter', 'count_flops', 'layer_flops', 'step_flops', 'trace_positions']
