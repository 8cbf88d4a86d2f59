"""Training that gets faster as Chase and SRigL remove units: `shrink=True` against the masked run and against dense.

    flock /work/timing.lock python bench/bench_shrink.py [--quick] [--out bench/SHRINK.md]

1. LeNet-5 (Fashion-MNIST if `fashion_mnist_dls` finds it, else scikit-learn's digits upsampled to 28x28), Adam
   one-cycle, in a plain loop (`sparse_optimizer`), 3 seeds: dense, Chase (90% weight sparsity, channel sparsity
   0.5) masked and shrunk, SRigL (90%, constant fan-in) masked and shrunk. The five runs train in lockstep, one step
   each in turn on the same batch (the order rotating every step), so that they share the machine's load; per-step
   ratios pair each run's step with dense's. Step time over the run (median of each tenth of the steps), training
   time (the sum of the steps), final accuracy.
2. A narrow VGG-11 with BatchNorm on 32x32 inputs (the same images upsampled), 3 seeds (`--vgg-seeds`): the same
   five runs.
   For each shrunk run of 1 and 2, a plain copy of its final model (masks, hooks and method taken off) trained in turn
   with a copy of dense: the most that cutting those units can give, set beside what the shrunk run got.
3. ResNet-18 with the CIFAR stem (16x16 inputs, to fit a CPU run), Chase with shrink=True in lockstep with dense:
   step time before the first channel goes and after the last, and which layers keep their channels and why.

Step times are medians and ratios, taken inside this one process; the machine is shared, so the spread is given
where there are repeats. Run it under `flock /work/timing.lock` so that no other timing run overlaps.
"""
import argparse, copy, json, statistics, time, warnings
from functools import partial
from pathlib import Path
import torch, torch.nn as nn, torch.nn.functional as F
from fastsparse.all import *
from fastsparse.core.sites import masked_sites
from fastsparse.experiments.data import lenet5, tensor_dls, resnet18_cifar

warnings.filterwarnings('ignore', category=UserWarning)

def images(size):
    "(train x, train y, valid x, valid y, name): Fashion-MNIST if found, else the digits upsampled to `size`"
    try:
        dls = fashion_mnist_dls(flat=False, bs=64, n_train=6000)
        xt, yt = dls.train_ds.tensors if hasattr(dls.train_ds, 'tensors') else map(torch.stack, zip(*dls.train_ds))
        xv, yv = map(torch.stack, zip(*dls.valid_ds))
        name = 'Fashion-MNIST (6,000 training images)'
    except FileNotFoundError:
        from sklearn.datasets import load_digits
        d = load_digits()
        x = torch.tensor(d.data / 16., dtype=torch.float32).view(-1, 1, 8, 8)
        y = torch.tensor(d.target, dtype=torch.long)
        idx = torch.randperm(len(x), generator=torch.Generator().manual_seed(42))
        v, t = idx[:360], idx[360:]
        xt, yt, xv, yv = x[t], y[t], x[v], y[v]
        name = "scikit-learn's digits (1,437 training, 360 validation images, 8x8 upsampled)"
    if xt.shape[-1] != size:
        xt, xv = (F.interpolate(a, size=(size, size), mode='bilinear', align_corners=False) for a in (xt, xv))
    return xt, yt, xv, yv, name

def vgg11_narrow(c_in=1, n_out=10, w=(16, 32, 64, 64, 128, 128, 128, 128)):
    "VGG-11 with BatchNorm, narrow (16 to 128 channels), for 32x32 inputs"
    layers, c, pools = [], c_in, {0, 1, 3, 5, 7}
    for i, o in enumerate(w):
        layers += [nn.Conv2d(c, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU()]
        if i in pools: layers.append(nn.MaxPool2d(2))
        c = o
    return nn.Sequential(*layers, nn.Flatten(), nn.Linear(c, 64), nn.ReLU(), nn.Linear(64, n_out))

VARIANTS = {'dense': None,
            'chase masked': dict(method='chase', channel_sparsity=0.5),
            'chase shrink': dict(method='chase', channel_sparsity=0.5, shrink=True),
            'srigl masked': dict(method='srigl'),
            'srigl shrink': dict(method='srigl', shrink=True)}

class Run:
    "One model, its Adam with a one-cycle schedule and, unless dense, its sparse method, trained one step at a time"
    def __init__(self, make_model, variant, seed, total, every, lr=3e-3, sparsity=0.9, **extra):
        torch.manual_seed(seed)
        self.model = make_model()
        self.opt = torch.optim.Adam(self.model.parameters(), lr=lr)
        self.sched = torch.optim.lr_scheduler.OneCycleLR(self.opt, max_lr=lr, total_steps=total)
        v = VARIANTS[variant]
        self.w = None
        if v is not None:
            v = {**v, **extra}
            self.w = sparse_optimizer(v.pop('method'), self.model, self.opt, sparsity, total_steps=total, every=every, **v)
        self.times, self.units = [], []

    def step(self, x, y):
        t0 = time.perf_counter()
        loss = F.cross_entropy(self.model(x), y)
        (self.w or self.opt).zero_grad(); loss.backward(); (self.w or self.opt).step(); self.sched.step()
        self.times.append(time.perf_counter() - t0)
        self.units.append(sum(s.weight.shape[0] - len(s.record.ablated) for s in masked_sites(self.model)) if self.w else 0)

    def accuracy(self, xv, yv):
        self.model.eval()
        with torch.no_grad(): acc = float((self.model(xv).argmax(1) == yv).float().mean())
        self.model.train()
        return acc

    @property
    def last_change(self) -> int:
        "The last step at which a unit went (0: none)"
        u = self.units
        return max((i for i in range(1, len(u)) if u[i] != u[i - 1]), default=0)

def lockstep(runs:dict, data, epochs, bs, seed):
    "Train every run on the same batches, one step each in turn (the order rotating every step), so that they share the machine's moods"
    xt, yt = data
    g = torch.Generator().manual_seed(seed)
    names, i = list(runs), 0
    for _ in range(epochs):
        perm = torch.randperm(len(xt), generator=g)
        for b in range(len(xt) // bs):
            idx = perm[b * bs:(b + 1) * bs]
            for k in names[i % len(names):] + names[:i % len(names)]: runs[k].step(xt[idx], yt[idx])
            i += 1

def deciles(times, n=10):
    k = len(times) / n
    return [statistics.median(times[int(i * k):max(int((i + 1) * k), int(i * k) + 1)]) for i in range(n)]

def spread(xs, f='.3g'): return f"{statistics.median(xs):{f}} ({min(xs):{f}}-{max(xs):{f}})" if len(xs) > 1 else f"{xs[0]:{f}}"

def ceiling(dense_model, model, data, steps=60, bs=64, seed=0) -> float:
    """Dense over a plain copy of `model` (its final shapes, no masks, hooks or method), each trained by Adam in turn
    on the same batches: the most that cutting these units can give, whatever does the cutting"""
    def plain(m):
        m = copy.deepcopy(m); remove_sparse_hooks(m)
        return m, torch.optim.Adam(m.parameters(), lr=1e-3)
    (dm, dopt), (pm, popt) = plain(dense_model), plain(model)
    xt, yt = data
    g, ts = torch.Generator().manual_seed(seed), {0: [], 1: []}
    for i in range(steps):
        idx = torch.randint(0, len(xt), (bs,), generator=g)
        for k in ((0, 1) if i % 2 == 0 else (1, 0)):
            m, o = ((dm, dopt), (pm, popt))[k]
            t = time.perf_counter()
            loss = F.cross_entropy(m(xt[idx]), yt[idx]); o.zero_grad(); loss.backward(); o.step()
            ts[k].append(time.perf_counter() - t)
    return statistics.median(d / p for d, p in zip(ts[0][5:], ts[1][5:]))

def section(title, make_model, data, seeds, epochs, every, lines, bs=64):
    xt, yt, xv, yv = data
    total = epochs * (len(xt) // bs)
    res = {k: [] for k in VARIANTS}
    for s in seeds:
        runs = {k: Run(make_model, k, s, total, every) for k in VARIANTS}
        lockstep(runs, (xt, yt), epochs, bs, s)
        for k, r in runs.items():
            res[k].append(dict(times=r.times, acc=r.accuracy(xv, yv), last=r.last_change,
                               shapes=[tuple(q.weight.shape) for q in masked_sites(r.model)] if r.w else [],
                               ceiling=ceiling(runs['dense'].model, r.model, (xt, yt), bs=bs, seed=s) if k.endswith('shrink') else None))
        print(title, s, {k: round(v[-1]['acc'], 4) for k, v in res.items()}, flush=True)
    lines += [f"## {title}", "",
              f"{len(seeds)} seed{'s' * (len(seeds) > 1)}, {epochs} epochs of {total // epochs} steps of {bs}; mask updates every "
              f"{every} steps until 75% of training (Chase's ramp ends at 80% of that window, 60% of training). "
              "Step: forward, backward, optimizer step and mask update, timed per run; the runs step in turn on the same batch. "
              "After removal: the steps after the run's last removal (dense: the second half); per step: the median of dense's "
              "time over the run's at the same step. Training time: the sum of every step. Median over seeds (min-max); "
              "ratios above 1 are faster than dense.", "",
              "| run | accuracy % (mean ± std) | step ms after removal: run / dense, same steps | dense / run per step, after removal | training s: run / dense | dense / run, training time | last removal at step | final shapes (seed 0) |",
              "|---|---|---|---|---|---|---|---|"]
    for k, rs in res.items():
        accs = [r['acc'] for r in rs]
        per, ms, dms, tot, secs, dsecs = [], [], [], [], [], []
        for d, r in zip(res['dense'], rs):
            a = r['last'] + 1 if k != 'dense' else len(r['times']) // 2
            per.append(statistics.median(dt / rt for dt, rt in zip(d['times'][a:], r['times'][a:])))
            ms.append(1e3 * statistics.median(r['times'][a:])); dms.append(1e3 * statistics.median(d['times'][a:]))
            tot.append(sum(d['times']) / sum(r['times'])); secs.append(sum(r['times'])); dsecs.append(sum(d['times']))
        sd = statistics.pstdev(accs) if len(accs) > 1 else 0.
        lines.append(f"| {k} | {100 * statistics.fmean(accs):.2f} ± {100 * sd:.2f} | {spread(ms)} / {spread(dms)} | "
                     f"{spread(per, '.2f')}x | {spread(secs)} / {spread(dsecs)} | {spread(tot, '.2f')}x | "
                     f"{'-' if k == 'dense' else spread([r['last'] for r in rs], '.0f')} | "
                     f"{' '.join('x'.join(map(str, sh)) for sh in rs[0]['shapes']) or '-'} |")
    lines += ["", "Step time over the run (ms, median of each tenth of the steps, seed 0):", "",
              "| run | " + " | ".join(f"{10 * i}-{10 * i + 10}%" for i in range(10)) + " |", "|---|" + "---|" * 10]
    for k, rs in res.items(): lines.append(f"| {k} | " + " | ".join(f"{1e3 * t:.1f}" for t in deciles(rs[0]['times'])) + " |")
    lines.append("")
    return res

def goals(title, res) -> list:
    "Rows of the goals table for the shrunk runs of one section"
    out = []
    for m in ('chase', 'srigl'):
        rs, ms, ds = res[f'{m} shrink'], res[f'{m} masked'], res['dense']
        per = [statistics.median(dt / rt for dt, rt in zip(d['times'][r['last'] + 1:], r['times'][r['last'] + 1:])) for d, r in zip(ds, rs)]
        tot = [sum(d['times']) / sum(r['times']) for d, r in zip(ds, rs)]
        acc = 100 * (statistics.fmean(r['acc'] for r in rs) - statistics.fmean(r['acc'] for r in ms))
        each = ', '.join(f"{100 * (r['acc'] - q['acc']):+.2f}" for r, q in zip(rs, ms))
        seeds = f" ({each})" if len(rs) > 1 else ''
        out.append(f"| {title} | {m} | {spread(per, '.2f')}x | {spread([r['ceiling'] for r in rs], '.2f')}x | "
                   f"{'yes' if statistics.median(per) >= 1.5 else 'no'} | "
                   f"{spread(tot, '.2f')}x | {'yes' if statistics.median(tot) > 1 else 'no'} | {acc:+.2f}{seeds} | {'yes' if abs(acc) <= 0.5 else 'no'} |")
    return out

def resnet_section(data, steps, every, lines, bs=16, size=16):
    "ResNet-18 (CIFAR stem), Chase shrink against dense in lockstep: step times before the first removal and after the last"
    xt, yt = (F.interpolate(data[0], size=(size, size), mode='bilinear', align_corners=False), data[1])
    epochs = -(-steps // (len(xt) // bs))
    runs = {k: Run(lambda: resnet18_cifar(1, 10), k, 0, steps, every, lr=1e-3, channel_end=0.99, start=0.25, end=0.5)
            if k != 'dense' else Run(lambda: resnet18_cifar(1, 10), k, 0, steps, every, lr=1e-3) for k in ('dense', 'chase shrink')}
    g = torch.Generator().manual_seed(0)
    names = list(runs)
    for i in range(steps):
        idx = torch.randint(0, len(xt), (bs,), generator=g)
        for k in names[i % 2:] + names[:i % 2]: runs[k].step(xt[idx], yt[idx])
    r, d = runs['chase shrink'], runs['dense']
    u = r.units
    first = next((i for i in range(1, len(u)) if u[i] != u[i - 1]), len(u))
    last = r.last_change
    ratio = lambda a, b: statistics.median(dt / rt for dt, rt in zip(d.times[a:b], r.times[a:b]))
    ms = lambda ts: 1e3 * statistics.median(ts)
    up = r.w.updater
    rep = sparsity_report(r.model).set_index('layer')
    lines += ["## ResNet-18 (CIFAR stem), Chase with shrink=True", "",
              f"{size}x{size} single-channel inputs (to fit a CPU run), batch {bs}, Adam; Chase at 90% weight sparsity, channel "
              f"sparsity 0.5, updates every {every} steps from 25% to 50% of {steps} steps, the channel ramp ending with the "
              "window; dense steps in turn with it on the same batches.", "",
              "| | steps | Chase shrink step ms | dense step ms | dense / Chase per step |", "|---|---|---|---|---|",
              f"| before the first removal | 2-{first} | {ms(r.times[1:first]):.1f} | {ms(d.times[1:first]):.1f} | {ratio(1, first):.2f}x |",
              f"| after the last removal | {last + 2}-{steps} | {ms(r.times[last + 1:]):.1f} | {ms(d.times[last + 1:]):.1f} | {ratio(last + 1, steps):.2f}x |",
              "", "Which convolutions can lose channels (the `torch.fx` links that `core.shrink` follows) and their shapes at the end:", "",
              "| layer | its channels | shape at the end | note |", "|---|---|---|---|"]
    for l in up.layers:
        why = l.link.reason if l.link is not None and l.link.reason else 'can go'
        row = rep.loc[l.site.name]
        lines.append(f"| {l.name} | {why} | {'x'.join(map(str, row['shape']))} | {row['note'] or ''} |")
    lines.append("")
    return ratio(last + 1, steps)

def more_seeds() -> list:
    "A sentence on VGG-11 Chase's accuracy over the seeds `shrink_accuracy.py` has run, if it has"
    log = Path(__file__).parent / 'SHRINK_ACCURACY.jsonl'
    if not log.exists(): return []
    rows = {}
    for l in log.read_text().splitlines(): d = json.loads(l); rows[d['seed']] = d
    diffs = [100 * (d['chase shrink'] - d['chase masked']) for d in rows.values()]
    return [f"VGG-11 narrow, Chase, on {len(diffs)} seeds (`python bench/shrink_accuracy.py`, `bench/SHRINK_ACCURACY.md`; "
            f"accuracy alone, the same runs): shrunk minus masked {statistics.fmean(diffs):+.2f} points on the mean, "
            f"{statistics.median(diffs):+.2f} the median, within 0.5 points on {sum(abs(x) <= 0.5 for x in diffs)} of "
            f"{len(diffs)} seeds.", ""]

def main():
    p = argparse.ArgumentParser()
    p.add_argument('--quick', action='store_true', help='one seed, fewer epochs and steps (a smoke run)')
    p.add_argument('--threads', type=int, default=1, help='PyTorch threads (default 1: the machine is shared)')
    p.add_argument('--out', default=str(Path(__file__).parent / 'SHRINK.md'))
    p.add_argument('--vgg-seeds', type=int, default=3, help='seeds of the VGG-11 section (each about 2 minutes)')
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    t0 = time.time()
    xt, yt, xv, yv, name = images(28)
    seeds = [0] if a.quick else [0, 1, 2]
    lines = ["# Shrinking while training", "",
             f"`python bench/bench_shrink.py{' --quick' if a.quick else ''}` (under `flock /work/timing.lock`), "
             f"{time.strftime('%Y-%m-%d')}, CPU, {torch.get_num_threads()} threads (a shared machine), torch {torch.__version__}. "
             f"Data: {name}. A plain PyTorch loop, Adam with a one-cycle schedule: Chase is "
             "`sparse_optimizer('chase', model, opt, 0.9, channel_sparsity=0.5, shrink=...)`, SRigL "
             "`sparse_optimizer('srigl', model, opt, 0.9, shrink=...)` (constant fan-in); `masked` is shrink=False (the "
             "units removed stay in the layers as zeros), `shrink` cuts them out as they go.", ""]
    body = []
    lenet = section('LeNet-5', lambda: lenet5(1, 10, 28), (xt, yt, xv, yv), seeds, 4 if a.quick else 10, 10, body)
    x32t, x32v = (F.interpolate(x, size=(32, 32), mode='bilinear', align_corners=False) for x in (xt, xv))
    vgg = section('VGG-11 (narrow, BatchNorm), 32x32', vgg11_narrow, (x32t, yt, x32v, yv), seeds[:a.vgg_seeds], 2 if a.quick else 4, 5, body)
    rn = resnet_section((x32t, yt), 16 if a.quick else 36, 2 if a.quick else 3, body)
    lines += ["## Against the issue's goals", "",
              "After the removal ends, at least 1.5x dense per step; the whole training faster than dense; accuracy within "
              "0.5 points of the masked run (the same method with shrink=False). Medians over seeds (min-max).", "",
              "| model | method | dense / shrunk per step, after removal | dense / a plain model of the final shapes | >= 1.5x | dense / shrunk, training time | faster | accuracy vs masked (points; each seed) | within 0.5 |",
              "|---|---|---|---|---|---|---|---|---|", *goals('LeNet-5', lenet), *goals('VGG-11 narrow', vgg),
              f"| ResNet-18 | chase | {rn:.2f}x | | {'yes' if rn >= 1.5 else 'no'} | not timed over a whole run | | not trained to the end | |", "",
              *more_seeds(),
              "The plain model of the final shapes is each shrunk run's model at the end with its masks, hooks and method "
              "taken off, trained by Adam in turn with a copy of the dense model (60 steps, the first 5 left out): what "
              "cutting those units can give at most, however it is done; the gap to the shrunk run's own figure is what "
              "the sparse machinery costs (its masks, the method's bookkeeping and updates while they go on).", "",
              "Chase's shrunk run follows the masked run step for step (the same channels go; see `methods.chase`), "
              "but with Adam the float32 rounding of summing fewer channels grows over a run, so the two end close, "
              "not equal, and a short run at low accuracy shows it most; SRigL's shrunk run releases the connections "
              "that leave a removed unit (see `methods.srigl`), so its accuracy may differ either way. What the speed-up "
              "can be is set by where a step's time goes: LeNet-5's is in its first convolution (one input channel) and "
              "the max pooling after it, where removing half of 6 channels saves little, and in per-step costs that do "
              "not shrink with the layers (the optimizer's and the masks' per-tensor work); SRigL at its default "
              "`gamma_sal` removes few units here. The wider layers of VGG-11 and of ResNet-18's blocks give more back.", "",
              *body]
    lines += [f"Total time of this benchmark: {time.time() - t0:.0f} s.", ""]
    Path(a.out).write_text("\n".join(lines))
    print("\n".join(lines))

if __name__ == '__main__': main()
