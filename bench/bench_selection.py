"""How the sample that brackets a selection's cut affects the mask updates of a wide MLP, in one process, taking turns.

    python bench/bench_selection.py [--rounds 3] [--steps 40] [--every 10] [--threads 1] [--out bench/SELECTION.md]

RigL's and SRigL's updates select among millions of scores (`ops.select._np_top_k`, `ops.kernels.rewire`). Both first
read a sample of the scores to bracket the cut, so that only a thin band near it is selected exactly; a sample that
misjudges shows in the counts and the selection falls back to a pass over every candidate (the same result, slower).
The sample was every `step`-th score; it is now one score in each stride of `step`, at a place a fixed hash picks
(`select._sample_at`). This script trains the 784-4096-4096-10 MLP at 90% ERK with `compute='sparse'` on Fashion-MNIST
(the 8x8 digits scaled up where it is not installed) with each sample in turn, from the same seed, and reports the time
of the steps that update masks and how many selections fell back. The masks are the same either way (checked here)."""
import argparse, statistics, sys, time, warnings
from pathlib import Path
import numpy as np, torch, torch.nn as nn

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

def strided_at(n:int) -> np.ndarray:
    "The sample as it was: the first score of each stride"
    from fastsparse.ops.select import _sample_step
    step = _sample_step(n)
    return np.arange(0, (n // step) * step, step, dtype=np.int64)

_NOW = {'n': 0}       # exact selections over more than a million entries in the step being timed

def spy():
    "Count the exact selections over more than a million entries: the fallbacks of a sample that misjudged"
    import fastsparse.ops.select as S, fastsparse.ops.kernels as K
    kth, sel, keys = S._np_kth_cut, K._select, K._by_keys
    def _kth(v, k, largest=True, pos=None):
        _NOW['n'] += v.size > 1_000_000; return kth(v, k, largest, pos)
    def _sel(s, a, idx, k, largest, keys_=None):
        _NOW['n'] += idx.size > 1_000_000; return sel(s, a, idx, k, largest, keys_)
    def _keys(ks, k, largest):
        _NOW['n'] += ks.size > 1_000_000; return keys(ks, k, largest)
    S._np_kth_cut, K._np_kth_cut, K._select, K._by_keys = _kth, _kth, _sel, _keys

def run(alg:str, sample, X, Y, steps:int, every:int):
    """Train from seed 0 with `sample` as the selections' sample: the update steps' times (ms, the first left out),
    the fallbacks in them, and the final masks"""
    import fastsparse.ops.select as S, fastsparse.ops.kernels as K
    from fastsparse.loop.optim import sparse_optimizer
    S._sample_at = K._sample_at = sample
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(784, 4096), nn.ReLU(), nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 10))
    opt = sparse_optimizer(alg, m, torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9), 0.9, distribution='erk',
                           total_steps=10 * steps, every=every, compute='sparse')
    times, fallbacks, n = [], 0, len(X)
    for i in range(steps):
        b = slice((i * 128) % n, (i * 128) % n + 128)
        _NOW['n'] = 0
        t = time.perf_counter()
        opt.zero_grad(); nn.functional.cross_entropy(m(X[b]), Y[b]).backward(); opt.step()
        dt = time.perf_counter() - t
        if (i + 1) % every == 0 and i + 1 > every: times.append(dt * 1e3); fallbacks += _NOW['n']
    return times, fallbacks, [l.weight_mask.clone() for l in m if hasattr(l, 'weight_mask')]

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--rounds', type=int, default=3)
    p.add_argument('--steps', type=int, default=40)
    p.add_argument('--every', type=int, default=10)
    p.add_argument('--threads', type=int, default=1)
    p.add_argument('--out', default=str(HERE / 'SELECTION.md'))
    a = p.parse_args(argv)
    warnings.simplefilter('ignore'); torch.set_num_threads(a.threads)
    import fastsparse.ops.select as S
    from bench_sparse_train import _images
    name, (X, Y), _ = _images(128 * a.steps, 100, 0)
    samples = dict(strided=strided_at, hashed=S._sample_at)
    spy()
    times, falls, masks = {}, {}, {}
    for r in range(a.rounds):
        for alg in ('rigl', 'srigl'):
            for k in (list(samples) if r % 2 == 0 else list(samples)[::-1]):   # taking turns, each first in turn
                t, f, ms = run(alg, samples[k], X, Y, a.steps, a.every)
                times.setdefault((alg, k), []).extend(t); falls[(alg, k)] = falls.get((alg, k), 0) + f
                masks.setdefault((alg, k), ms)
                print(alg, k, 'round', r, [round(x) for x in t], 'fallbacks', f, flush=True)
    n_upd = a.rounds * (a.steps // a.every - 1)
    lines = ["# The sample that brackets a selection", "",
             f"`python bench/bench_selection.py --rounds {a.rounds} --steps {a.steps} --every {a.every} --threads {a.threads}` "
             f"on x86_64, torch {torch.__version__}, {a.threads} thread(s), {time.strftime('%Y-%m-%d')}: the 784-4096-4096-10 MLP "
             f"at 90% ERK, `compute='sparse'`, SGD with momentum, batch 128 of {name}, a mask update every {a.every} steps "
             f"(the first update left out: Numba loads its code there); the two samples take turns from the same seed, "
             f"{a.rounds} rounds, {n_upd} updates each. *strided*: the first score of each stride (the code before); "
             "*hashed*: one at a hashed place in each stride (`select._sample_at`).", "",
             "| method | sample | update step ms, median [min-max] | selections over 1M scores that fell back to a full pass | masks |",
             "|---|---|---|---|---|"]
    for alg in ('rigl', 'srigl'):
        same = all(torch.equal(x, y) for x, y in zip(masks[(alg, 'strided')], masks[(alg, 'hashed')]))
        for k in samples:
            t = times[(alg, k)]
            lines.append(f"| {alg} | {k} | {statistics.median(t):.0f} [{min(t):.0f}-{max(t):.0f}] | {falls[(alg, k)]} | "
                         f"{'the same as the other sample' if same else 'DIFFERENT'} |")
    Path(a.out).write_text('\n'.join(lines) + '\n')
    print('\n'.join(lines))

if __name__ == '__main__':
    main()
