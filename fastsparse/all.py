"The whole public API of fastsparse: `from fastsparse.all import *` (or `from fastsparse import *`)."
import importlib as _importlib, pkgutil as _pkgutil
from pathlib import Path as _Path

# every module of the layered packages, in layer order; a new module is found here without being listed
_LAYERS = ('ops', 'sparsity', 'core', 'methods', 'export', 'loop', 'experiments')
_PRIVATE = {'ops.kernels', 'ops._numba'}       # reached through the updaters, not part of the star import
_MODULES = tuple(f'{p}.{m.name}' for p in _LAYERS for m in _pkgutil.iter_modules([str(_Path(__file__).parent / p)])
                 if f'{p}.{m.name}' not in _PRIVATE and not m.name.startswith('_'))
_mods = [_importlib.import_module(f'fastsparse.{m}') for m in _MODULES]
# a star import binds these names only: no submodule, and nothing that shadows a builtin or a standard-library module,
# nor a name of fastai's star imports that means something else (fastcore's `Span` tag; the schedule's `Span` stays
# `fastsparse.sparsity.schedule.Span`); `save_model` and `load_model` take fastai's arguments and keep the masks
_NOT_STARRED = {'Span'}
__all__ = list(dict.fromkeys(n for m in _mods for n in m.__all__ if n not in _NOT_STARRED))
globals().update({n: getattr(m, n) for m in _mods for n in m.__all__})
from .cli.train import main     # `fastsparse-train` as a function, as in 0.1
__all__.append('main')
