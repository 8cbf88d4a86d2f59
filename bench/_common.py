"""What the benchmarks share: synthetic data, the learner, the batch timer and interleaved timing.

Imported by `bench_core.py`, `bench_compare.py` and `_compare_worker.py`. The worker also runs in the environments of
the 2020 release (fastsparse 0.0.5 on Python 3.8, torch 1.7, fastai 2.1), so this file keeps to what those have:
Python 3.8 syntax and the fastai API of 2020."""
import importlib.util, statistics, time
from functools import partial
from pathlib import Path
import torch
from fastai.basics import Callback, Learner, CrossEntropyLossFlat, SGD, set_seed
import fastai.callback.progress               # Learner.no_bar, which fastai.basics does not bring

REPO = Path(__file__).resolve().parent.parent

def fs_data():
    """This repository's `fastsparse.data` (`tensor_dls` and the models): imported, or loaded from its file where the
    installed `fastsparse` is another one (0.0.5 has no `data` module)"""
    try:
        import fastsparse.data as d
        return d
    except ImportError: pass
    spec = importlib.util.spec_from_file_location('_fastsparse_data', str(REPO / 'fastsparse' / 'data.py'))
    d = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(d)
    return d

def make_dls(x_shape, n_batches, bs, seed=0, device=None):
    "Random inputs of shape `x_shape` and labels of 10 classes: `n_batches` training batches of `bs`, one validation batch"
    g = torch.Generator().manual_seed(seed)
    n = n_batches * bs
    x, y = torch.randn(n, *x_shape, generator=g), torch.randint(0, 10, (n,), generator=g)
    return fs_data().tensor_dls(x, y, x[:bs], y[:bs], bs=bs, seed=seed, device=device)

def learner(model, dls, seed=0):
    set_seed(seed)
    return Learner(dls, model, loss_func=CrossEntropyLossFlat(), opt_func=partial(SGD, mom=0.9), lr=0.01)

class BatchTimer(Callback):
    "Wall time of every training batch (forward, backward, step and the callbacks around them)"
    order = -100
    def __init__(self, sync=None): self.times, self.sync = [], sync   # `sync`: e.g. torch.cuda.synchronize on a GPU
    def before_batch(self):
        if self.sync is not None: self.sync()
        self.t0 = time.perf_counter()
    def after_batch(self):
        if self.sync is not None: self.sync()
        if self.training: self.times.append(time.perf_counter() - self.t0)

def time_steps(vs, repeats, sync=None, per_repeat=False):
    """Per-variant median batch time and mean batch time over `repeats` interleaved epochs (order reversed every repeat);
    with `per_repeat`, also each variant's median batch time of every repeat"""
    timers, reps = {k: BatchTimer(sync) for k in vs}, {k: [] for k in vs}
    for k, (learn, cbs) in vs.items():           # warm up
        with learn.no_bar(), learn.no_logging(): learn.fit(1, cbs=cbs)
    for r in range(repeats):
        for k in (list(vs) if r % 2 == 0 else list(vs)[::-1]):
            learn, cbs = vs[k]
            n0 = len(timers[k].times)
            with learn.no_bar(), learn.no_logging(): learn.fit(1, cbs=[*cbs, timers[k]])
            reps[k].append(statistics.median(timers[k].times[n0:]))
    res = {k: (statistics.median(t.times), statistics.fmean(t.times)) for k, t in timers.items()}
    return (res, reps) if per_repeat else res

def interleaved_runs(fns, repeats):
    "Seconds of every call of each function of `fns`, called in turn (order reversed every repeat) after a warm-up"
    from fastsparse.condensed import _time_interleaved
    return _time_interleaved(fns, repeats)
