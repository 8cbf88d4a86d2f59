"""The path of fastsparse 0.1 (`fastsparse.prune_cli`), kept for one release: its names now live in `fastsparse.cli.prune`."""
from .cli.prune import METHODS, calibration_windows, main, parse_args

__all__ = ['METHODS', 'calibration_windows', 'main', 'parse_args']
