"""The path of fastsparse 0.1 (`fastsparse.condensed`), kept for one release: its names now live in `fastsparse.export.condensed`."""
from .export.condensed import CONDENSED_KERNELS, CondensedLinear, available_kernels, choose_kernel, condensed_linear

__all__ = ['CONDENSED_KERNELS', 'CondensedLinear', 'available_kernels', 'choose_kernel', 'condensed_linear']
