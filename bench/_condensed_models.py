"""The sections of `bench_condensed.py` that train: LeNet-300-100 and LeNet-5 on Fashion-MNIST with RigL, SRigL and
Chase at 90% (the `cpu` grid's settings, 3 seeds), ResNet-18 (CIFAR-style stem) with Chase, and training step times.

Trained models are cached in `bench/condensed_runs/` (`*.pth`, not committed) with one JSON line per run in
`runs.jsonl`, so that the timing sections can be run again on a quiet machine without training again."""
import json, statistics, time, warnings
from pathlib import Path
import torch

CACHE = Path(__file__).resolve().parent / 'condensed_runs'
GRID = dict(mlp=dict(epochs=10), lenet5=dict(epochs=5))        # the cpu grid preset: Adam one-cycle, lr 3e-3, batch 128
METHODS = ('rigl', 'srigl', 'chase', 'chase-0.5', 'chase-layer', 'chase-conv')
# chase-layer and chase-conv exist for LeNet-5, whose time is in its first convolutions (LeNet-300-100 is fast with chase-0.5)
MODEL_METHODS = dict(mlp=METHODS[:4], lenet5=METHODS)
SEEDS = (0, 1, 2)
# a name of this benchmark -> (the registry's method, its arguments): Chase at the reference code's CIFAR setting too
VARIANTS = {'chase-0.5': ('chase', dict(channel_sparsity=0.5)),
            'chase-layer': ('chase', dict(channel_sparsity=0.5, channel_ranking='layer', channel_end=1.)),
            'chase-conv': ('chase', dict(channel_sparsity={'0': 0.5, '3': 0.5}))}

def _runs() -> dict:
    f = CACHE / 'runs.jsonl'
    if not f.exists(): return {}
    rows = [json.loads(l) for l in f.read_text().splitlines() if l.strip()]
    return {(r['model'], r['method'], r['seed']): r for r in rows}

def train_run(model, method, seed, epochs=None, n_train=None, every=None, **kw):
    "Train one run (or take it from the cache): its JSON row; the masked model is saved with `save_sparse`"
    from fastsparse.train import train
    from fastsparse.export import save_sparse
    key = (model, method, seed)
    have = _runs()
    if key in have: return have[key]
    CACHE.mkdir(exist_ok=True)
    meth, args = VARIANTS.get(method, (method, None))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        r = train(meth, 0.9 if method != 'dense' else None, 'erk', 'fashion-mnist', model, bs=128, lr=3e-3, seed=seed,
                  epochs=epochs or GRID[model]['epochs'], n_train=n_train, every=every, show_progress=False, log=None,
                  return_model=True, method_args=args, **kw)
    m = r.pop('model')
    if method != 'dense': save_sparse(m, CACHE / f'{model}-{method}-{seed}.pth')
    else: torch.save(m.state_dict(), CACHE / f'{model}-{method}-{seed}.pth')
    total = r['report'][-1] if r['report'] else {}
    row = dict(model=model, method=method, seed=seed, accuracy=r['accuracy'], train_time_s=r['train_time_s'],
               epochs=r['epochs'], n_train=n_train, ablated=total.get('ablated', 0), sparsity=total.get('sparsity', 0.))
    with open(CACHE / 'runs.jsonl', 'a') as f: f.write(json.dumps(row) + '\n')
    print(f"  trained {model} {method} seed {seed}: accuracy {row['accuracy']:.4f} in {row['train_time_s']:.0f} s", flush=True)
    return row

def load_run(model, method, seed):
    "The masked model of a cached run (with its masks and hooks), in eval mode"
    from fastsparse.train import MODELS
    from fastsparse.export import load_sparse
    net = MODELS[model]()
    if method == 'dense': net.load_state_dict(torch.load(CACHE / f'{model}-{method}-{seed}.pth', weights_only=True))
    else: load_sparse(net, CACHE / f'{model}-{method}-{seed}.pth')
    return net.eval()

def _time_pair(fns:dict, repeats:int) -> dict:
    "Median seconds (and min, max) of each function, interleaved (order reversed every round) after a warm-up"
    from _common import interleaved_runs
    ts = interleaved_runs(fns, repeats)
    return {k: (statistics.median(v), min(v), max(v)) for k, v in ts.items()}

def _test_images(model):
    from fastsparse.data import read_idx, FASHION_MNIST_PATH
    x = torch.from_numpy(read_idx(FASHION_MNIST_PATH / 't10k-images-idx3-ubyte.gz').copy()).float().div_(255.)
    y = torch.from_numpy(read_idx(FASHION_MNIST_PATH / 't10k-labels-idx1-ubyte.gz').copy()).long()
    return (x.reshape(len(x), -1) if model == 'mlp' else x[:, None]), y

def _infer(net, x, bs):
    with torch.inference_mode():
        return torch.cat([net(x[i:i + bs]) for i in range(0, len(x), bs)])

def lenet_section(args) -> str:
    "Accuracy over 3 seeds, and condensed against dense inference on the 10,000 test images"
    from fastsparse.core import remove_sparse_hooks
    from fastsparse.condense import condense, inference_kernels
    print('lenet: training (cached runs are reused)', flush=True)
    rows = [train_run(m, meth, s) for m in GRID for meth in MODEL_METHODS[m] for s in SEEDS]
    out = ["## LeNets on Fashion-MNIST at 90% (ERK)", "",
           "Trained with `fastsparse.train.train` on the `cpu` grid's settings (Adam one-cycle, lr 3e-3, batch 128; "
           f"LeNet-300-100 {GRID['mlp']['epochs']} epochs, LeNet-5 {GRID['lenet5']['epochs']} epochs), seeds {list(SEEDS)}. "
           "Accuracy on the 10,000 test images; `ablated`: units or channels removed (mean over seeds). `chase` removes "
           "30% of the removable channels (the default, as in the paper's ImageNet runs), `chase-0.5` half of them "
           "(`channel_sparsity=0.5`, the reference code's CIFAR scripts), and `chase-layer` half of every removable layer's "
           "channels (`channel_ranking='layer'`, over the whole update window: `channel_end=1`); `chase-conv` half of the two "
           "convolutions' channels and none of the `Linear` layers' units (`channel_sparsity={'0': 0.5, '3': 0.5}`, each "
           "named layer its own fraction).", "",
           "| model | method | accuracy (mean ± std) | vs RigL (points) | ablated units | train time (s) |", "|---|---|---|---|---|---|"]
    acc = {}
    for m in GRID:
        for meth in MODEL_METHODS[m]:
            rs = [r for r in rows if r['model'] == m and r['method'] == meth]
            a = [r['accuracy'] * 100 for r in rs]
            acc[m, meth] = statistics.fmean(a)
            sd = statistics.stdev(a) if len(a) > 1 else 0.
            diff = acc[m, meth] - acc[m, 'rigl']
            out.append(f"| {m} | {meth} | {acc[m, meth]:.2f} ± {sd:.2f} | {diff:+.2f} | "
                       f"{statistics.fmean(r['ablated'] for r in rs):.0f} | {statistics.fmean(r['train_time_s'] for r in rs):.0f} |")
    out += ["", "Inference on the 10,000 test images (seed 0's models). *dense* is the same architecture with the trained "
            "weights, computed densely, as PyTorch runs it; *dense, same kernels* is `inference_kernels(dense, images[:bs])`, "
            "the dense model with the convolution and pooling kernels `condense` chooses (they speed up a dense model as "
            "much as a condensed one: see below); *condensed* is `condense(model, batch_size=bs, example=images[:bs])`. "
            "So *vs dense* is what a user gets from `condense`, and *vs same kernels* is what the removed units and "
            f"condensed layers alone buy. Medians of {min(args.repeats, 7)} interleaved repeats (min-max in brackets); the "
            "outputs of the condensed model are checked against the masked model's.", "",
            "| model | method | batch | dense (ms) | dense, same kernels (ms) | condensed (ms) | vs dense | vs same kernels | "
            "parameters dense → condensed | kernels |", "|---|---|---|---|---|---|---|---|---|---|"]
    for m in GRID:
        x, y = _test_images(m)
        for meth in MODEL_METHODS[m]:
            net = load_run(m, meth, 0)
            ref = _infer(net, x, 1000)
            dense = load_run(m, meth, 0); remove_sparse_hooks(dense)
            for bs in (1, 256):
                small, rep = condense(net, batch_size=bs, repeats=5, example=x[:bs])
                same, _ = inference_kernels(dense, x[:bs], repeats=5)
                got = _infer(small, x, 1000)
                assert (got - ref).abs().max() < 1e-4 and (got.argmax(1) == ref.argmax(1)).all(), (m, meth, bs)
                n_dense = sum(p.numel() for p in dense.parameters())
                n_small = sum(t.numel() for t in [*small.parameters(), *small.buffers()] if t.dtype.is_floating_point)
                fns = {"dense": lambda: _infer(dense, x, bs), "condensed": lambda: _infer(small, x, bs)}
                has_alt = any(type(a) is not type(b) for a, b in zip(same.modules(), dense.modules()))
                if has_alt: fns['same'] = lambda: _infer(same, x, bs)
                t = _time_pair(fns, min(args.repeats, 7))
                if not has_alt: t['same'] = t['dense']           # no kernel to swap: the same model
                (td, dlo, dhi), (tk, klo, khi), (tc, clo, chi) = t['dense'], t['same'], t['condensed']
                kern = ', '.join(f"{r.layer}: {r.kernel}" for r in rep.itertuples() if r.kernel != 'dense') or 'none (all PyTorch)'
                out.append(f"| {m} | {meth} | {bs} | {td * 1e3:.0f} [{dlo * 1e3:.0f}-{dhi * 1e3:.0f}] | {tk * 1e3:.0f} "
                           f"[{klo * 1e3:.0f}-{khi * 1e3:.0f}] | {tc * 1e3:.0f} [{clo * 1e3:.0f}-{chi * 1e3:.0f}] | {td / tc:.2f}x | "
                           f"{tk / tc:.2f}x | {n_dense:,} → {n_small:,} | {kern} |")
                print(out[-1], flush=True)
    return '\n'.join(out)

def resnet_section(args) -> str:
    "ResNet-18 (CIFAR-style stem) trained with Chase, condensed against dense at 32x32, batch 1 and 64"
    from fastsparse.core import remove_sparse_hooks, masked_sites
    from fastsparse.condense import condense, inference_kernels
    print('resnet18: training with chase (a short run: what matters here is the channels it removes)', flush=True)
    row = train_run('resnet18', 'chase', 0, epochs=2, n_train=4096, every=4)
    net = load_run('resnet18', 'chase', 0)
    dense = load_run('resnet18', 'chase', 0); remove_sparse_hooks(dense)
    out = ["## ResNet-18 (CIFAR-style stem) with Chase at 90% (ERK)", "",
           f"Trained 2 epochs on 4,096 Fashion-MNIST images (every 4 steps), enough for Chase's channel ramp to finish; "
           f"accuracy {row['accuracy']:.3f} (not the point of this run). Chase removes channels only where "
           "`channel_links` can cut them out: the first convolution of each block (the others feed residual "
           "additions). Inputs 32x32, medians of interleaved repeats (min-max). *dense, same kernels* is "
           "`inference_kernels(dense, x)`, as in the LeNet table; *kernels* lists the layers whose kernel `condense` changed.", "",
           "| batch | dense (ms) | dense, same kernels (ms) | condensed (ms) | vs dense | vs same kernels | "
           "parameters dense → condensed | kernels |", "|---|---|---|---|---|---|---|---|"]
    for bs in (1, 64):
        x = torch.randn(bs, *_resnet_input(net))
        small, rep = condense(net, batch_size=bs, repeats=3, example=x)
        same, _ = inference_kernels(dense, x, repeats=3)
        with torch.inference_mode(): assert (small(x) - net(x)).abs().max() < 1e-3
        n_dense = sum(p.numel() for p in dense.parameters()); n_small = sum(p.numel() for p in small.parameters())
        def run(m):
            def f():
                with torch.inference_mode(): m(x)
            return f
        t = _time_pair({'dense': run(dense), 'same': run(same), 'condensed': run(small)}, max(args.repeats, 10))
        (td, dlo, dhi), (tk, klo, khi), (tc, clo, chi) = t['dense'], t['same'], t['condensed']
        kern = rep[rep.kernel.isin(['Im2colConv2d', 'SliceMaxPool2d'])]
        ks = f"{len(kern)} convolutions: Im2colConv2d" if len(kern) else "none (all PyTorch)"
        out.append(f"| {bs} | {td * 1e3:.1f} [{dlo * 1e3:.1f}-{dhi * 1e3:.1f}] | {tk * 1e3:.1f} [{klo * 1e3:.1f}-{khi * 1e3:.1f}] | "
                   f"{tc * 1e3:.1f} [{clo * 1e3:.1f}-{chi * 1e3:.1f}] | {td / tc:.2f}x | {tk / tc:.2f}x | {n_dense:,} → {n_small:,} | {ks} |")
        print(out[-1], flush=True)
    removed = rep[rep.units_removed > 0]
    out += ["", f"Channels removed: {int(removed.units_removed.sum())} in {len(removed)} layers "
            f"({', '.join(f'{r.layer} {r.shape[0]}→{r.new_shape[0]}' for r in removed.itertuples())})."]
    return '\n'.join(out)

def _resnet_input(net):
    first = next(m for m in net.modules() if isinstance(m, torch.nn.Conv2d))
    return (first.in_channels, 32, 32)

def training_section(args) -> str:
    "Training step time of the structured methods against dense: LeNet-5, interleaved epochs in one process"
    from _common import make_dls, learner, time_steps
    from fastsparse.data import lenet5
    from fastsparse.algorithms import Learner  # noqa: F401  (adds Learner.sparsify)
    vs = {}
    for meth in ('dense', *METHODS):
        torch.manual_seed(0)
        learn = learner(lenet5(), make_dls((1, 28, 28), 40, 128))
        name, margs = VARIANTS.get(meth, (meth, None))
        if meth != 'dense': learn.sparsify(name, 0.9, distribution='erk', every=10, **(margs or {}))
        vs[meth] = (learn, [])
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        res, reps = time_steps(vs, max(args.repeats, 5), per_repeat=True)
    base = res['dense'][0]
    out = ["## Training step time", "",
           f"LeNet-5 at 90% (ERK), batch 128, SGD with momentum, masks updated every 10 steps (40-step epochs, so each "
           f"epoch has 4 updates, and Chase removes channels on its ramp within every epoch). Median step time over "
           f"{max(args.repeats, 5)} interleaved epochs in one process (min-max of the per-epoch medians in brackets). "
           "Masked training computes every layer densely: removed channels are masked, not sliced out while training, so "
           "a structured method trains at the dense speed plus its mask updates; the speedup comes at inference, after "
           "`condense`.", "",
           "| method | step (ms) | vs dense |", "|---|---|---|"]
    for k, (med, _) in res.items():
        out.append(f"| {k} | {med * 1e3:.1f} [{min(reps[k]) * 1e3:.1f}-{max(reps[k]) * 1e3:.1f}] | {med / base:.2f}x |")
    return '\n'.join(out)

SECTIONS = dict(lenet=lenet_section, resnet18=resnet_section, training=training_section)
