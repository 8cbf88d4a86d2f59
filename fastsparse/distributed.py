"""The path of fastsparse 0.1 (`fastsparse.distributed`), kept for one release: its names now live in `fastsparse.core.distributed`, `fastsparse.loop.distributed`."""
from .core.distributed import broadcast_, sparse_digest, sync_sites_, world_size
from .loop.distributed import DDPTrainer, setup_ddp

__all__ = ['DDPTrainer', 'broadcast_', 'setup_ddp', 'sparse_digest', 'sync_sites_', 'world_size']
