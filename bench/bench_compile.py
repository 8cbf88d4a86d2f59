"""Compiled sparse training against compiled dense training, on CPU (`torch.compile`, inductor, default mode).

    python bench/bench_compile.py [--repeats 7] [--compile-repeats 2] [--models lenet,cnn,resnet18] [--out bench/COMPILE.md]

In one process, for LeNet-300-100 (784 inputs), the small CNN (28x28x1, as in `bench_core.py`) and torchvision's
ResNet-18 (32x32x3, 10 classes), all at batch 64, with `torch.optim.SGD(momentum=0.9)`:

- four variants: dense and sparse, eager and compiled, and a second copy of compiled dense: the ratio of the two
  dense copies (A/A) shows how far the machine's noise alone moves a ratio. Sparse is 90% ERK (`sparsify_model(model, 0.9,
  sparse_f=erdos_renyi_sparsity)`) driven by RigL through `DynamicSparseTrainingOptimizerWrapper(every=100)`;
  compiled is `torch.compile(model)` (the optimizer step and the wrapper stay eager, as in any training loop);
- a training step is forward, loss, backward, the optimizer step (the wrapper's, for sparse) and `zero_grad`;
  the variants take turns step by step (rounds of one step each, in a random order, never one variant twice in a
  row, so that a burst of load on a shared machine hits all alike and none finds its weights still in the caches); a variant's step time is the median over all its steps, its
  spread the range of its per-repeat medians, and the ratios are medians of the per-repeat ratios (with their
  range);
- one RigL mask update is timed apart (median of repeats, as `bench_core.py` does) and added at one per 100
  steps for the amortized figures; update steps are outliers that the medians leave out;
- compile time is the wall time of the first training step of a compiled model, after `torch._dynamo.reset()`
  and in a fresh inductor cache (`torch._inductor.utils.fresh_cache`), after one warm-up compile of an unrelated
  model that pays for what a process compiles once; dense and sparse alternate which goes first.
"""
import argparse, os, random, statistics, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
import _machine                                          # the CPU's name and vector unit
import torch, torch.nn as nn
import torch._dynamo as dynamo
from torch._inductor.utils import fresh_cache
from torchvision.models import resnet18
from fastsparse.all import *

BS = 64
CASES = dict(   # name -> (description, model factory, input shape, rounds per repeat)
    lenet=('LeNet-300-100 (784 inputs)', lambda: lenet_300_100(), (784,), 300),
    cnn=('small CNN (3 conv blocks, 28x28x1)', lambda: small_cnn(width=32), (1, 28, 28), 20),
    resnet18=('ResNet-18 (torchvision, 32x32x3)', lambda: resnet18(num_classes=10), (3, 32, 32), 12))
VARIANTS = ('dense eager', 'sparse eager', 'dense compiled', 'sparse compiled', 'dense compiled, a copy')

NOTES = """## Notes

- In compiled code the forward pre-hooks step aside (no graph break, no recompile, and the sparse model's graph has
  the dense model's operations: `nbs/19_compile.ipynb`). A compiled sparse step therefore costs a compiled dense
  step plus the gradient hooks, which multiply each masked weight's gradient by its mask after the compiled
  backward, plus the driver's Python (a few microseconds a step), plus the mask updates (the amortized column).
- The gradient multiply is one pass over the sparse weights' gradients whatever the model computes: it shows in
  LeNet-300-100's short steps (a few ms) and is lost in the convolutional models' steps. Multiplying all the
  gradients in one `torch._foreach_mul_` before the step, or zeroing them through the active indices, is no
  faster on this machine.
- Eager sparse / eager dense also pays the eager forward pre-hooks.
- A/A runs two identical compiled dense models: its distance from 1 is what noise alone does to a ratio in this run.
- Compile time covers Dynamo's tracing, AOT autograd and inductor's C++ compiles of forward and backward.
"""

def batches(shape, n=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(BS, *shape, generator=g), torch.randint(0, 10, (BS,), generator=g)) for _ in range(n)]

class Variant:
    "A model, its optimizer (a RigL wrapper when sparse) and the callable that trains it (compiled or not)"
    def __init__(self, make, shape, sparse:bool, compiled:bool, seed=0):
        torch.manual_seed(seed)
        self.model = make()
        opt = torch.optim.SGD(self.model.parameters(), lr=0.01, momentum=0.9)
        if sparse:
            sparsify_model(self.model, 0.9, sparse_f=erdos_renyi_sparsity)
            # total_steps far away: RigL keeps rewiring (every 100 steps) for the whole benchmark
            opt = DynamicSparseTrainingOptimizerWrapper(self.model, opt, total_steps=10**7, **RigL_presets, every=100)
        self.opt, self.f = opt, torch.compile(self.model) if compiled else self.model
        self.data, self.i, self.times = batches(shape), 0, []

    def step(self):
        x, y = self.data[self.i % len(self.data)]; self.i += 1
        t = time.perf_counter()
        nn.functional.cross_entropy(self.f(x), y).backward()
        self.opt.step(); self.opt.zero_grad()
        return time.perf_counter() - t

def warm_up_compiler():
    "Compile (forward and backward) an unrelated small model once: what a process pays on its first compile only"
    m = torch.compile(nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 3)))
    with fresh_cache(): m(torch.randn(2, 1, 8, 8)).sum().backward()

def compile_times(make, shape, repeats):
    "Wall time of the first training step of a freshly compiled dense and sparse model: name -> list of seconds"
    out = {'dense': [], 'sparse': []}
    for r in range(repeats):
        for name in (('dense', 'sparse') if r % 2 == 0 else ('sparse', 'dense')):
            dynamo.reset()
            with fresh_cache():
                v = Variant(make, shape, name == 'sparse', compiled=True)
                out[name].append(v.step())
    dynamo.reset()
    return out

def rigl_update_time(make, shape, repeats):
    "Median time of one RigL mask update (drop and regrow 30%) with dense gradients present, as `bench_core.py` times it"
    v = Variant(make, shape, sparse=True, compiled=False)
    upd = v.opt.updater
    x, y = v.data[0]
    set_dense_grads(upd.sites, True)
    nn.functional.cross_entropy(v.model(x), y).backward()
    set_dense_grads(upd.sites, False)
    ts = []
    for _ in range(repeats):
        t = time.perf_counter(); upd.update_masks(0.3); ts.append(time.perf_counter() - t)
    return statistics.median(ts)

def step_times(make, shape, n_rounds, repeats):
    """`repeats` x `n_rounds` rounds of one training step of each variant (a burst of load on a shared machine hits
    all alike), in a new random order every round, never one variant twice in a row (its second step would find its
    weights in the caches): name -> per-repeat lists of step times"""
    dynamo.reset()
    vs = {k: Variant(make, shape, k.startswith('sparse'), 'compiled' in k) for k in VARIANTS}
    for v in vs.values():                        # compile, and warm up
        for _ in range(3): v.step()
    reps, rng, last = {k: [] for k in vs}, random.Random(0), None
    for r in range(repeats):
        for k in vs: reps[k].append([])
        for i in range(n_rounds):
            order = rng.sample(VARIANTS, len(VARIANTS))
            if order[0] == last: order = order[1:] + order[:1]
            for k in order: reps[k][-1].append(vs[k].step())
            last = order[-1]
    for k in ('sparse eager', 'sparse compiled'):        # the masks are still exact: the benchmark trained what it should
        for s in masked_sites(vs[k].model):
            assert int(s.mask.count_nonzero()) == n_ones(s.weight.numel(), s.record.sparsity)
            assert not s.weight.detach()[~s.mask].any()
    return reps, vs['sparse compiled'].opt.n_updates

def summary(reps):
    "Median step time over all steps, and the range of the per-repeat medians, for each variant"
    return {k: (statistics.median([t for b in bl for t in b]), min(map(statistics.median, bl)), max(map(statistics.median, bl)))
            for k, bl in reps.items()}

def ratio(reps, a, b, extra=0.):
    "Median and range over repeats of (median step of `a` + `extra`) / (median step of `b`)"
    rs = [(statistics.median(x) + extra) / statistics.median(y) for x, y in zip(reps[a], reps[b])]
    return statistics.median(rs), min(rs), max(rs)

def main():
    p = argparse.ArgumentParser()
    p.add_argument('--repeats', type=int, default=7)
    p.add_argument('--compile-repeats', type=int, default=2)
    p.add_argument('--models', default='lenet,cnn,resnet18')
    p.add_argument('--threads', type=int, default=None, help="torch.set_num_threads (default: PyTorch's own)")
    p.add_argument('--out', default=str(Path(__file__).parent / 'COMPILE.md'))
    a = p.parse_args()
    if a.threads: torch.set_num_threads(a.threads)
    load0 = os.getloadavg()[0]
    names = a.models.split(',')
    t_start = time.time()
    warm_up_compiler()
    rows = []
    for name in names:
        desc, make, shape, n_steps = CASES[name]
        ct = compile_times(make, shape, a.compile_repeats)
        upd = rigl_update_time(make, shape, max(3, a.repeats))
        reps, n_upd = step_times(make, shape, n_steps, a.repeats)
        rows.append((desc, n_steps, summary(reps), ratio(reps, 'dense compiled, a copy', 'dense compiled'),
                     ratio(reps, 'sparse compiled', 'dense compiled'),
                     ratio(reps, 'sparse compiled', 'dense compiled', upd / 100), ratio(reps, 'sparse eager', 'dense eager'),
                     ratio(reps, 'dense eager', 'dense compiled'), upd, ct, n_upd))
        print(desc, rows[-1][2:], flush=True)
    ms = lambda m: f"{m[0]*1e3:.2f} ({m[1]*1e3:.2f}-{m[2]*1e3:.2f})"
    rt = lambda r: f"**{r[0]:.3f}** ({r[1]:.3f}-{r[2]:.3f})"
    cmd = f"python bench/bench_compile.py --repeats {a.repeats} --compile-repeats {a.compile_repeats}" + \
          (f" --models {a.models}" if a.models != 'lenet,cnn,resnet18' else '') + (f" --threads {a.threads}" if a.threads else '')
    lines = ["# Compiled sparse training against compiled dense training", "",
             f"`{cmd}` on {_machine.cpu()}, {torch.get_num_threads()} threads, torch "
             f"{torch.__version__}, inductor (CPU, default mode), batch {BS}; {time.time() - t_start:.0f} s in all; "
             f"1-minute load average {load0:.1f} at the start and {os.getloadavg()[0]:.1f} at the end ({os.cpu_count()} cores). "
             "A shared machine: the figures are medians of interleaved repeats, with the range of the per-repeat medians.", "",
             "The variants take turns step by step (rounds in a random order, never one variant twice in a row). "
             "Sparse: 90% ERK, RigL through `DynamicSparseTrainingOptimizerWrapper(every=100)`, `torch.optim.SGD(momentum=0.9)`. "
             "Compiled: `torch.compile(model)`; the optimizer step and the wrapper run eagerly. A step is forward, loss, "
             "backward, optimizer step and `zero_grad`.", "",
             "## Step time, ms (median over all steps; range of the per-repeat medians)", "",
             "| model | steps x repeats | dense eager | sparse eager | dense compiled | sparse compiled | dense compiled, a copy |",
             "|---|---|---|---|---|---|---|"]
    for desc, n_steps, s, *_ in rows:
        lines.append(f"| {desc} | {n_steps} x {a.repeats} | " + " | ".join(ms(s[k]) for k in VARIANTS) + " |")
    lines += ["", "## Ratios (median of the per-repeat ratios; their range)", "",
              "The goal: compiled sparse within 1.03x of compiled dense. Amortized adds one RigL update per 100 steps "
              "at its own median time. A/A is one compiled dense copy against the other: the noise floor.", "",
              "| model | compiled sparse / compiled dense | amortized, with RigL updates | A/A: compiled dense / its copy | "
              "eager sparse / eager dense | dense: eager / compiled | one RigL update, ms | RigL updates while timed |",
              "|---|---|---|---|---|---|---|---|"]
    for desc, _, _, aa, rc, rca, re_, sp, upd, _, n_upd in rows:
        lines.append(f"| {desc} | {rt(rc)} | {rt(rca)} | {aa[0]:.3f} ({aa[1]:.3f}-{aa[2]:.3f}) | {rt(re_)} | "
                     f"{sp[0]:.2f} ({sp[1]:.2f}-{sp[2]:.2f}) | {upd*1e3:.1f} | {n_upd} |")
    lines += ["", "## Compile time: wall time of the first training step, s", "",
              f"Each after `torch._dynamo.reset()` in a fresh inductor cache (nothing reused from earlier compiles), "
              f"{a.compile_repeats} per variant, dense and sparse taking turns to go first.", "",
              "| model | dense | sparse | sparse / dense |", "|---|---|---|---|"]
    for desc, *_, ct, _ in rows:
        d, s = statistics.median(ct['dense']), statistics.median(ct['sparse'])
        lines.append(f"| {desc} | {d:.1f} ({', '.join(f'{t:.1f}' for t in ct['dense'])}) | "
                     f"{s:.1f} ({', '.join(f'{t:.1f}' for t in ct['sparse'])}) | {s/d:.2f} |")
    text = "\n".join(lines) + "\n\n" + NOTES
    print(text)
    Path(a.out).write_text(text)

if __name__ == '__main__': main()
