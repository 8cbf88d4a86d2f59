"""The path of fastsparse 0.1 (`fastsparse.core`), kept for one release: its names now live in `fastsparse.core.hooks`, `fastsparse.core.report`, `fastsparse.core.sites`, `fastsparse.core.sparsify`, `fastsparse.ops.masks`, `fastsparse.ops.select`, `fastsparse.sparsity.distributions`."""
from .hooks import SparseHooks, enforce_masks, remove_sparse_hooks, set_dense_grads
from .report import mask_markers, record_update, sparsity_report, zero_preserving
from .sites import DEFAULT_SPARSE_TYPES, Site, SparseRecord, TransformersConv1D, lm_heads, masked_sites, sparse_params, sparse_sites, sparseable_modules
from .sparsify import apply_masks, init_kaiming_normal_sparse_, mask_grads_, pack_masks_, sparse_init_, sparsify_model, unpack_masks_, unsparsify_model
from ..ops.masks import mask_, mask_from_tensor, n_mask_bytes, n_ones, pack_mask, sparse_mask, sparse_mask_like, sparsity_from_tensor, unpack_mask
from ..ops.select import top_k_mask
from ..sparsity.distributions import DISTRIBUTIONS, erdos_renyi_sparsity, first_layer_dense_uniform, get_distribution, uniform_sparsity

__all__ = ['DEFAULT_SPARSE_TYPES', 'DISTRIBUTIONS', 'Site', 'SparseHooks', 'SparseRecord', 'TransformersConv1D', 'apply_masks', 'enforce_masks', 'erdos_renyi_sparsity', 'first_layer_dense_uniform', 'get_distribution', 'init_kaiming_normal_sparse_', 'lm_heads', 'mask_', 'mask_from_tensor', 'mask_grads_', 'mask_markers', 'masked_sites', 'n_mask_bytes', 'n_ones', 'pack_mask', 'pack_masks_', 'record_update', 'remove_sparse_hooks', 'set_dense_grads', 'sparse_init_', 'sparse_mask', 'sparse_mask_like', 'sparse_params', 'sparse_sites', 'sparseable_modules', 'sparsify_model', 'sparsity_from_tensor', 'sparsity_report', 'top_k_mask', 'uniform_sparsity', 'unpack_mask', 'unpack_masks_', 'unsparsify_model', 'zero_preserving']
