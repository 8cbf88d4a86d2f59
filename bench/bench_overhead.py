"""What the dense road's masking costs per training step, piece by piece (LeNet-300-100, batch 128, 90% ERK, one thread).

    python bench/bench_overhead.py [--repeats 15] [--out bench/OVERHEAD.md]

Whole steps (forward, backward, `torch.optim.SGD` step with momentum) are timed interleaved in one process, step by
step in a random order: the dense model; masks and hooks alone (`sparsify_model`, no method: the forward hook masks
the weights again after every optimizer step, since nothing vouches for them); static masks under a method
(`sparse_optimizer('static_sparse')`: the driver vouches after each step that the masked weights are still zero);
RigL between updates with its default summed gradient and with `growth_gradient='step'`; the three with
`compute='auto'` (each layer the faster of the dense road and the sparse products, timed on its first batch); the static step taken
apart in place (without the wrapper's bookkeeping, with fastsparse's gradient hooks replaced by bare multiplies, or
without the forward pre-hooks, or all three at once); and two floors without
fastsparse, the same masks applied to the weight gradients by a bare post-accumulate hook per layer (one float-mask
multiply each), or by one multi-tensor multiply between backward and step: what any dense road that keeps masked
gradients at zero pays. Then each piece the sparse
steps add is timed alone, on the same layers: the forward pre-hooks when nothing changed, the driver's `mark`, the
gradient hooks (the float-mask multiply and the Python around it), the weight masking pass the forward hook makes
when it must, and RigL's summing of the step's gradient."""
import argparse, random, statistics, sys, time
from pathlib import Path
import torch, torch.nn as nn, torch.nn.functional as F

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _machine import where as _machine                   # the CPU's name and vector unit: figures differ between CPUs

def lenet(seed=0):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(784, 300), nn.ReLU(), nn.Linear(300, 100), nn.ReLU(), nn.Linear(100, 10))

def per_call(f, n:int, rounds:int) -> list:
    "Microseconds per call of `f`, one figure per round of `n` calls"
    for _ in range(20): f()
    out = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(n): f()
        out.append((time.perf_counter() - t) / n * 1e6)
    return out

def med(xs): return statistics.median(xs)
def iqr(xs):
    q = statistics.quantiles(xs, n=4) if len(xs) > 1 else [xs[0]] * 3
    return f"[{q[0]:.1f}-{q[2]:.1f}]"

def main(argv=None):
    p = argparse.ArgumentParser('bench_overhead.py', description=__doc__.split('\n')[0])
    p.add_argument('--repeats', type=int, default=15)
    p.add_argument('--out', default=str(HERE / 'OVERHEAD.md'))
    a = p.parse_args(argv)
    torch.set_num_threads(1)
    import warnings; warnings.simplefilter('ignore')
    import fastsparse as fs
    from fastsparse.loop.optim import sparse_optimizer
    from fastsparse.core.sites import masked_sites
    from fastsparse.core.hooks import _mask_grad_
    X, Y = torch.randn(128, 784), torch.randint(0, 10, (128,))
    # ---- whole steps -------------------------------------------------------------------------------------------
    runs = {}
    def plain(net, opt):
        def f(): F.cross_entropy(net(X), Y).backward(); opt.step(); opt.zero_grad()
        return f
    net = lenet(); runs['dense'] = plain(net, torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9))
    net = lenet(); fs.sparsify_model(net, 0.9, sparse_f=fs.erdos_renyi_sparsity)
    runs['masks and hooks alone'] = plain(net, torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9))
    for name, method, kw in (("static ('static_sparse')", 'static_sparse', {}),
                             ('RigL between updates (summed gradient)', 'rigl', {}),
                             ("RigL between updates (growth_gradient='step')", 'rigl', dict(growth_gradient='step')),
                             ("static, compute='auto'", 'static_sparse', dict(compute='auto')),
                             ("RigL between updates (summed gradient), compute='auto'", 'rigl', dict(compute='auto')),
                             ("RigL between updates (growth_gradient='step'), compute='auto'", 'rigl', dict(growth_gradient='step', compute='auto'))):
        net = lenet()
        o = sparse_optimizer(method, net, torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9), 0.9,
                             distribution='erk', total_steps=10 ** 7, every=10 ** 6, **kw)
        runs[name] = plain(net, o)
    def bare_hook(fm):
        "A gradient hook that multiplies by the float mask `fm` and does nothing else"
        def hook(p): p.grad.mul_(fm)
        return hook
    # the static step taken apart in place: each variant leaves one part of it out (none of them is safe to train with)
    def static():
        net = lenet()
        o = sparse_optimizer('static_sparse', net, torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9), 0.9,
                             distribution='erk', total_steps=10 ** 7, every=10 ** 6)
        return net, o
    def no_wrapper(net, o):
        "The inner optimizer stepped, then the driver's marks: the step without the wrapper's bookkeeping"
        inner, marks = plain(net, o.opt), o.updater.marks
        def f():
            inner()
            for m in marks: m()
        return f
    def bare_grad_hooks(net):
        "fastsparse's gradient hooks replaced by bare multiplies"
        for st_ in masked_sites(net):
            d = st_.weight._post_accumulate_grad_hooks
            for k in [k for k, h in d.items() if getattr(h, '_fastsparse', False)]: del d[k]
            st_.weight.register_post_accumulate_grad_hook(bare_hook(st_.mask.float()))
    def no_pre_hooks(net):
        "fastsparse's forward pre-hooks taken off"
        for m in net:
            for k in [k for k, h in m._forward_pre_hooks.items() if getattr(h, '_fastsparse', False)]: del m._forward_pre_hooks[k]
    net, o = static()
    runs["static, without the wrapper's bookkeeping (the inner optimizer stepped, then the marks)"] = no_wrapper(net, o)
    net, o = static(); bare_grad_hooks(net)
    runs["static, fastsparse's gradient hooks replaced by bare ones"] = plain(net, o)
    net, o = static(); no_pre_hooks(net)
    runs['static, without the forward pre-hooks'] = plain(net, o)
    net, o = static(); bare_grad_hooks(net); no_pre_hooks(net)       # what the three parts cost together
    runs["static, without all three (the wrapper's bookkeeping, fastsparse's gradient hooks, the forward pre-hooks)"] = no_wrapper(net, o)
    # the floor of any dense road that masks gradients: the same masks' one multiply per weight gradient, no fastsparse
    net = lenet(); fs.sparsify_model(net, 0.9, sparse_f=fs.erdos_renyi_sparsity)
    fmasks = [s.mask.float() for s in masked_sites(net)]
    net = lenet(); lins = [m for m in net if isinstance(m, nn.Linear)]
    with torch.no_grad():
        for m, fm in zip(lins, fmasks): m.weight.mul_(fm)
    for m, fm in zip(lins, fmasks): m.weight.register_post_accumulate_grad_hook(bare_hook(fm))
    runs['floor: a bare gradient hook per layer (its float-mask multiply)'] = plain(net, torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9))
    net = lenet(); lins = [m for m in net if isinstance(m, nn.Linear)]
    with torch.no_grad():
        for m, fm in zip(lins, fmasks): m.weight.mul_(fm)
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    def one_pass():
        F.cross_entropy(net(X), Y).backward(); torch._foreach_mul_([m.weight.grad for m in lins], fmasks)
        opt.step(); opt.zero_grad()
    runs['floor: one multi-tensor mask multiply after backward'] = one_pass
    for f in runs.values():
        for _ in range(30): f()
    ts = {k: [] for k in runs}
    rng = random.Random(0)
    for r in range(a.repeats):
        for k in rng.sample(list(runs), len(runs)):
            f = runs[k]; t0 = time.perf_counter()
            for _ in range(20): f()
            ts[k].append((time.perf_counter() - t0) / 20 * 1e6)
    dense = ts['dense']
    rows = ["| step | µs (median) | over dense, per round: median [IQR] |", "|---|---|---|"]
    for k, v in ts.items():
        r = [x / d for x, d in zip(v, dense)]
        q = statistics.quantiles(r, n=4)
        rows.append(f"| {k} | {med(v):.0f} | {med(r):.3f} [{q[0]:.3f}-{q[2]:.3f}] |")
    # ---- the pieces ----------------------------------------------------------------------------------------------
    net = lenet(); fs.sparsify_model(net, 0.9, sparse_f=fs.erdos_renyi_sparsity)
    sites = masked_sites(net)
    F.cross_entropy(net(X), Y).backward()
    users = [u for s in sites for u in s.users]
    pre = [next(h for h in u._forward_pre_hooks.values() if getattr(h, '_fastsparse', False)) for u in users]
    ghooks = [next(h for h in s.weight._post_accumulate_grad_hooks.values() if getattr(h, '_fastsparse', False)) for s in sites]
    grads = [s.weight.grad for s in sites]
    fresh = [torch.randn_like(g) for g in grads]
    def pre_hooks():
        for u, h in zip(users, pre): h(u, (X,))
    def marks():
        for h in pre: h.mark()
    def grad_hooks():
        for s, h, g, f0 in zip(sites, ghooks, grads, fresh):
            g.copy_(f0); h(s.weight)
    def copies():
        for g, f0 in zip(grads, fresh): g.copy_(f0)
    def weight_pass():
        with torch.no_grad():
            for s in sites: _mask_grad_(s.weight.data, s.mask_buffer, s.record)
    sums = [torch.zeros_like(g) for g in grads]
    def rigl_sum():
        for t, g in zip(sums, grads): t.add_(g)
    n, R = 400, max(5, a.repeats // 2)
    piece = {
        'forward pre-hooks, nothing changed (3 layers)': per_call(pre_hooks, n, R),
        "the driver's mark after a step (3 layers)": per_call(marks, n, R),
        'gradient hooks: float-mask multiply and Python (3 layers)': [a_ - b_ for a_, b_ in zip(per_call(grad_hooks, n, R), per_call(copies, n, R))],
        'masking the weights again (the forward hook, after an unvouched step)': per_call(weight_pass, n, R),
        "RigL's sum of the step's gradient (its window)": per_call(rigl_sum, n, R),
    }
    # the weights as MaskedParameter (what lets a write through `.data` be seen), no hooks: a dense step either way
    from fastsparse.core.hooks import MaskedParameter
    twins = {}
    for k in ('Parameter', 'MaskedParameter'):
        net = lenet(); opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
        if k == 'MaskedParameter':
            for m in net:
                if isinstance(m, nn.Linear): m.weight.__class__ = MaskedParameter
        twins[k] = plain(net, opt)
    tt = {k: [] for k in twins}
    for r in range(a.repeats):
        for k in rng.sample(list(twins), 2):
            f = twins[k]; t0 = time.perf_counter()
            for _ in range(20): f()
            tt[k].append((time.perf_counter() - t0) / 20 * 1e6)
    piece['the weights as MaskedParameter, a Parameter subclass (a dense step with and without)'] = \
        [x - y for x, y in zip(tt['MaskedParameter'], tt['Parameter'])]
    d = med(dense)
    prows = ["| piece | µs per step (median [IQR]) | share of a dense step |", "|---|---|---|"]
    for k, v in piece.items(): prows.append(f"| {k} | {med(v):.1f} {iqr(v)} | {100 * med(v) / d:.1f}% |")
    text = "\n".join([
        "# What masking costs on the dense road", "",
        f"`python bench/bench_overhead.py {' '.join(argv if argv is not None else sys.argv[1:])}` on "
        f"{_machine()}, torch {torch.__version__}, one thread, "
        f"{time.strftime('%Y-%m-%d')}. LeNet-300-100 at batch 128, 90% ERK, `torch.optim.SGD` with momentum; each "
        f"figure is a median over {a.repeats} rounds of 20 steps, the variants taking turns in a random order.", "",
        "## Whole steps", "", *rows, "",
        "## The pieces a sparse step adds", "",
        "Each timed alone on the same three layers (the gradient hooks on a fresh gradient each call, the cost of "
        "writing it subtracted):", "", *prows, "",
    ])
    Path(a.out).write_text(text); print(text)

if __name__ == '__main__': main()
