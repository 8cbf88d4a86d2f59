"The whole public API of fastsparse: `from fastsparse.all import *` (or `from fastsparse import *`)."
import importlib as _importlib

# every module of the package, in layer order (ops -> sparsity -> core -> methods, export -> loop -> experiments)
_MODULES = ('ops.select', 'ops.masks',
            'sparsity.patterns', 'sparsity.distributions', 'sparsity.schedule',
            'core.sites', 'core.hooks', 'core.sparsify', 'core.report', 'core.graph', 'core.distributed', 'core.flops',
            'methods.scores', 'methods.rewire', 'methods.dynamic', 'methods.prune', 'methods.oneshot', 'methods.ste',
            'methods.srigl', 'methods.chase', 'methods.granet', 'methods.mest', 'methods.activation',
            'export.condensed', 'export.convert', 'export.condense', 'export.format', 'export.checkpoint',
            'loop.recorder', 'loop.fastai', 'loop.flops', 'loop.optim', 'loop.checkpoint', 'loop.distributed', 'loop.api',
            'loop.recipes', 'experiments.data', 'experiments.train', 'experiments.grid')
_mods = [_importlib.import_module(f'fastsparse.{m}') for m in _MODULES]
# a star import binds these names only: no submodule, and nothing that shadows a builtin or a standard-library module
__all__ = list(dict.fromkeys(n for m in _mods for n in m.__all__))
globals().update({n: getattr(m, n) for m in _mods for n in m.__all__})
from .cli.train import main     # `fastsparse-train` as a function, as in 0.1
__all__.append('main')
