"The whole public API of fastsparse: `from fastsparse.all import *` (or `from fastsparse import *`)."
import importlib as _importlib
from .core import *
from .data import *
from .schedule import *
from .rewire import *
from .callback import *
from .recorder import *
from .io import *
from .flops import *
from .train import *
from .patterns import *
from .prune import *
from .oneshot import *
from .activation import *
from .optim import *
from .recipes import *
from .ste import *
from .algorithms import *
from .export import *
from .structured import *
from .granet_mest import *
from .condensed import *
from .condense import *
from .grid import *
from .distributed import *

_MODULES = ('core', 'data', 'schedule', 'rewire', 'callback', 'recorder', 'io', 'flops', 'train', 'patterns', 'prune', 'oneshot', 'activation',
            'optim', 'recipes', 'ste', 'algorithms', 'export', 'structured', 'granet_mest', 'condensed', 'condense', 'grid',
            'distributed')
# a star import binds these names only: no submodule, and nothing that shadows a builtin or a standard-library module
__all__ = list(dict.fromkeys(n for m in _MODULES for n in _importlib.import_module(f'fastsparse.{m}').__all__))
