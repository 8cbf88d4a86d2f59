__version__ = "0.1.0"
# The public API (`fastsparse.all`) imports torch and fastai, which takes seconds: it is imported on the first
# attribute that needs it (PEP 562), so that `import fastsparse.cli`, the parser of `fastsparse-train`, stays light.
# `from fastsparse import *`, `fastsparse.sparsify_model` and `dir(fastsparse)` work as if it were imported here.
import importlib as _importlib, importlib.util as _util

_state = dict(loaded=False, loading=False)

def _load():
    "Import `fastsparse.all` (quietly) and bind its public names here, as `from .all import *` does"
    if _state['loaded'] or _state['loading']: return
    _state['loading'] = True
    try:
        from .cli.train import quiet_imports
        with quiet_imports(): api = _importlib.import_module('.all', __name__)
        globals().update({n: getattr(api, n) for n in api.__all__}, __all__=api.__all__)
        _state['loaded'] = True
    finally: _state['loading'] = False

def __getattr__(name):
    def missing(): return AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name.startswith('__') and name != '__all__': raise missing()
    if _util.find_spec(f'{__name__}.{name}') is not None:      # a submodule, imported alone (`fastsparse.cli`: no torch)
        m = _importlib.import_module(f'.{name}', __name__)
        if name not in getattr(m, '__all__', ()): return m
        _load()                                                  # `fastsparse.train`, the function, as before
        return globals()[name] if _state['loaded'] else m
    if (name.startswith('_') and name != '__all__') or _state['loading'] or _state['loaded']: raise missing()
    _load()
    if name in globals(): return globals()[name]
    raise missing()

def __dir__():
    _load()
    return sorted(n for n in globals() if n[:1] != '_' or n[:2] == '__' and n not in ('__getattr__', '__dir__'))
