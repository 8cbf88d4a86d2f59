"""The path of fastsparse 0.1 (`fastsparse.grid`), kept for one release: its names now live in `fastsparse.experiments.grid`."""
from .experiments.grid import GRID_METHODS, GRID_PRESETS, grid_main, run_grid, summarize, time_left, write_results

__all__ = ['GRID_METHODS', 'GRID_PRESETS', 'grid_main', 'run_grid', 'summarize', 'time_left', 'write_results']
