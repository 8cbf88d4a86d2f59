"""The path of fastsparse 0.1 (`fastsparse.callback`), kept for one release: its names now live in `fastsparse.loop.fastai`."""
from .loop.fastai import DynamicSparseTrainingCallback, PAPER_UPDATE_INTERVALS, RigL_presets, SET_presets, SNFS_presets, SparseCallback, Static_presets

__all__ = ['DynamicSparseTrainingCallback', 'PAPER_UPDATE_INTERVALS', 'RigL_presets', 'SET_presets', 'SNFS_presets', 'SparseCallback', 'Static_presets']
