"The whole public API of fastsparse: `from fastsparse.all import *` (or `from fastsparse import *`)."
from .core import *
from .data import *
from .callback import *
from .io import *
from .flops import *
from .train import *
from .patterns import *
from .prune import *
from .activation import *
from .optim import *
from .recipes import *
from .ste import *
from .algorithms import *
from .export import *
from .grid import *
from .distributed import *
