__version__ = "0.1.0"
from .all import *
from .all import __all__
