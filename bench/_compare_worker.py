"""The measuring half of `bench_compare.py`, run in each library's own process.

    python bench/_compare_worker.py JOB SPEC_JSON OUT_JSON

JOB is `time` (interleaved step times and mask-update times of several variants of one model), `mem` (peak memory,
checkpoint size and mask density of one variant, in a fresh process of its own) or `r50` (one mask update over
ResNet-50's weights against one ResNet-50 training step; `r50mem`: the memory one such update adds).

A variant is `dense`, or `LIB:KIND` with LIB one of `fastsparse` (this repository), `prune` (torch.nn.utils.prune) or
`fs005` (the 2020 release, fastsparse 0.0.5, run in its own environment) and KIND one of `static`, `set`, `rigl`,
`rigl-step` (this fastsparse only: RigL growing by the update step's gradient instead of the sum since the last update).
This file also runs under fastsparse 0.0.5's environments (Python 3.8, torch 1.7, fastai 2.1): it keeps to what
they have."""
import json, os, platform, statistics, sys, tempfile, time, traceback
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
import torch, torch.nn as nn
from _common import fs_data, make_dls, learner, time_steps
from fastai.basics import set_seed, SGD

SPARSITY = 0.9

def fastsparse_lib():
    "The installed fastsparse, and whether it is the 2020 release"
    import fastsparse
    return fastsparse, getattr(fastsparse, '__version__', '') == '0.0.5'

def env_info():
    import fastai, fastcore
    info = dict(python=platform.python_version(), torch=torch.__version__, fastai=fastai.__version__,
                fastcore=fastcore.__version__, threads=torch.get_num_threads(), executable=sys.executable)
    try:
        import fastsparse
        info['fastsparse'] = getattr(fastsparse, '__version__', '?')
        if hasattr(fastsparse, 'kernels') or getattr(fastsparse, '__version__', '') != '0.0.5':
            from fastsparse import kernels
            import numba
            info['kernels'] = (f"numba {numba.__version__}, for updates of {kernels.MIN_WEIGHTS:,} weights or more"
                               if kernels.enabled else 'off')
    except ImportError: pass
    return info

# --- models and variants ---------------------------------------------------------------------------------------
SHAPES = dict(mlp=(784,), cnn=(1, 28, 28), resnet18=(3, 32, 32))

def build_model(key, seed=0):
    set_seed(seed)
    if key == 'mlp': return fs_data().lenet_300_100()
    if key == 'cnn': return fs_data().small_cnn(width=32)
    from torchvision import models
    if key == 'resnet18': return models.resnet18(num_classes=10)
    if key == 'resnet50': return models.resnet50()
    raise ValueError(key)

def load_masks(fn):
    "The shared initial masks, {module name: bool tensor}, written by bench_compare.py (npz: every numpy reads it)"
    import numpy as np
    with np.load(fn) as z: return {k: torch.from_numpy(z[k].astype(bool)) for k in z.files}

def presets(lib, kind):
    fs, _ = fastsparse_lib()
    if kind == 'rigl-step': return dict(fs.RigL_presets, growth_gradient='step')   # growth by the update step's gradient
    return dict(set=fs.SET_presets, rigl=fs.RigL_presets)[kind]

def build_variant(variant, spec, dls, bpu):
    "(learner, callbacks) for `variant`, with the shared masks of `spec['masks']`"
    learn = learner(build_model(spec['model'], spec.get('seed', 0)), dls, spec.get('seed', 0))
    lib, _, kind = variant.partition(':')
    cbs, model = [], learn.model
    if lib == 'dense': return learn, cbs
    masks = load_masks(spec['masks'])
    if lib == 'prune':
        from torch.nn.utils import prune
        for name, m in model.named_modules():
            if name in masks: prune.custom_from_mask(m, 'weight', masks[name])
        return learn, cbs
    fs, old = fastsparse_lib()
    if (lib == 'fs005') != old: raise RuntimeError(f"{variant} needs {'fastsparse 0.0.5' if lib == 'fs005' else 'this fastsparse'}, "
                                                 f"but this process imports fastsparse {fs.__version__}")
    fs.sparsify_model(model, SPARSITY, sparse_f=fs.erdos_renyi_sparsity)
    with torch.no_grad():
        for name, m in model.named_modules():
            if not hasattr(m, 'weight_mask'): continue
            if name not in masks: raise RuntimeError(f"{variant}: no shared mask for {name}")
            m.weight_mask.copy_(masks[name])                 # in place: the masks stay the buffers the library made
            m.weight.mul_(m.weight_mask)
        if not old:                                          # the records follow the shared masks
            for s in fs.masked_sites(model): s.record.sparsity = 1. - float(s.mask.float().mean())
        if old:                                              # 0.0.5 leaves a layer whose ERK sparsity is 0 unmasked
            for name, t in masks.items():
                m = dict(model.named_modules())[name]
                if not hasattr(m, 'weight_mask') and not bool(t.all()):
                    raise RuntimeError(f"fs005 left {name} dense, but its shared mask is sparse")
    if kind in ('set', 'rigl', 'rigl-step'): cbs = [fs.DynamicSparseTrainingCallback(**presets(lib, kind), every=bpu)]
    return learn, cbs

def mask_density(model):
    """Kept weights over all weights of the layers that have a mask (fastsparse and torch.prune's `weight_mask` buffers),
    or would have: 0.0.5 leaves a layer whose sparsity is 0 without one, so it counts as all ones here"""
    fs = sys.modules.get('fastsparse')
    ones = n = 0
    for m in model.modules():
        mask = getattr(m, 'weight_mask', None)
        if isinstance(mask, torch.Tensor): ones += int(mask.count_nonzero()); n += mask.numel()
        elif fs is not None and getattr(fs, '__version__', '') == '0.0.5' and fs.is_sparseable_module(m) \
                and isinstance(getattr(m, 'weight', None), torch.Tensor):
            ones += m.weight.numel(); n += m.weight.numel()
    return ones / n if n else None

def syncer(device):
    return torch.cuda.synchronize if str(device).startswith('cuda') else None

# --- one mask update ----------------------------------------------------------------------------------------------
def _timed(f, sync):
    if sync: sync()
    t = time.perf_counter(); f()
    if sync: sync()
    return time.perf_counter() - t

def prepare_update(variant, learn, xb, yb):
    """A function making one mask update of `variant` (drop and regrow 30%, as the first update of a run) on `learn`'s
    model, after the backward pass that gives it its gradient (dense, as the callback sees it on an update step), and
    a function putting the masks back as they were"""
    lib, _, kind = variant.partition(':')
    fs, old = fastsparse_lib()
    model = learn.model
    if learn.opt is None: learn.create_opt()
    cb = fs.DynamicSparseTrainingCallback(**presets(lib, kind))
    if old:
        cb.learn, cb.drop_grow_pct = learn, 0.3
        mods = list(fs.sparseable_modules(model))            # what its callback walks on an update step
        learn.loss_func(model(xb), yb).backward()
        saved = [(m, m.weight_mask.clone()) for m in mods if hasattr(m, 'weight_mask')]
        def upd():
            for m in mods: cb.rewire_module(m)
        def restore():
            for m, s in saved: m.weight_mask.data = s.clone()   # as 0.0.5 itself sets it
        return upd, restore
    upd = cb.updater.start(model, learn.opt)                 # the updater its callback drives
    fs.set_dense_grads(upd.sites, True)                      # an update step sees the dense gradient
    learn.loss_func(model(xb), yb).backward()
    fs.set_dense_grads(upd.sites, False)
    return (lambda: upd.update_masks(0.3)), (lambda: None)   # its updates keep every layer's count: nothing to restore

def update_times(variant, learn, xb, yb, repeats, sync):
    """Median time of one mask update of `variant`, and the mask density before and after one update (it should not
    change). 0.0.5's masks are put back after every update: its updates add weights (see the report)."""
    before = mask_density(learn.model)
    upd, restore = prepare_update(variant, learn, xb, yb)
    ts, after = [], None
    for _ in range(repeats):
        ts.append(_timed(upd, sync))
        if after is None: after = mask_density(learn.model)
        restore()
    learn.opt.zero_grad()
    return dict(update=statistics.median(ts), density_before=before, density_after_one_update=after)

# --- jobs ---------------------------------------------------------------------------------------------------------
def job_time(spec):
    "Interleaved step times of `spec['variants']` (one model), then the update time of each dynamic variant"
    device, sync = spec.get('device', 'cpu'), syncer(spec.get('device', 'cpu'))
    dls = make_dls(SHAPES[spec['model']], spec['nb'], spec['bs'], spec.get('seed', 0), device=device)
    vs = {v: build_variant(v, spec, dls, bpu=10**9) for v in spec['variants']}   # updates are timed apart, below
    med, reps = time_steps(vs, spec['repeats'], sync, per_repeat=True)
    xb, yb = dls.one_batch()
    out = dict(steps={k: dict(median=m, mean=a, per_repeat=reps[k]) for k, (m, a) in med.items()}, updates={}, env=env_info(),
               nb=spec['nb'], bs=spec['bs'], repeats=spec['repeats'])
    for v, (learn, _) in vs.items():
        if v.endswith((':set', ':rigl', ':rigl-step')):
            out['updates'][v] = update_times(v, learn, xb, yb, spec['repeats'], sync)
    return out

def rss_bytes():
    with open('/proc/self/statm') as f: return int(f.read().split()[1]) * os.sysconf('SC_PAGE_SIZE')

def reset_peak_rss():
    """Reset this process's peak RSS (VmHWM) to its current RSS (Linux >= 4.0). `getrusage`'s ru_maxrss cannot be
    reset, and a process started by `subprocess` inherits its parent's peak in it (vfork + exec), so it is not used."""
    try:
        with open('/proc/self/clear_refs', 'w') as f: f.write('5')
        return True
    except OSError: return False

def peak_rss_bytes():
    with open('/proc/self/status') as f:
        for l in f:
            if l.startswith('VmHWM:'): return int(l.split()[1]) * 1024

def job_mem(spec):
    """Peak memory of a short fit of one variant in this fresh process (dynamic variants update their masks every
    `spec['bpu']` steps), the size of its checkpoint and its masks' density afterwards"""
    device = spec.get('device', 'cpu')
    cuda = str(device).startswith('cuda')
    dls = make_dls(SHAPES[spec['model']], spec['nb'], spec['bs'], spec.get('seed', 0), device=device)
    v = spec['variant']
    if cuda: torch.cuda.synchronize(); torch.cuda.reset_peak_memory_stats(); base_cuda = torch.cuda.memory_allocated()
    base_rss, reset = rss_bytes(), reset_peak_rss()
    learn, cbs = build_variant(v, spec, dls, bpu=spec['bpu'])
    with learn.no_bar(), learn.no_logging(): learn.fit(1, cbs=cbs)
    out = dict(variant=v, base_rss=base_rss, peak_rss=peak_rss_bytes(), peak_reset=reset, env=env_info())
    out['grow_rss'] = out['peak_rss'] - base_rss
    if cuda: out['peak_cuda'] = torch.cuda.max_memory_allocated() - base_cuda
    out['density_after'] = mask_density(learn.model)
    with tempfile.TemporaryDirectory() as d:
        fn = Path(d) / 'ckpt.pth'
        if v.startswith('prune:'): torch.save(learn.model.state_dict(), fn)   # weight_orig + weight_mask per layer
        else:
            learn.path, learn.model_dir = Path(d), '.'
            learn.save('ckpt', with_opt=False)               # fastsparse: packed masks; 0.0.5 and dense: fastai's
        out['ckpt_bytes'] = fn.stat().st_size
    return out

def _r50(spec):
    "ResNet-50 (90% sparse, ERK, this process's library) with SGD and momentum, and a batch"
    model = build_model('resnet50', spec.get('seed', 0)).to(spec.get('device', 'cpu'))
    fs, old = fastsparse_lib()
    return model, fs, old

class _FakeLearner:
    "What the callbacks read on an update outside `fit`: the optimizer and the loss"
    def __init__(self, model, opt): self.model, self.opt, self.loss_func = model, opt, nn.functional.cross_entropy
    def create_opt(self): pass

def job_r50(spec):
    """One ResNet-50 training step (batch `spec['bs']`, 224x224, dense) and one mask update (SET, RigL) over its weights
    at 90% sparsity (ERK), with the library of this process"""
    device, sync = spec.get('device', 'cpu'), syncer(spec.get('device', 'cpu'))
    model, fs, old = _r50(spec)
    lib = 'fs005' if old else 'fastsparse'
    opt = SGD(list(model.parameters()), lr=0.1, mom=0.9)
    g = torch.Generator().manual_seed(0)
    x = torch.randn(spec['bs'], 3, 224, 224, generator=g).to(device)
    y = torch.randint(0, 1000, (spec['bs'],), generator=g).to(device)
    def step():
        loss = nn.functional.cross_entropy(model(x), y); loss.backward(); opt.step(); opt.zero_grad()
    step()                                                   # warm up (and create the momentum buffers)
    step_t = [_timed(step, sync) for _ in range(spec['step_repeats'])]
    fs.sparsify_model(model, SPARSITY, sparse_f=fs.erdos_renyi_sparsity)
    n_w = sum(m.weight.numel() for m in model.modules() if hasattr(m, 'weight_mask'))
    learn = _FakeLearner(model, opt)
    out = dict(step=statistics.median(step_t), step_times=step_t, n_weights=n_w, updates={}, env=env_info(), bs=spec['bs'])
    for kind in ('set', 'rigl'):
        out['updates'][f'{lib}:{kind}'] = update_times(f'{lib}:{kind}', learn, x, y, spec['update_repeats'], sync)
    return out

def job_r50mem(spec):
    """The memory one RigL update over ResNet-50's weights adds: growth of the peak RSS over the RSS before it (the
    gradient it needs, from a small batch, is computed before)"""
    device = spec.get('device', 'cpu')
    cuda = str(device).startswith('cuda')
    model, fs, old = _r50(spec)
    lib = 'fs005' if old else 'fastsparse'
    opt = SGD(list(model.parameters()), lr=0.1, mom=0.9)
    fs.sparsify_model(model, SPARSITY, sparse_f=fs.erdos_renyi_sparsity)
    x, y = torch.randn(2, 3, 32, 32).to(device), torch.zeros(2, dtype=torch.long).to(device)
    learn = _FakeLearner(model, opt)
    upd, _ = prepare_update(f'{lib}:rigl', learn, x, y)      # the backward pass, before the baseline
    if cuda: torch.cuda.synchronize(); torch.cuda.reset_peak_memory_stats()
    base, reset = rss_bytes(), reset_peak_rss()
    base_cuda = torch.cuda.memory_allocated() if cuda else 0
    upd()
    if cuda: torch.cuda.synchronize()
    out = dict(base_rss=base, peak_rss=peak_rss_bytes(), peak_reset=reset, env=env_info())
    out['grow_rss'] = out['peak_rss'] - base
    if cuda: out['peak_cuda'] = torch.cuda.max_memory_allocated() - base_cuda
    return out

JOBS = dict(time=job_time, mem=job_mem, r50=job_r50, r50mem=job_r50mem)

if __name__ == '__main__':
    job, spec, out = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
    try: res = dict(ok=True, **JOBS[job](spec))
    except Exception as e:
        res = dict(ok=False, error=f"{type(e).__name__}: {e}", traceback=traceback.format_exc())
    Path(out).write_text(json.dumps(res))
    sys.exit(0 if res['ok'] else 1)
