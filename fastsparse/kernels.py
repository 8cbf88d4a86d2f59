"""The path of fastsparse 0.1 (`fastsparse.kernels`), kept for one release: its names now live in `fastsparse.ops.kernels`."""
from .ops.kernels import MIN_WEIGHTS, enabled, rewire, usable, worth, zero_outside_

__all__ = ['MIN_WEIGHTS', 'enabled', 'rewire', 'usable', 'worth', 'zero_outside_']
