"""The path of fastsparse 0.1 (`fastsparse.condense`), kept for one release: its names now live in `fastsparse.export.condense`."""
from .export.condense import Im2colConv2d, SliceMaxPool2d, condense, inference_kernels, zero_units

__all__ = ['Im2colConv2d', 'SliceMaxPool2d', 'condense', 'inference_kernels', 'zero_units']
