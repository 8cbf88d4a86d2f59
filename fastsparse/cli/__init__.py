"""The path of fastsparse 0.1 (`fastsparse.cli`), kept for one release: its names now live in `fastsparse.cli.train`."""
from .train import DATASETS, DISTRIBUTIONS, GRID_METHODS, GRID_PRESETS, METHODS, MODELS, folder, fraction, main, nm_sparsity, output_file, output_folder, parse_args, pattern, positive_float, positive_int, quiet_imports, seed

__all__ = ['DATASETS', 'DISTRIBUTIONS', 'GRID_METHODS', 'GRID_PRESETS', 'METHODS', 'MODELS', 'folder', 'fraction', 'main', 'nm_sparsity', 'output_file', 'output_folder', 'parse_args', 'pattern', 'positive_float', 'positive_int', 'quiet_imports', 'seed']
