"""Training-step and mask-update cost of fastsparse against dense training, on CPU.

    python bench/bench_core.py [--repeats 7] [--out bench/RESULTS.md]

In one process, interleaved (dense, static, RigL, dense, static, RigL, ...), medians of repeats:
- fastai training steps of a small CNN and of LeNet-300-100, dense vs static masks vs RigL vs gradual magnitude
  pruning (90% sparse, ERK), as the median time of a step, with RigL's and the pruning callback's mask updates
  added at one per 100 steps;
- one RigL mask update over ResNet-50's weights (90% sparse, ERK) against one ResNet-50 training step;
- the memory the masks take, in bytes per masked weight.
"""
import argparse, statistics, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
import _machine                                          # the CPU's name and vector unit
import torch, torch.nn as nn
from fastai.basics import *
from fastsparse import *
from _common import make_dls, learner, BatchTimer, time_steps

def variants(make_model, x_shape, n_batches, bs, bpu):
    "name -> (learner, callbacks); all three train on the same `DataLoaders` object, so only the model differs"
    dls, out = make_dls(x_shape, n_batches, bs), {}
    for name in ('dense', 'static', 'rigl', 'prune'):
        learn = learner(make_model(), dls)
        cbs = []
        if name in ('static', 'rigl'): sparsify_model(learn.model, 0.9, sparse_f=erdos_renyi_sparsity)
        if name == 'rigl': cbs = [DynamicSparseTrainingCallback(**RigL_presets, every=bpu)]
        if name == 'prune':      # steady state of a gradual pruning run: 90% reached, the callback on every step
            prune_model(learn.model, 0.9, 'magnitude', distribution='erk')
            cbs = [PruningCallback(0.9, 'magnitude', distribution='erk', start=1., end=1.)]
        out[name] = (learn, cbs)
    return out

def update_time(learn, repeats):
    "Median time of one RigL mask update (drop and regrow 30%) on `learn`'s model, with dense gradients present"
    xb, yb = learn.dls.one_batch()
    if learn.opt is None: learn.create_opt()
    upd = RigL().start(learn.model, learn.opt)
    set_dense_grads(upd.sites, True)             # an update step sees the dense gradient
    learn.loss_func(learn.model(xb), yb).backward()
    set_dense_grads(upd.sites, False)
    ts = []
    for _ in range(repeats):
        t = time.perf_counter(); upd.update_masks(0.3); ts.append(time.perf_counter() - t)
    learn.opt.zero_grad()
    return statistics.median(ts)

def prune_update_time(learn, repeats):
    "Median time of one gradual-pruning mask update (magnitude scores, ERK targets) on `learn`'s model"
    sites = masked_sites(learn.model)
    sps = layer_sparsities(sites, 0.9, 'erk')
    ts = []
    for _ in range(repeats):
        t = time.perf_counter()
        prune_masks_(sites, sps, [weight_magnitude(s.weight, None) for s in sites], within_mask=True, opt=learn.opt)
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)

def bench_training(repeats):
    """Steady-state step time is the median over every training batch of all repeats (robust to the noise of a
    shared machine); RigL's mask updates, one every 100 optimizer steps in the paper, are added at that rate from
    their own median time, so the RigL column is the amortized cost of a long run."""
    rows = []
    cases = [('small CNN (3 conv blocks, 28x28x1, batch 128)', lambda: small_cnn(width=32), (1, 28, 28), 128, 50),
             ('LeNet-300-100 (784 inputs, batch 128)', lambda: lenet_300_100(), (784,), 128, 200)]
    for name, mk, shape, bs, nb in cases:
        vs = variants(mk, shape, nb, bs, bpu=10**9)   # updates are timed apart, below
        med = time_steps(vs, repeats)
        upd, pupd = update_time(vs['rigl'][0], repeats), prune_update_time(vs['prune'][0], repeats)
        d, s_, r, pr = med['dense'][0], med['static'][0], med['rigl'][0] + upd / 100, med['prune'][0] + pupd / 100
        rows.append((name, d, s_, r, upd, pr))
    return rows

def bench_update(repeats):
    from torchvision.models import resnet50
    torch.manual_seed(0)
    model = resnet50()
    opt = SGD(model.parameters(), lr=0.1, mom=0.9)
    x, y = torch.randn(32, 3, 224, 224), torch.randint(0, 1000, (32,))
    def step():
        loss = nn.functional.cross_entropy(model(x), y); loss.backward(); opt.step(); opt.zero_grad()
    h = sparsify_model(model, 0.9, sparse_f=erdos_renyi_sparsity)
    step()
    step_t = []
    for _ in range(max(3, repeats // 2)):
        t = time.perf_counter(); step(); step_t.append(time.perf_counter() - t)
    # one update, as the callback does it on an update step: dense gradients present, drop 30% and regrow
    upd = RigL().start(model, opt)
    set_dense_grads(upd.sites, True)             # an update step sees the dense gradient
    nn.functional.cross_entropy(model(x), y).backward()
    upd_t = []
    for _ in range(repeats):
        t = time.perf_counter(); upd.update_masks(0.3); upd_t.append(time.perf_counter() - t)
    n_w = sum(s.weight.numel() for s in upd.sites)
    mask_bytes = sum(s.mask.numel() * s.mask.element_size() for s in upd.sites)
    h.remove()
    return statistics.median(step_t), statistics.median(upd_t), n_w, mask_bytes / n_w

def main():
    p = argparse.ArgumentParser()
    p.add_argument('--repeats', type=int, default=11)
    p.add_argument('--out', default=str(Path(__file__).parent / 'RESULTS.md'))
    a = p.parse_args()
    torch.set_num_threads(max(1, torch.get_num_threads()))
    rows = bench_training(a.repeats)
    step_t, upd_t, n_w, bpw = bench_update(a.repeats)
    lines = [f"# fastsparse core benchmark", "",
             f"`python bench/bench_core.py --repeats {a.repeats}` on {_machine.cpu()}, "
             f"{torch.get_num_threads()} threads, torch {torch.__version__}; medians of {a.repeats} interleaved repeats.", "",
             "Step times are medians over every training batch of the interleaved epochs; the RigL and pruning columns",
             "add one mask update per 100 steps (the RigL paper's interval) at its own median time. Pruning is",
             "`PruningCallback(0.9, 'magnitude', distribution='erk')` at its target (the steady state of a gradual run).", "",
             "| model | dense ms/step | static ms/step | RigL ms/step (amortized) | pruning ms/step (amortized) | one RigL update, ms | static / dense | RigL / dense | pruning / dense |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, d, s, r, u, pr in rows:
        lines.append(f"| {name} | {d*1e3:.2f} | {s*1e3:.2f} | {r*1e3:.2f} | {pr*1e3:.2f} | {u*1e3:.2f} | {s/d:.3f} | {r/d:.3f} | {pr/d:.3f} |")
    lines += ["", f"One RigL mask update over ResNet-50's {n_w/1e6:.1f}M sparse weights (90%, ERK): {upd_t*1e3:.0f} ms; "
              f"one ResNet-50 training step (batch 32, 224x224): {step_t*1e3:.0f} ms; ratio {upd_t/step_t:.3f}.", "",
              f"Masks: {bpw:.2f} bytes per weight (bool); with `packed=True`, 1 bit per weight (0.125 bytes)."]
    text = "\n".join(lines) + "\n"
    print(text)
    Path(a.out).write_text(text)

if __name__ == '__main__': main()
