"""The recorder's cost, in one process, interleaved: the same training with and without `SparsityRecorder`.

Per variant: median batch time (forward, backward, step and every callback around them) over all batches of the
interleaved fits, and median whole-fit time (which includes the one trace per fit and the epoch-end rows); plus
the time of one record against one RigL mask update."""
import statistics, sys, time
from pathlib import Path
import torch
sys.path.insert(0, str(Path(__file__).resolve().parent))
from fastai.basics import *
from fastsparse import *
from _common import make_dls, learner, BatchTimer

torch.set_num_threads(1)
REPEATS = int(sys.argv[1]) if len(sys.argv) > 1 else 9

def case(name, mk, shape, bs, nb, every):
    dls = make_dls(shape, nb, bs)
    vs = {}
    for rec in (False, True):
        learn = learner(mk(), dls)
        sparsify_model(learn.model, 0.9, sparse_f=erdos_renyi_sparsity)
        vs[rec] = learn
    timers = {k: BatchTimer() for k in vs}
    fits = {k: [] for k in vs}
    def fit(k):
        cb = DynamicSparseTrainingCallback(**RigL_presets, every=every)
        cb.add_recorder = k
        t = time.perf_counter()
        with vs[k].no_bar(), vs[k].no_logging(): vs[k].fit(1, cbs=[cb, timers[k]])
        return time.perf_counter() - t
    for k in vs: fit(k)                                   # warm up
    for k in vs: timers[k].times.clear()
    for r in range(REPEATS):
        for k in ((False, True) if r % 2 == 0 else (True, False)): fits[k].append(fit(k))
    step = {k: statistics.median(t.times) for k, t in timers.items()}
    whole = {k: statistics.median(v) for k, v in fits.items()}
    # one record against one RigL update, on the recorder-trained model
    learn = vs[True]
    h = SparsityHistory(learn.model).trace(dls.one_batch()[0])
    rt = []
    for _ in range(REPEATS):
        t = time.perf_counter(); h.record('update', 0, 0.); rt.append(time.perf_counter() - t)
    upd = RigL().start(learn.model, learn.opt)
    xb, yb = dls.one_batch()
    set_dense_grads(upd.sites, True); learn.loss_func(learn.model(xb), yb).backward(); set_dense_grads(upd.sites, False)
    ut = []
    for _ in range(REPEATS):
        t = time.perf_counter(); upd.update_masks(0.3); ut.append(time.perf_counter() - t)
    n_upd = fit_updates = None
    print(f"| {name} | every {every} | {step[False]*1e3:.3f} | {step[True]*1e3:.3f} | {step[True]/step[False]:.3f} | "
          f"{whole[False]*1e3:.1f} | {whole[True]*1e3:.1f} | {whole[True]/whole[False]:.3f} | "
          f"{statistics.median(rt)*1e3:.2f} | {statistics.median(ut)*1e3:.2f} |", flush=True)

print(f"torch {torch.__version__}, {torch.get_num_threads()} thread, {REPEATS} interleaved repeats\n")
print("| model | updates | ms/step without | ms/step with | ratio | ms/fit without | ms/fit with | ratio | one record, ms | one RigL update, ms |")
print("|---|---|---|---|---|---|---|---|---|---|")
for every in (10**9, 10):
    case('LeNet-300-100, batch 128, 50 batches', lambda: lenet_300_100(), (784,), 128, 50, every)
    case('small CNN, batch 128, 30 batches', lambda: small_cnn(width=32), (1, 28, 28), 128, 30, every)
