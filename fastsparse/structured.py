"""The path of fastsparse 0.1 (`fastsparse.structured`), kept for one release: its names now live in `fastsparse.core.graph`, `fastsparse.methods.chase`, `fastsparse.methods.srigl`."""
from .core.graph import ChannelLink, channel_links
from .methods.chase import Chase
from .methods.srigl import SRigL, UnitRemovingUpdater, ablate_units_, fan_ins, unit_tensors, zero_ablated_

__all__ = ['ChannelLink', 'Chase', 'SRigL', 'UnitRemovingUpdater', 'ablate_units_', 'channel_links', 'fan_ins', 'unit_tensors', 'zero_ablated_']
