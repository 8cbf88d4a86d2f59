"""The path of fastsparse 0.1 (`fastsparse.train`), kept for one release: its names now live in `fastsparse.cli.train`, `fastsparse.experiments.train`."""
from .cli.train import main
from .experiments.train import DATASETS, METHODS, MODELS, make_learner, train

__all__ = ['DATASETS', 'METHODS', 'MODELS', 'main', 'make_learner', 'train']
