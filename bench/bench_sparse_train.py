"""Training with sparse compute (`set_compute(model, 'sparse')`, `compute='sparse'`) against dense compute, on the CPU.

    python bench/bench_sparse_train.py [--sections layer e2e] [--threads 1 2] [--repeats 9] [--out bench/SPARSE_TRAIN.md]

- `layer`: one masked `Linear`, forward and backward (output, input gradient, weight gradient), timed three ways in one
  process, taking turns call by call in a random order: dense PyTorch (`F.linear` on the masked dense weight),
  fastsparse's sparse compute (a masked `Linear` under `set_compute(lin, 'sparse')`: the weight gradient at the active
  weights, written into the dense gradient buffer that training keeps between steps) and, when it is installed, SparseProp's `SparseLinear` (the CPU
  sparse-backprop library: `pip install --no-build-isolation sparseprop==0.1.14`). Shapes: 4096x4096 at 90% and 95%,
  batch 128 and 256; 768->3072 at 90/95/98%, batch 2048; 784->300 at 90%, batch 128; masks uniform at random
  (unstructured) and constant fan-in. Ratios are medians over the rounds of (dense time / other time) in the same
  round, with their interquartile range; an A/A column (a second dense copy) shows the machine's noise.
- `step`: the same layers and masks, a whole training step each (forward, backward and SGD with momentum), as a
  training loop takes it: dense PyTorch (`nn.Linear`), fastsparse's sparse compute on dense optimizer state (a masked
  `Linear` under `set_compute(lin, 'sparse')`, its gradient in `.grad`), fastsparse with `compact=True`
  (`sparse_optimizer('static_sparse', lin, opt, compact=True)`: the gradient and the momentum at the active weights,
  the step taken there and written into the weight) and SparseProp's `SparseLinear`, whose compressed weight is the
  parameter `torch.optim.SGD` steps.
- `e2e`: a wide MLP (784-4096-4096-10, 90% ERK) trained with RigL (its default growth by the gradient summed between
  updates, which needs the whole weight gradient at every step of its window; `sum_every=4`, which sums every 4th
  step's; and `growth_gradient='step'`, the paper's, which needs it at update steps only) and SRigL (the same three)
  by `sparse_optimizer` with `compute='dense'`, `compute='sparse'` and `compact=True`, and the dense model, on images (Fashion-MNIST from `/usr/share/datasets/fashion-mnist` when
  installed, else the 8x8 digits scaled to 28x28): the time of each epoch over its steps (mask updates and index
  rebuilds counted), interleaved epoch by epoch, and the accuracy after the run, over seeds.
- `overhead`: what sparse compute adds around the products: the time to rebuild the index structures of the
  784-4096-4096-10 MLP after a mask update (the next forward's `SparsePlan`s) against the 100 steps between updates,
  the peak memory (resident set) of a training process with dense and sparse compute against the dense model's,
  and LeNet-300-100 (batch 128) with `compute='auto'` against dense compute, interleaved step by step.
- `conv`: 1x1 convolutions (ResNet-50's bottleneck shapes at 14x14 and 28x28), forward and backward, under
  `set_compute(conv, 'sparse')` against dense `F.conv2d`, at 90% and 95%.
- `conv3`: 3x3 convolutions (ResNet's shapes at 56x56 down to 7x7, and a strided one), forward and backward, under
  `set_compute(conv, 'sparse')` (`fastsparse.ops.conv`) against dense `F.conv2d`, and SparseProp's `SparseConv2d` in
  both of its layouts, at 90% and 95%.
- `e2e_cnn`: ResNet-18 with the CIFAR-style stem on 28x28 images, RigL at 90% ERK (its default growth and
  `growth_gradient='step'`) with dense, sparse and `'auto'` compute, against the dense model: step time and accuracy.
- `cuda`: on a CUDA GPU, 2:4-masked `Linear`s in bfloat16 (8192x8192 and 4096x4096, batch 4096) and a 90% block-sparse
  one (32x32 blocks, 4096x4096): forward and forward+backward under `set_compute(lin, 'sparse')` (2:4 sparse matmuls,
  or block-sparse products) against dense.
- `e2e_gpt2`: a GPT-2 built from its transformers config, RigL at 90% ERK with dense, sparse, compact and `'auto'`
  compute against the dense model: the training step with AdamW.
- `compile`: the wide MLP's training step (RigL at 90% ERK between updates) with `compute='sparse'`, eager and under
  `torch.compile` (Inductor: the sparse layers run eagerly between its graphs), against the dense model eager and compiled.
"""
import argparse, os, random, statistics, sys, time
from pathlib import Path
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _machine import where as _machine                   # the CPU's name and vector unit: figures differ between CPUs

def set_threads(n:int):
    torch.set_num_threads(n)
    try:
        import numba; numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
    except ImportError: pass

def interleaved(fns:dict, repeats:int, seed:int=0) -> dict:
    "Seconds of each call of each function, over `repeats` rounds in a random order, after a warm-up call of each"
    rng = random.Random(seed)
    for f in fns.values(): f()
    ts = {k: [] for k in fns}
    for _ in range(repeats):
        order = list(fns); rng.shuffle(order)
        for k in order:
            t = time.perf_counter(); fns[k](); ts[k].append(time.perf_counter() - t)
    return ts

def ratio(ts:dict, k:str, ref:str='dense') -> str:
    "The median over rounds of ref time / k time, with its interquartile range"
    r = [a / b for a, b in zip(ts[ref], ts[k])]
    q = statistics.quantiles(r, n=4) if len(r) > 1 else [r[0]] * 3
    return f"{statistics.median(r):.2f} [{q[0]:.2f}-{q[2]:.2f}]"

def make_mask(n_out:int, n_in:int, sparsity:float, kind:str, g) -> torch.Tensor:
    "A random mask: `unstructured` (exactly the right count, uniform at random) or `fan-in` (every row the same count)"
    if kind == 'fan-in':
        k = round((1 - sparsity) * n_in)
        idx = torch.rand(n_out, n_in, generator=g).argsort(1)[:, :k]
        return torch.zeros(n_out, n_in, dtype=torch.bool).scatter_(1, idx, True)
    n = round((1 - sparsity) * n_out * n_in)
    m = torch.zeros(n_out * n_in, dtype=torch.bool); m[torch.randperm(n_out * n_in, generator=g)[:n]] = True
    return m.view(n_out, n_in)

def _sparseprop():
    try:
        from sparseprop.modules import SparseLinear
        return SparseLinear
    except ImportError: return None

def _case_tensors(n_out, n_in, sparsity, batch, kind, seed):
    "One case's mask, masked weight, bias, input and output gradient"
    g = torch.Generator().manual_seed(seed)
    mask = make_mask(n_out, n_in, sparsity, kind, g)
    w0 = torch.randn(n_out, n_in, generator=g) * mask / ((1 - sparsity) * n_in) ** 0.5
    b0 = torch.randn(n_out, generator=g)
    return mask, w0, b0, torch.randn(batch, n_in, generator=g), torch.randn(batch, n_out, generator=g)

def _tables(a, head:list, cols:dict, case) -> str:
    "`head`, then a table per thread count of the layer cases: `cols` maps each column's title to its run's name in `case`'s timings"
    out = list(head)
    for th in a.threads:
        set_threads(th)
        out += [f"### {th} thread{'s' * (th > 1)}", "",
                "| layer (out x in) | sparsity | batch | mask | dense ms | " + " | ".join(cols) + " |",
                "|---|---|---|---|---|" + "---|" * len(cols)]
        for (n_out, n_in, sp, bs) in (LAYER_CASES if not a.quick else [(256, 256, 0.9, 32)]):
            for kind in ('unstructured', 'fan-in'):
                ts = case(n_out, n_in, sp, bs, kind, a.repeats)
                out.append(f"| {n_out}x{n_in} | {sp:g} | {bs} | {kind} | {statistics.median(ts['dense']) * 1e3:.1f} | " +
                           " | ".join(ratio(ts, k) if k in ts else '—' for k in cols.values()) + " |")
                print(out[-1], flush=True)
        out.append("")
    return "\n".join(out)

def layer_case(n_out, n_in, sparsity, batch, kind, repeats, seed=0):
    mask, w0, b0, x0, dy = _case_tensors(n_out, n_in, sparsity, batch, kind, seed)
    def dense_fn():
        w = w0.clone().requires_grad_(); b = b0.clone().requires_grad_(); x = x0.clone().requires_grad_()
        def f():
            w.grad = b.grad = x.grad = None
            F.linear(x, w, b).backward(dy)
        return f
    def sparse_fn():
        # a masked Linear under set_compute('sparse'), as training uses it (its gradient buffer kept between steps)
        from fastsparse.core.sparsify import sparsify_model
        from fastsparse.core.compute import set_compute
        lin = nn.Linear(n_in, n_out); sparsify_model(lin, 0.)
        with torch.no_grad(): lin.weight.copy_(w0); lin.bias.copy_(b0); lin.weight_mask.copy_(mask)
        set_compute(lin, 'sparse', min_sparsity=0.)
        x = x0.clone().requires_grad_()
        def f():
            lin.weight.grad = lin.bias.grad = x.grad = None
            lin(x).backward(dy)
        return f
    fns = dict(dense=dense_fn(), aa=dense_fn(), fastsparse=sparse_fn())
    SL = _sparseprop()
    if SL is not None:
        layer = SL(w0.clone(), nn.Parameter(b0.clone()))
        x = x0.clone().requires_grad_()
        def sp():
            x.grad = None; layer.zero_grad(set_to_none=True)
            layer(x).backward(dy)
        fns['sparseprop'] = sp
    return interleaved(fns, repeats, seed)

LAYER_CASES = [(4096, 4096, 0.9, 128), (4096, 4096, 0.9, 256), (4096, 4096, 0.95, 128), (4096, 4096, 0.95, 256),
               (3072, 768, 0.9, 2048), (3072, 768, 0.95, 2048), (3072, 768, 0.98, 2048), (300, 784, 0.9, 128)]

def layer_section(a) -> str:
    has_sp = _sparseprop() is not None
    out = ["## One masked Linear, forward and backward", "",
           "Speed-up over dense PyTorch in the same round (median [interquartile range] over the rounds): *fastsparse* is a "
           "masked `Linear` under `set_compute(lin, 'sparse')` (forward, input gradient, and the weight gradient at the "
           "active weights, written into the gradient buffer kept between steps), *SparseProp* its `SparseLinear`" + ("" if has_sp else " (not installed here: column empty)") +
           ", *A/A* a second dense copy (noise). *dense ms* is the median dense time of one forward and backward.", ""]
    return _tables(a, out, dict(fastsparse='fastsparse', SparseProp='sparseprop', **{'A/A': 'aa'}), layer_case)

def step_case(n_out, n_in, sparsity, batch, kind, repeats, seed=0):
    "Seconds of a whole SGD training step of one masked Linear, each way, taking turns"
    from fastsparse.core.sparsify import sparsify_model
    from fastsparse.core.compute import set_compute
    from fastsparse.loop.optim import sparse_optimizer
    mask, w0, b0, x0, dy = _case_tensors(n_out, n_in, sparsity, batch, kind, seed)
    sgd = lambda ps: torch.optim.SGD(ps, lr=1e-4, momentum=0.9)
    def looped(layer, opt):
        x = x0.clone().requires_grad_()
        def f():
            layer(x).backward(dy); opt.step(); opt.zero_grad(); x.grad = None
        return f
    def dense():
        lin = nn.Linear(n_in, n_out)
        with torch.no_grad(): lin.weight.copy_(w0); lin.bias.copy_(b0)
        return looped(lin, sgd(lin.parameters()))
    def masked(compact):
        lin = nn.Linear(n_in, n_out); sparsify_model(lin, 0.)
        with torch.no_grad(): lin.weight.copy_(w0); lin.bias.copy_(b0); lin.weight_mask.copy_(mask)
        set_compute(lin, 'sparse', min_sparsity=0.)
        return looped(lin, sparse_optimizer('static_sparse', lin, sgd(lin.parameters()), total_steps=10**6,
                                            compact=compact))
    fns = dict(dense=dense(), aa=dense(), sparse=masked(False), compact=masked(True))
    SL = _sparseprop()
    if SL is not None:
        layer = SL(w0.clone(), nn.Parameter(b0.clone()))
        fns['sparseprop'] = looped(layer, sgd(layer.parameters()))
    return interleaved(fns, repeats, seed)

def step_section(a) -> str:
    has_sp = _sparseprop() is not None
    out = ["## One masked Linear, a whole training step", "",
           "Forward, backward and SGD with momentum, as a training loop takes them; speed-up over dense PyTorch in the same "
           "round (median [interquartile range] over the rounds). *sparse*: fastsparse's sparse compute with the "
           "gradient in `.grad` and PyTorch's step on dense state; *compact*: with `compact=True` (the gradient and "
           "the momentum at the active weights, the step taken there and written into the dense weight); *SparseProp*: "
           "its `SparseLinear`, whose compressed weight is the parameter SGD steps" + ("" if has_sp else " (not installed here: column empty)") +
           "; *A/A* a second dense copy (noise). *dense ms*: the median dense step.", ""]
    return _tables(a, out, dict(sparse='sparse', compact='compact', SparseProp='sparseprop', **{'A/A': 'aa'}), step_case)

def _images(n_train:int, n_valid:int, seed:int):
    "Fashion-MNIST (28x28) when installed, else the 8x8 digits scaled to 28x28; float tensors [n, 784] and labels"
    root = Path('/usr/share/datasets/fashion-mnist')
    if root.exists():
        from fastsparse.experiments.data import read_idx, _find_idx, _FMNIST_FILES
        xt, yt, xv, yv = (read_idx(_find_idx(root, _FMNIST_FILES[k])) for k in ('x_train', 'y_train', 'x_valid', 'y_valid'))
        xt, xv = xt.reshape(len(xt), -1) / 255., xv.reshape(len(xv), -1) / 255.
        name = 'Fashion-MNIST'
    else:
        from sklearn.datasets import load_digits
        d = load_digits()
        x = F.interpolate(torch.tensor(d.images, dtype=torch.float32)[:, None], size=(28, 28), mode='bilinear')[:, 0]
        x = x.reshape(len(x), -1).numpy() / 16.; y = d.target
        xt, yt, xv, yv = x[:1400], y[:1400], x[1400:], y[1400:]
        name = '8x8 digits scaled to 28x28'
    g = np.random.default_rng(seed)
    it = g.permutation(len(xt))[:n_train]
    t = lambda a: torch.as_tensor(np.asarray(a), dtype=torch.float32)
    return name, (t(xt)[it].reshape(len(it), -1), torch.as_tensor(np.asarray(yt))[it].long()), \
        (t(xv)[:n_valid].reshape(-1, 784), torch.as_tensor(np.asarray(yv))[:n_valid].long())

def _epochs(runs:dict, X, Y, bs:int, epochs:int, seed:int) -> dict:
    """Train each of `runs` ({name: (model, optimizer)}) for `epochs` on (X, Y), the runs taking turns epoch by epoch in
    a random order; {name: [each epoch's time over its steps]} (mask updates and index rebuilds counted)"""
    times = {v: [] for v in runs}
    for ep in range(epochs):
        order = torch.randperm(len(X), generator=torch.Generator().manual_seed(seed * 100 + ep))
        for v in random.Random(ep).sample(list(runs), len(runs)):
            net, opt = runs[v]; net.train()
            t, n = 0., 0
            for i in range(0, len(X) - bs + 1, bs):
                j = order[i:i + bs]
                t0 = time.perf_counter()
                F.cross_entropy(net(X[j]), Y[j]).backward(); opt.step(); opt.zero_grad()
                t += time.perf_counter() - t0; n += 1
            times[v].append(t / n)
    return times

E2E_RUNS = ('dense', 'rigl/dense', 'rigl/sparse', 'rigl/compact', 'rigl-sum4/sparse', 'rigl-sum4/compact',
            'rigl-step/dense', 'rigl-step/sparse', 'rigl-step/compact', 'srigl/dense', 'srigl/sparse', 'srigl/compact',
            'srigl-sum4/sparse', 'srigl-sum4/compact', 'srigl-step/sparse', 'srigl-step/compact')

def e2e_section(a) -> str:
    from fastsparse.loop.optim import sparse_optimizer
    set_threads(a.threads[0])
    bs, epochs = 128, a.epochs
    rows, accs = {}, {}
    name = None
    for seed in range(a.seeds):
        name, (X, Y), (Xv, Yv) = _images(a.n_train, 2000, seed)
        runs = {}
        for v in E2E_RUNS:
            if a.runs and v not in a.runs and v != 'dense': continue
            torch.manual_seed(seed)
            net = nn.Sequential(nn.Linear(784, 4096), nn.ReLU(), nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 10))
            opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
            steps = epochs * (len(X) // bs)
            if v != 'dense':
                m, c = v.split('/')
                kw = dict(growth_gradient='step') if m.endswith('-step') else dict(sum_every=4) if m.endswith('-sum4') else {}
                opt = sparse_optimizer(m.split('-')[0], net, opt, 0.9, distribution='erk', total_steps=steps, every=a.every,
                                       compute='sparse' if c == 'compact' else c, compact=c == 'compact', **kw)
            runs[v] = (net, opt)
        times = _epochs(runs, X, Y, bs, epochs, seed)
        for v, (net, opt) in runs.items():
            with torch.no_grad(): acc = float((net(Xv).argmax(1) == Yv).float().mean())
            rows.setdefault(v, []).append(statistics.median(times[v])); accs.setdefault(v, []).append(acc)
            print(v, seed, f"{statistics.median(times[v]) * 1e3:.1f} ms/step", f"acc {acc:.4f}", flush=True)
    d = rows['dense']
    out = [f"## End to end: 784-4096-4096-10 MLP, 90% ERK, {name}", "",
           f"{a.n_train} training images, batch {bs}, {epochs} epoch(s), SGD with momentum, masks updated every {a.every} steps (RigL's window: the first 75%); "
           f"{a.seeds} seed(s), {a.threads[0]} thread(s). Step time: an epoch's time over its steps (forward, backward and "
           "optimizer step, with the mask updates and the index rebuilds they cause), the median over the epochs; speed-up: dense "
           "step time / this step time, per seed, then the median. *-sum4*: the method summing the gradient of every "
           "4th step (`sum_every=4`); *-step*: growth by the update step's gradient (`growth_gradient='step'`).", "",
           "| run | ms per step (median over seeds) | speed-up over dense | accuracy (mean over seeds) |", "|---|---|---|---|"]
    for v in rows:
        sp = statistics.median(a_ / b_ for a_, b_ in zip(d, rows[v]))
        out.append(f"| {v} | {statistics.median(rows[v]) * 1e3:.1f} | {sp:.2f} | {statistics.mean(accs[v]):.4f} |")
    return "\n".join(out) + "\n"

def _mlp_wide(seed=0, sizes=(784, 4096, 4096, 10)):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(sizes[0], sizes[1]), nn.ReLU(), nn.Linear(sizes[1], sizes[2]), nn.ReLU(), nn.Linear(sizes[2], sizes[3]))

def _where() -> str:
    "This machine, its PyTorch and the date, as the sections say them"
    return f"{_machine()}, torch {torch.__version__}, {time.strftime('%Y-%m-%d')}"

def _between_updates(model, opt, compute:str, compact:bool=False):
    "RigL at 90% ERK whose mask updates never come while a section times its steps (growth by the update step's gradient)"
    from fastsparse.loop.optim import sparse_optimizer
    return sparse_optimizer('rigl', model, opt, 0.9, distribution='erk', total_steps=10 ** 6, every=10 ** 5,
                            growth_gradient='step', compute=compute, compact=compact)

def _step_rows(runs, ts, extra=None) -> list:
    "A table row per run: the median step in ms, its speed-up over `ts['dense']`, and `extra[run]` if given"
    rows = []
    for v in runs:
        rows.append(f"| {v} | {statistics.median(ts[v]) * 1e3:.1f} | {ratio(ts, v)} |" + (f" {extra[v]} |" if extra else ""))
        print(rows[-1], flush=True)
    return rows

CNN_RUNS = ('dense', 'rigl/dense', 'rigl/sparse', 'rigl/auto', 'rigl-step/sparse', 'rigl-step/auto')

def e2e_cnn_section(a) -> str:
    "ResNet-18 (the CIFAR-style stem) on 28x28 images, RigL at 90% ERK: step time against dense and the same method with dense compute"
    from fastsparse.loop.optim import sparse_optimizer
    from fastsparse.experiments.data import resnet18_cifar
    from fastsparse.core.compute import compute_report
    set_threads(a.threads[0])
    bs, epochs = 128, a.epochs
    rows, accs, chose = {}, {}, {}
    name = None
    for seed in range(a.seeds):
        name, (X, Y), (Xv, Yv) = _images(a.n_train, 1000, seed)
        X, Xv = X.view(-1, 1, 28, 28), Xv.view(-1, 1, 28, 28)
        runs = {}
        steps = epochs * (len(X) // bs)
        for v in CNN_RUNS:
            torch.manual_seed(seed)
            net = resnet18_cifar(1, 10)
            opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
            if v != 'dense':
                m, c = v.split('/')
                opt = sparse_optimizer('rigl', net, opt, 0.9, distribution='erk', total_steps=steps, every=a.every, compute=c,
                                       **(dict(growth_gradient='step') if m.endswith('-step') else {}))
            runs[v] = (net, opt)
        times = _epochs(runs, X, Y, bs, epochs, seed)
        for v, (net, opt) in runs.items():
            net.eval()
            with torch.no_grad(): acc = float((net(Xv).argmax(1) == Yv).float().mean())
            rows.setdefault(v, []).append(statistics.median(times[v])); accs.setdefault(v, []).append(acc)
            if v.endswith('/auto'):
                rep = compute_report(net); chose[v] = int(rep.note.str.contains(': sparse').sum()), len(rep)
            print(v, seed, f"{statistics.median(times[v]) * 1e3:.1f} ms/step", f"acc {acc:.4f}", flush=True)
    d = rows['dense']
    out = [f"## End to end: ResNet-18 (CIFAR-style stem), RigL at 90% ERK, {name} 28x28", "",
           f"{a.n_train} training images, batch {bs}, {epochs} epoch(s), SGD with momentum and weight decay, masks updated every "
           f"{a.every} steps; {a.seeds} seed(s), {a.threads[0]} thread(s). Step time as in the MLP's table (an epoch's time over "
           "its steps, updates counted; the runs take turns epoch by epoch). *-step*: growth by the update step's gradient. "
           "*auto*: each layer the faster way on its batch" +
           (f" ({', '.join(f'{k}: {c} of {n} layers sparse' for k, (c, n) in chose.items())})" if chose else "") + ".", "",
           "| run | ms per step (median over seeds) | speed-up over dense | accuracy (mean over seeds) |", "|---|---|---|---|"]
    for v in rows:
        sp = statistics.median([x / y for x, y in zip(d, rows[v])])
        out.append(f"| {v} | {statistics.median(rows[v]) * 1e3:.1f} | {sp:.2f} | {statistics.mean(accs[v]):.4f} |")
    return "\n".join(out + [""])

def _peak_rss_worker(variant:str, steps:int, threads:int):
    "Run in a fresh process: train `variant` of the wide MLP for `steps` steps; print the rise of the peak resident set over the imports, in MiB"
    from fastsparse.loop.optim import sparse_optimizer
    set_threads(threads)
    def kib(field):
        return next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith(field))
    # load Numba and its compiled code first (about 100 MB, once a process, whatever the model): measured apart
    tiny = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64))
    o = sparse_optimizer('rigl', tiny, torch.optim.SGD(tiny.parameters(), lr=0.1, momentum=0.9), 0.9, total_steps=4, every=2,
                         compute='sparse')
    for _ in range(4): tiny(torch.randn(8, 64)).sum().backward(); o.step(); o.zero_grad()
    del tiny, o
    base = kib('VmRSS:')
    def reset_peak():
        try: open('/proc/self/clear_refs', 'w').write('5')        # the peak starts again from the present
        except OSError: pass
    reset_peak()
    net = _mlp_wide(); opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    if variant != 'model':
        opt = sparse_optimizer('rigl', net, opt, 0.9, distribution='erk', total_steps=steps, every=10 ** 9,
                               growth_gradient='step', compute='sparse' if variant == 'compact' else variant,
                               compact=variant == 'compact')
    setup = kib('VmHWM:') - base                                  # building and sparsifying the model
    reset_peak()
    X, Y = torch.randn(128, 784), torch.randint(0, 10, (128,))
    for _ in range(steps): F.cross_entropy(net(X), Y).backward(); opt.step(); opt.zero_grad()
    print('PEAK', (kib('VmHWM:') - base) / 1024, setup / 1024)

def overhead_section(a) -> str:
    import subprocess
    from fastsparse.core.sparsify import sparsify_model
    from fastsparse.core.sites import masked_sites
    from fastsparse.core.compute import set_compute
    from fastsparse.ops.spmm import SparsePlan
    from fastsparse.sparsity.distributions import erdos_renyi_sparsity
    from fastsparse.loop.optim import sparse_optimizer
    set_threads(a.threads[0])
    out = ["## What sparse compute adds", ""]
    # 1. rebuilding the plans after a mask update, against the steps between updates
    net = _mlp_wide(); sparsify_model(net, 0.9, sparse_f=erdos_renyi_sparsity); set_compute(net, 'sparse')
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    X, Y = torch.randn(128, 784), torch.randint(0, 10, (128,))
    def step(): F.cross_entropy(net(X), Y).backward(); opt.step(); opt.zero_grad()
    masks = [s.mask for s in masked_sites(net)]
    def rebuild():
        for m in masks: SparsePlan(m)
    ts = interleaved(dict(step=step, rebuild=rebuild), a.repeats)
    st, rb = statistics.median(ts['step']), statistics.median(ts['rebuild'])
    out += [f"**Rebuilding the index structures** of the 784-4096-4096-10 MLP at 90% ERK after a mask update (a "
            f"`SparsePlan` per layer, {a.threads[0]} thread): {rb * 1e3:.1f} ms, against a sparse-compute step of "
            f"{st * 1e3:.1f} ms: {rb / st:.2f} steps, **{100 * rb / (100 * st):.2f}%** of the 100 steps between updates at "
            f"`every=100` ({100 * rb / (10 * st):.1f}% at `every=10`).", ""]
    # 2. peak memory of a training process
    peaks = {}
    for v in ('dense', 'dense-compute', 'sparse', 'compact'):
        env = dict(os.environ, PYTHONWARNINGS='ignore')
        r = subprocess.run([sys.executable, __file__, '--rss-worker', v.split('-')[0] if v != 'dense' else 'model',
                            '--threads', str(a.threads[0])], capture_output=True, text=True, env=env)
        line = [l for l in r.stdout.splitlines() if l.startswith('PEAK')]
        peaks[v] = tuple(map(float, line[-1].split()[1:])) if line else (float('nan'),) * 2
    out += ["**Peak memory** (the rise of the resident set over the imports and Numba's compiled code, in a fresh process "
            "training the MLP for 20 steps: RigL at 90% ERK by `sparse_optimizer` with dense compute, sparse compute, or "
            "sparse compute with `compact=True`, or the dense model; *setup*: the peak while the model is built and "
            "sparsified, *training*: the peak while it trains):", "",
            "| run | training peak MiB | over dense | setup peak MiB |", "|---|---|---|---|"]
    out += [f"| {v} | {p[0]:.0f} | {p[0] / peaks['dense'][0]:.2f} | {p[1]:.0f} |" for v, p in peaks.items()]
    out += ["", "Sparse compute alone keeps the weights, their gradients and the optimizer state dense-sized; it adds the "
            "masks and the index structures. `compact` is sparse compute with `compact=True`: gradients and SGD's momentum "
            "at the active weights only (the weights themselves stay dense parameters, so checkpoints are unchanged).", ""]
    # 4. the optimizer step of one 90% 4096x4096 layer, dense state against compact
    out += _opt_step_rows(a)
    # 3. LeNet-300-100 with 'auto' against dense compute
    runs = {}
    for v in ('dense compute', 'auto'):
        torch.manual_seed(0)
        lenet = nn.Sequential(nn.Linear(784, 300), nn.ReLU(), nn.Linear(300, 100), nn.ReLU(), nn.Linear(100, 10))
        o = sparse_optimizer('rigl', lenet, torch.optim.SGD(lenet.parameters(), lr=0.05, momentum=0.9), 0.9,
                             distribution='erk', total_steps=10 ** 6, every=100, compute='dense' if v != 'auto' else 'auto')
        runs[v] = (lenet, o)
    def lstep(v):
        lenet, o = runs[v]
        def f(): F.cross_entropy(lenet(X), Y).backward(); o.step(); o.zero_grad()
        return f
    ts = interleaved({v: lstep(v) for v in runs}, a.repeats * 20)
    from fastsparse.core.compute import compute_report
    notes = "; ".join(f"{r.layer}: {r.note}" for r in compute_report(runs['auto'][0]).itertuples())
    out += [f"**LeNet-300-100 with `compute='auto'`** (RigL, 90% ERK, batch 128, {a.threads[0]} thread): step time of "
            f"dense compute / `'auto'`: **{ratio(ts, 'auto', 'dense compute')}** (median [interquartile range] over "
            f"{a.repeats * 20} interleaved steps). What `'auto'` chose: {notes}.", ""]
    return "\n".join(out)

def _opt_step_rows(a) -> list:
    "The optimizer step of one 90% 4096x4096 masked Linear: PyTorch's on dense state and gradient against compact"
    from fastsparse.core.sparsify import sparsify_model
    from fastsparse.core.compute import set_compute
    from fastsparse.loop.compact import CompactSteps
    from fastsparse.core.sites import masked_sites
    rows = ["**The optimizer step of one masked 4096x4096 `Linear` at 90%** (median [interquartile range] over "
            f"{a.repeats * 5} interleaved steps, {a.threads[0]} thread; the gradient as each way keeps it, fresh each step):", "",
            "| optimizer | dense-state step / compact step | bytes of gradient and state, dense / compact (with its indices and the active weights it keeps) | gradient and state alone, compact |", "|---|---|---|---|"]
    for name, make in (('SGD, momentum 0.9', lambda ps: torch.optim.SGD(ps, lr=0.01, momentum=0.9)),
                       ('AdamW', lambda ps: torch.optim.AdamW(ps, lr=1e-3))):
        fns, nbytes = {}, {}
        for v in ('dense', 'compact'):
            torch.manual_seed(0)
            lin = nn.Linear(4096, 4096); sparsify_model(lin, 0.9); set_compute(lin, 'sparse')
            opt = make([lin.weight])
            cs = CompactSteps(masked_sites(lin), opt) if v == 'compact' else None
            s = masked_sites(lin)[0]
            g = torch.randn(4096, 4096) * s.mask
            def f(lin=lin, opt=opt, cs=cs, g=g, s=s):
                if cs is None: lin.weight.grad = g.clone()
                else:
                    idx = cs.layers[0].current_index()
                    cs.layers[0].sink.values, cs.layers[0].sink.index = g.view(-1).index_select(0, idx), idx
                if cs is not None: cs.step()
                opt.step()
            fns[v] = f
            f()
            nbytes[v] = (cs.nbytes() + cs.layers[0].index.numel() * 4 if cs is not None else        # + the compact gradient
                         sum(t.numel() * t.element_size() for t in opt.state[lin.weight].values() if t.dim()) + g.numel() * 4)
            if cs is not None: core = sum(t.numel() * t.element_size() for t in cs.layers[0].state.values()) + cs.layers[0].index.numel() * 4
        ts = interleaved(fns, a.repeats * 5)
        rows.append(f"| {name} | {ratio(ts, 'compact')} | {nbytes['dense'] / 2**20:.0f} MiB / {nbytes['compact'] / 2**20:.0f} MiB | "
                    f"{core / 2**20:.1f} MiB ({core / nbytes['dense']:.1%} of dense) |")
    return rows + [""]

def conv_section(a) -> str:
    from fastsparse.core.sparsify import sparsify_model
    from fastsparse.core.compute import set_compute
    set_threads(a.threads[0])
    out = ["## 1x1 convolutions, forward and backward", "",
           f"Speed-up of a masked 1x1 `nn.Conv2d` under `set_compute(conv, 'sparse')` over the same layer computing densely "
           f"(median [interquartile range] over {a.repeats} rounds, {a.threads[0]} thread; masks uniform at random).", "",
           "| conv (in -> out) | input | sparsity | dense ms | speed-up |", "|---|---|---|---|---|"]
    cases = [(1024, 256, 32, 14), (256, 1024, 32, 14), (512, 128, 16, 28)] if not a.quick else [(32, 64, 4, 8)]
    for cin, cout, bs, hw in cases:
        for sp in (0.9, 0.95):
            layers = {}
            for v in ('dense', 'sparse'):
                torch.manual_seed(0)
                conv = nn.Conv2d(cin, cout, 1); sparsify_model(conv, sp); set_compute(conv, v, min_sparsity=0.)
                layers[v] = conv
            layers['sparse'].load_state_dict(layers['dense'].state_dict())
            x = torch.randn(bs, cin, hw, hw, requires_grad=True); dy = torch.randn(bs, cout, hw, hw)
            def fb(l):
                def f(): l.weight.grad = l.bias.grad = x.grad = None; l(x).backward(dy)
                return f
            ts = interleaved({v: fb(l) for v, l in layers.items()}, a.repeats)
            out.append(f"| {cin} -> {cout} | {bs}x{cin}x{hw}x{hw} | {sp:g} | {statistics.median(ts['dense']) * 1e3:.1f} | {ratio(ts, 'sparse')} |")
            print(out[-1], flush=True)
    return "\n".join(out + [""])

def _sparseprop_conv():
    try:
        from sparseprop.modules import SparseConv2d
        return SparseConv2d
    except ImportError: return None

CONV3_CASES = [(64, 64, 1, 32, 56), (128, 128, 1, 32, 28), (256, 256, 1, 32, 14), (512, 512, 1, 32, 7), (128, 128, 2, 32, 56)]

def conv3_section(a) -> str:
    from fastsparse.core.sparsify import sparsify_model
    from fastsparse.core.compute import set_compute
    SC = _sparseprop_conv()
    out = ["## 3x3 convolutions, forward and backward", "",
           "Speed-up of a masked 3x3 `nn.Conv2d` (padding 1) under `set_compute(conv, 'sparse')` over the same layer computing "
           f"densely, and of SparseProp's `SparseConv2d` (its two layouts: `vectorizing_over_on` False / True) over the same "
           f"dense layer (median [interquartile range] over {a.repeats} rounds, taking turns; masks uniform at random).", ""]
    for th in a.threads:
        set_threads(th)
        out += [f"### {th} thread{'s' * (th > 1)}", "",
                "| conv (in -> out) | stride | input | sparsity | dense ms | fastsparse | SparseProp | SparseProp (over_on) |",
                "|---|---|---|---|---|---|---|---|"]
        for cin, cout, st, bs, hw in (CONV3_CASES if not a.quick else [(16, 16, 1, 4, 8), (16, 16, 2, 4, 8)]):
            for sp in (0.9, 0.95):
                layers = {}
                for v in ('dense', 'sparse'):
                    torch.manual_seed(0)
                    conv = nn.Conv2d(cin, cout, 3, stride=st, padding=1); sparsify_model(conv, sp); set_compute(conv, v, min_sparsity=0.)
                    layers[v] = conv
                layers['sparse'].load_state_dict(layers['dense'].state_dict())
                x = torch.randn(bs, cin, hw, hw, requires_grad=True)
                dy = torch.randn(bs, cout, (hw - 1) // st + 1, (hw - 1) // st + 1)
                def fb(l):
                    def f(): l.weight.grad = l.bias.grad = x.grad = None; l(x).backward(dy)
                    return f
                fns = {('dense' if v == 'dense' else 'fastsparse'): fb(l) for v, l in layers.items()}
                if SC is not None:
                    w = layers['dense'].weight.detach() * layers['dense'].weight_mask
                    for on in (False, True):
                        spc = SC(w.clone(), nn.Parameter(layers['dense'].bias.detach().clone()), padding=1, stride=st, vectorizing_over_on=on)
                        def g(spc=spc):
                            x.grad = None; spc.zero_grad(set_to_none=True); spc(x).backward(dy)
                        fns[f'sparseprop{"-on" * on}'] = g
                ts = interleaved(fns, a.repeats)
                out.append(f"| {cin} -> {cout} | {st} | {bs}x{cin}x{hw}x{hw} | {sp:g} | {statistics.median(ts['dense']) * 1e3:.1f} | " +
                           " | ".join(ratio(ts, k) if k in ts else '—' for k in ('fastsparse', 'sparseprop', 'sparseprop-on')) + " |")
                print(out[-1], flush=True)
        out.append("")
    return "\n".join(out)

def cuda_section(a) -> str:
    out = ["## CUDA: 2:4-masked and block-sparse Linears in bfloat16", ""]
    if not torch.cuda.is_available(): return "\n".join(out + ["No CUDA GPU here: nothing measured.", ""])
    from fastsparse.core.sparsify import sparsify_model
    from fastsparse.core.compute import set_compute, compute_report
    dev = torch.device('cuda')
    out += [f"{torch.cuda.get_device_name(dev)}, torch {torch.__version__}. Speed-up over the same layer with dense "
            "compute (median [interquartile range] over the rounds, CUDA-synchronised).", "",
            "| layer (out x in) | mask | batch | forward | forward + backward | note |", "|---|---|---|---|---|---|"]
    cases = [(8192, 4096, '2:4', 0.5), (4096, 4096, '2:4', 0.5), (4096, 4096, 'block32x32', 0.9)] if not a.quick else \
            [(256, 256, '2:4', 0.5), (256, 256, 'block32x32', 0.75)]
    for n, bs, pattern, sp in cases:
        lins = {}
        for v in ('dense', 'sparse'):
            torch.manual_seed(0)
            lin = nn.Linear(n, n).to(dev, torch.bfloat16); sparsify_model(lin, sp, pattern=pattern); set_compute(lin, v)
            lins[v] = lin
        lins['sparse'].load_state_dict(lins['dense'].state_dict())
        x = torch.randn(bs, n, device=dev, dtype=torch.bfloat16, requires_grad=True); dy = torch.randn(bs, n, device=dev, dtype=torch.bfloat16)
        def fwd(l):
            def f():
                with torch.no_grad(): l(x)
                torch.cuda.synchronize()
            return f
        def fb(l):
            def f():
                l.weight.grad = None; x.grad = None; l(x).backward(dy); torch.cuda.synchronize()
            return f
        tf = interleaved({v: fwd(l) for v, l in lins.items()}, a.repeats * 5)
        tb = interleaved({v: fb(l) for v, l in lins.items()}, a.repeats * 5)
        out.append(f"| {n}x{n} | {pattern} {sp:g} | {bs} | {ratio(tf, 'sparse')} | {ratio(tb, 'sparse')} | {compute_report(lins['sparse']).note[0]} |")
        print(out[-1], flush=True)
    return "\n".join(out + [""])

COMPILE_RUNS = ('dense', 'dense/compiled', 'sparse', 'sparse/compiled')

def compile_section(a) -> str:
    "The wide MLP's training step under torch.compile (Inductor): sparse compute runs eagerly between the compiled graphs"
    import logging
    set_threads(a.threads[0])
    torch._logging.set_logs(dynamo=logging.ERROR)
    sizes = (64, 128, 128, 10) if a.quick else (784, 4096, 4096, 10)
    bs = 16 if a.quick else 128
    g = torch.Generator().manual_seed(0)
    X, Y = torch.randn(bs, sizes[0], generator=g), torch.randint(0, sizes[-1], (bs,), generator=g)
    fns, warm = {}, {}
    for v in COMPILE_RUNS:
        net = _mlp_wide(0, sizes)
        opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
        if not v.startswith('dense'): opt = _between_updates(net, opt, 'sparse')
        f = torch.compile(net) if v.endswith('/compiled') else net
        def step(f=f, opt=opt):
            F.cross_entropy(f(X), Y).backward(); opt.step(); opt.zero_grad()
        t = time.perf_counter(); step(); warm[v] = time.perf_counter() - t     # the compile, for the compiled runs
        fns[v] = step
    ts = interleaved(fns, a.repeats)
    out = ["## Under torch.compile", "",
           f"`python bench/bench_sparse_train.py --sections compile --threads {a.threads[0]} --repeats {a.repeats}` on {_where()}: the "
           f"{'-'.join(map(str, sizes))} MLP at batch {bs}, one training step (forward, backward, SGD with momentum); "
           "*sparse*: RigL at 90% ERK between updates with `compute='sparse'`; *compiled*: `torch.compile(model)` (Inductor), "
           f"the sparse layers running eagerly between its graphs; {a.threads[0]} thread(s). Speed-up over the eager dense "
           "step (median [interquartile range] over the rounds).", "",
           "| run | ms per step | speed-up over eager dense | first step (compile) s |", "|---|---|---|---|"]
    return "\n".join(out + _step_rows(COMPILE_RUNS, ts, {v: f"{w:.1f}" for v, w in warm.items()}) + [""])

GPT_RUNS = ('dense', 'rigl/dense', 'rigl/sparse', 'rigl/compact', 'rigl/auto')

def e2e_gpt2_section(a) -> str:
    "A GPT-2 built from its config (transformers), RigL at 90% ERK: the training step against dense, AdamW"
    from transformers import GPT2Config, GPT2LMHeadModel
    from transformers.utils import logging as hf_logging
    from fastsparse.core.compute import compute_report
    hf_logging.set_verbosity_error()
    set_threads(a.threads[0])
    n_layer, width, vocab, seq, bs = (2, 64, 100, 16, 2) if a.quick else (4, 512, 2000, 128, 8)
    cfg = GPT2Config(n_layer=n_layer, n_embd=width, n_head=8, vocab_size=vocab, n_positions=seq, attn_pdrop=0., resid_pdrop=0.,
                     embd_pdrop=0., bos_token_id=0, eos_token_id=0)
    ids = torch.randint(0, vocab, (bs, seq), generator=torch.Generator().manual_seed(0))
    fns, models = {}, {}
    for v in GPT_RUNS:
        torch.manual_seed(0)
        m = GPT2LMHeadModel(cfg)
        opt = torch.optim.AdamW(m.parameters(), lr=1e-4)
        if v != 'dense':
            c = v.split('/')[1]
            opt = _between_updates(m, opt, 'sparse' if c == 'compact' else c, compact=c == 'compact')
        def step(m=m, opt=opt):
            m(ids, labels=ids).loss.backward(); opt.step(); opt.zero_grad()
        step()                 # 'auto' times its layers here
        fns[v], models[v] = step, m
    ts = interleaved(fns, a.repeats)
    rep = compute_report(models['rigl/auto'])
    n_sp = int(rep.note.str.contains(': sparse').sum())
    out = ["## End to end: GPT-2 from its config, RigL at 90% ERK", "",
           f"`python bench/bench_sparse_train.py --sections e2e_gpt2 --threads {a.threads[0]} --repeats {a.repeats}` on "
           f"{_where()}: `GPT2LMHeadModel` ({n_layer} blocks, width {width}, vocabulary {vocab}), batch "
           f"{bs} x {seq} tokens, AdamW; one training step (forward, backward, step) between RigL's updates "
           f"(`growth_gradient='step'`); its {len(rep)} masked `Conv1D` layers at 90% ERK (the embeddings and the tied head "
           f"stay dense); *compact*: `compact=True`; *auto*: {n_sp} of {len(rep)} layers chose sparse; {a.threads[0]} thread(s). "
           "Speed-up over the dense model's step (median [interquartile range] over the rounds).", "",
           "| run | ms per step | speed-up over dense |", "|---|---|---|"]
    return "\n".join(out + _step_rows(GPT_RUNS, ts) + [""])

SECTIONS = dict(layer=layer_section, step=step_section, e2e=e2e_section, overhead=overhead_section, conv=conv_section, conv3=conv3_section, e2e_cnn=e2e_cnn_section, cuda=cuda_section, compile=compile_section, e2e_gpt2=e2e_gpt2_section)

def main(argv=None):
    p = argparse.ArgumentParser('bench_sparse_train.py', description=__doc__.split('\n')[0])
    p.add_argument('--sections', nargs='+', default=list(SECTIONS), choices=list(SECTIONS))
    p.add_argument('--threads', type=int, nargs='+', default=[1, 2])
    p.add_argument('--repeats', type=int, default=9)
    p.add_argument('--seeds', type=int, default=3)
    p.add_argument('--epochs', type=int, default=1)
    p.add_argument('--n-train', type=int, default=6000)
    p.add_argument('--every', type=int, default=100, help='e2e: optimizer steps between mask updates')
    p.add_argument('--runs', nargs='+', default=None, choices=E2E_RUNS, help='e2e: these runs only (and dense)')
    p.add_argument('--quick', action='store_true', help='tiny layer shapes (a smoke test)')
    p.add_argument('--out', default=str(HERE / 'SPARSE_TRAIN.md'))
    p.add_argument('--append', action='store_true', help='add the sections to the end of --out instead of replacing it')
    p.add_argument('--rss-worker', default=None, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.rss_worker: return _peak_rss_worker(a.rss_worker, 20, a.threads[0])
    import fastsparse
    head = [f"# Sparse compute in training", "",
            f"`python bench/bench_sparse_train.py {' '.join(argv if argv is not None else sys.argv[1:])}` on "
            f"{_where()}. The machine is shared: ratios in one process, taking turns, medians.", ""]
    body = [SECTIONS[s](a) for s in a.sections]
    old = Path(a.out).read_text() + "\n" if a.append and Path(a.out).exists() else ""
    Path(a.out).write_text(old + "\n".join((head[2:] if old else head) + body))
    print(f"wrote {a.out}")

if __name__ == '__main__': main()
