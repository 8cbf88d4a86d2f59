"""Training-step and mask-update cost of fastsparse against dense training, on CPU.

    python bench/bench_core.py [--repeats 7] [--out bench/RESULTS.md]

In one process, interleaved (dense, static, RigL, dense, static, RigL, ...), medians of repeats:
- one fastai epoch of fixed batches for a small CNN and for LeNet-300-100, dense vs static masks vs RigL
  (90% sparse, ERK, a mask update every 100 optimizer steps as in the RigL paper), as time per step;
- one RigL mask update over ResNet-50's weights (90% sparse, ERK) against one ResNet-50 training step;
- the memory the masks take, in bytes per masked weight.
"""
import argparse, platform, statistics, time
from pathlib import Path
import torch, torch.nn as nn
from fastai.basics import *
from fastsparse import *

def learner(model, x_shape, n_batches, bs, seed=0):
    set_seed(seed)
    g = torch.Generator().manual_seed(seed)
    n = n_batches * bs
    x, y = torch.randn(n, *x_shape, generator=g), torch.randint(0, 10, (n,), generator=g)
    dls = tensor_dls(x, y, x[:bs], y[:bs], bs=bs, seed=seed)
    return Learner(dls, model, loss_func=CrossEntropyLossFlat(), opt_func=partial(SGD, mom=0.9), lr=0.01)

def variants(make_model, x_shape, n_batches, bs, bpu):
    "name -> (learner, callbacks)"
    out = {}
    for name in ('dense', 'static', 'rigl'):
        learn = learner(make_model(), x_shape, n_batches, bs)
        cbs = []
        if name != 'dense': sparsify_model(learn.model, 0.9, sparse_f=erdos_renyi_sparsity)
        if name == 'rigl': cbs = [DynamicSparseTrainingCallback(**RigL_presets, batches_per_update=bpu)]
        out[name] = (learn, cbs)
    return out

def time_epochs(vs, repeats, n_batches):
    times = {k: [] for k in vs}
    for k, (learn, cbs) in vs.items():           # warm up
        with learn.no_bar(), learn.no_logging(): learn.fit(1, cbs=cbs)
    for _ in range(repeats):
        for k, (learn, cbs) in vs.items():
            with learn.no_bar(), learn.no_logging():
                t = time.perf_counter(); learn.fit(1, cbs=cbs); times[k].append((time.perf_counter() - t) / n_batches)
    return {k: statistics.median(v) for k, v in times.items()}

def bench_training(repeats):
    rows = []
    # each repeat fits one epoch; RigL's schedule restarts with each fit (drop fraction 0.3 cosine-annealed to zero
    # at 75% of it), and the update interval is chosen so that updates are at least as frequent as the RigL
    # paper's one per 100 steps: one per 100 steps for the CNN, three per 200 for the MLP
    cases = [('small CNN (3 conv blocks, 28x28x1, batch 128)', lambda: small_cnn(width=32), (1, 28, 28), 128, 100, 50),
             ('LeNet-300-100 (784 inputs, batch 128)', lambda: lenet_300_100(), (784,), 128, 200, 50)]
    for name, mk, shape, bs, nb, bpu in cases:
        vs = variants(mk, shape, nb, bs, bpu)
        med = time_epochs(vs, repeats, nb)
        rows.append((name, med['dense'], med['static'], med['rigl']))
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
    nn.functional.cross_entropy(model(x), y).backward()
    cb = DynamicSparseTrainingCallback(**RigL_presets)
    cb.sites = masked_sites(model)
    cb.learn = type('L', (), {'opt': opt})()
    upd_t = []
    for _ in range(repeats):
        t = time.perf_counter(); cb.update_masks(0.3); upd_t.append(time.perf_counter() - t)
    n_w = sum(s.weight.numel() for s in cb.sites)
    mask_bytes = sum(s.mask.numel() * s.mask.element_size() for s in cb.sites)
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
             f"`python bench/bench_core.py --repeats {a.repeats}` on {platform.processor() or platform.machine()}, "
             f"{torch.get_num_threads()} threads, torch {torch.__version__}; medians of {a.repeats} interleaved repeats.", "",
             "| model | dense ms/step | static ms/step | RigL ms/step | static / dense | RigL / dense |",
             "|---|---|---|---|---|---|"]
    for name, d, s, r in rows:
        lines.append(f"| {name} | {d*1e3:.2f} | {s*1e3:.2f} | {r*1e3:.2f} | {s/d:.3f} | {r/d:.3f} |")
    lines += ["", f"One RigL mask update over ResNet-50's {n_w/1e6:.1f}M sparse weights (90%, ERK): {upd_t*1e3:.0f} ms; "
              f"one ResNet-50 training step (batch 32, 224x224): {step_t*1e3:.0f} ms; ratio {upd_t/step_t:.3f}.", "",
              f"Masks: {bpw:.2f} bytes per weight."]
    text = "\n".join(lines) + "\n"
    print(text)
    Path(a.out).write_text(text)

if __name__ == '__main__': main()
