"""The path of fastsparse 0.1 (`fastsparse.schedule`), kept for one release: its names now live in `fastsparse.sparsity.schedule`."""
from .sparsity.schedule import MaskSchedule, Span, as_span, epochs, schedule_args, steps

__all__ = ['MaskSchedule', 'Span', 'as_span', 'epochs', 'schedule_args', 'steps']
