"""Condensed constant fan-in layers (`fastsparse.condensed`) against dense and CSR inference on the CPU.

    python bench/bench_condensed.py [--sections linear] [--repeats 21] [--out bench/CONDENSED.md]

Each section is a function `section(args) -> str` that returns its markdown; `SECTIONS` maps their names to them,
and `main` runs those named by `--sections` (default: all) and writes one file with a header saying where and how
it ran. Sections defined in `bench/_condensed_models.py` (a `SECTIONS` dict of the same kind), when that file exists,
are added after the ones here.

- `linear`: one 4096x4096 `Linear` at 90% and 95% sparsity with a random constant fan-in mask (every output keeps
  the same number of inputs), at batch 1, 16, 64 and 256: dense `F.linear`, fastsparse's CSR layer
  (`SparseLinear`, a `torch.sparse_csr` product) and `CondensedLinear` with each of its kernels, all in one process,
  taking turns call by call (a random order every round), medians over the rounds with the interquartile range.
  A second copy of the dense product (A/A) shows how far the machine's noise alone moves a ratio.
- `stability`: ten consecutive `condense` calls on the 90% layer at each batch size while another process keeps
  the cores busy (a matrix product in a loop), and the kernel each call chose, choosing anew every call
  (`fresh=True`) and as called by default; the same with timing alone (`choose_kernel(close=math.inf, margin=1)`:
  every kernel timed, the fastest median wins), for comparison; and ten `inference_kernels` calls on a LeNet-5.

The previous contents of the output file are kept under a heading "Earlier" at its end.
"""
import argparse, math, os, platform, random, statistics, subprocess, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
import _machine                                          # the CPU's name and vector unit
import torch, torch.nn.functional as F
from fastsparse.condensed import CondensedLinear, available_kernels, choose_kernel
from fastsparse.export import SparseLinear

HERE = Path(__file__).resolve().parent
GATHER_MAX = 1 << 25      # 'gather' materialises batch x out x k inputs: timed only up to this many (seconds per call beyond)

def interleaved(fns:dict, repeats:int, seed:int=0) -> dict:
    "Seconds of each call of each function, over `repeats` rounds in a random order (never one twice in a row), after a warm-up"
    rng = random.Random(seed)
    for f in fns.values(): f()
    ts, last = {k: [] for k in fns}, None
    for _ in range(repeats):
        order = list(fns); rng.shuffle(order)
        if order[0] == last and len(order) > 1: order[0], order[1] = order[1], order[0]
        for k in order:
            t = time.perf_counter(); fns[k](); ts[k].append(time.perf_counter() - t)
        last = order[-1]
    return ts

def ms(ts) -> str:
    "The median in ms and the interquartile range"
    q = statistics.quantiles(ts, n=4) if len(ts) > 1 else [ts[0]] * 3
    return f"{statistics.median(ts) * 1e3:.3f} [{q[0] * 1e3:.2f}-{q[2] * 1e3:.2f}]"

def ratio_iqr(xs) -> str:
    "The median of per-round ratios and their interquartile range"
    q = statistics.quantiles(xs, n=4) if len(xs) > 1 else [xs[0]] * 3
    return f"{statistics.median(xs):.2f}x [{q[0]:.2f}-{q[2]:.2f}]"

def fan_in_linear(n_out:int, n_in:int, sparsity:float, seed:int=0):
    "A random weight [n_out, n_in] whose rows each keep round((1-sparsity)*n_in) inputs, its mask and a bias"
    g = torch.Generator().manual_seed(seed)
    k = round((1 - sparsity) * n_in)
    idx = torch.rand(n_out, n_in, generator=g).argsort(1)[:, :k]
    mask = torch.zeros(n_out, n_in, dtype=torch.bool).scatter_(1, idx, True)
    return torch.randn(n_out, n_in, generator=g) * mask / k ** 0.5, mask, torch.randn(n_out, generator=g)

def linear_section(a) -> str:
    n, sparsities, batches = 4096, (0.9, 0.95), (1, 16, 64, 256)
    kernels = [k for k in available_kernels() if k not in ('dense', 'csr')]     # those two are the references
    out = [f"## One {n}x{n} Linear, constant fan-in (CPU)", "",
           "Milliseconds per forward: the median over the rounds, [the interquartile range]. *dense* is `F.linear` with the "
           "dense weight, *A/A* a second copy of it, *CSR* fastsparse's `SparseLinear` (a `torch.sparse_csr` product); "
           f"the other columns are `CondensedLinear` with each kernel ({', '.join(kernels)}). *best* is the condensed "
           "kernel with the lowest median; the ratios are the medians over the rounds of dense (CSR) time / best time "
           "in the same round, [their interquartile range]; *A/A* is the same ratio for the two dense copies. *picks* is what "
           "`choose_kernel(layer, batch)` chose, as `condense` would, and how far ahead of the runner-up it put it (from "
           "its cost model, or timed where the model left more than one kernel within 3x).", ""]
    goals = []
    with torch.no_grad():
        for sp in sparsities:
            w, mask, b = fan_in_linear(n, n, sp)
            layer, csr = CondensedLinear.from_masked(w, mask, b), SparseLinear(w, b)
            out += [f"### {sp:.0%} sparsity: k = {layer.k} inputs per output", "",
                    "| batch | dense | A/A | CSR | " + " | ".join(kernels) + " | best | vs dense | vs CSR | A/A | picks |",
                    "|---" * (len(kernels) + 9) + "|"]
            for bs in batches:
                x = torch.randn(bs, n, generator=torch.Generator().manual_seed(bs))
                ref = F.linear(x, w, b)
                fns = {'dense': lambda: F.linear(x, w, b), 'A/A': lambda: F.linear(x, w, b), 'CSR': lambda: csr(x)}
                for k in kernels:
                    if k == 'gather' and bs * n * layer.k > GATHER_MAX: continue
                    kl = CondensedLinear.from_masked(w, mask, b, kernel=k)
                    torch.testing.assert_close(kl(x), ref, rtol=1e-4, atol=1e-4)
                    fns[k] = lambda kl=kl: kl(x)
                torch.testing.assert_close(csr(x), ref, rtol=1e-4, atol=1e-4)
                ts = interleaved(fns, a.repeats if bs < 256 else max(5, a.repeats // 2), seed=bs)
                med = {k: statistics.median(t) for k, t in ts.items()}
                best = min((k for k in med if k in kernels), key=med.get)
                rounds = lambda a, b: [x / y for x, y in zip(ts[a], ts[b])]
                ratio = lambda a, b: statistics.median(rounds(a, b))
                vd, vc = ratio('dense', best), ratio('CSR', best)
                c = choose_kernel(layer, bs)
                pick = f"{c.kernel} ({c.margin:.1f}x {c.runner_up}, {'timed' if c.timed else 'model'})"
                out.append(f"| {bs} | {ms(ts['dense'])} | {ms(ts['A/A'])} | {ms(ts['CSR'])} | " +
                           " | ".join(ms(ts[k]) if k in ts else "not timed" for k in kernels) +
                           f" | {best} | {ratio_iqr(rounds('dense', best))} | {ratio_iqr(rounds('CSR', best))} | "
                           f"{ratio('dense', 'A/A'):.2f}x | {pick} |")
                if sp == 0.9: goals.append((bs, best, vd, vc))
                print(f"{sp:.0%} batch {bs}: best {best}, {vd:.2f}x dense, {vc:.2f}x CSR", flush=True)
            out.append("")
    b1 = next(g for g in goals if g[0] == 1)
    slow = [g for g in goals if g[3] <= 1]
    out += ["### Goals at 90% sparsity", "",
            f"- at least 5x faster than dense at batch 1: {'met' if b1[2] >= 5 else 'NOT met'} ({b1[2]:.2f}x, {b1[1]})",
            "- faster than CSR at every batch size: " + ('met (' if not slow else 'NOT met (') +
            ", ".join(f"batch {bs}: {vc:.2f}x with {k}" for bs, k, _, vc in goals) + ")", ""]
    if 'gather' in kernels:
        out += [f"*gather* is timed only where batch x out x k is at most {GATHER_MAX:,} gathered inputs (it takes "
                "seconds per call beyond).", ""]
    return "\n".join(out)

BUSY = ("import torch, sys\ntorch.set_num_threads(int(sys.argv[1]))\na = torch.randn(1024, 1024)\n"
        "while True: a @ a")

def stability_section(a) -> str:
    "Ten condense calls per batch size on the 90% layer, with another process keeping the cores busy"
    from fastsparse.core.sparsify import sparsify_model
    from fastsparse.condense import condense, inference_kernels
    from fastsparse.export.condense import forget_kernel_choices
    import fastsparse.export.condensed as fcd
    from fastsparse.experiments.data import lenet5
    n, batches, calls = 4096, (1, 16, 64, 256), 10
    le = lenet5().eval()
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(n, n))
    sparsify_model(net, 0.9, pattern='constant_fan_in', prune_head=True)
    layer = CondensedLinear.from_masked(net[0].weight.detach(), net[0].weight_mask, net[0].bias)
    busy = subprocess.Popen([sys.executable, '-c', BUSY, str(os.cpu_count() or 1)])
    picks, t0 = {}, time.perf_counter()
    b0 = cpu_busy()
    try:
        time.sleep(1)
        for bs in batches:
            x = torch.randn(bs, n)
            ks = [k for k in available_kernels() if k != 'gather' or bs * n * layer.k <= GATHER_MAX]
            for how in ('fresh', 'remembered', 'timing alone'):
                fcd._CHOSEN.clear(); forget_kernel_choices()          # the first of the ten calls chooses anew
                for i in range(calls):
                    if how == 'timing alone':
                        c = choose_kernel(layer, bs, repeats=5, kernels=ks, close=math.inf, margin=1., fresh=True)
                        picks.setdefault((bs, how), []).append((c.kernel, c.margin, True))
                        continue
                    _, rep = condense(net, batch_size=bs, example=x, repeats=5, fresh=how == 'fresh')
                    r = rep.iloc[0]
                    picks.setdefault((bs, how), []).append((r.kernel, r.margin, 'timed:' in r.note))
                print(f"stability batch {bs} {how}: {[p[0] for p in picks[bs, how]]}", flush=True)
        for bs in (1, 256):
            xi = torch.rand(bs, 1, 28, 28)
            for how in ('fresh', 'remembered'):
                forget_kernel_choices()
                for i in range(calls):
                    _, krep = inference_kernels(le, xi, repeats=5, fresh=how == 'fresh')
                    picks.setdefault(('lenet5', bs, how), []).append((tuple(krep.kernel), tuple(krep.margin)))
                print(f"stability lenet5 batch {bs} {how}: {[p[0] for p in picks['lenet5', bs, how]]}", flush=True)
    finally:
        busy.kill(); busy.wait()
    load = others_share(b0, cpu_busy())
    count = lambda xs: ", ".join(f"{k} x{xs.count(k)}" for k in dict.fromkeys(xs))
    out = ["## Ten condense calls under load", "",
           f"`condense(model, batch_size=bs, example=x, repeats=5)` ten times in a row for each batch size, on a model "
           f"holding one 4096x4096 `Linear` at 90% with constant fan-in masks (k = {layer.k}), while another process "
           f"ran a 1024x1024 matrix product in a loop on {os.cpu_count()} threads (other processes, that one included, "
           f"used {load} of the cores during the section; {time.perf_counter() - t0:.0f} s in all). *fresh* is "
           "`condense(..., fresh=True)`: every call chooses anew (the cost model, and timing where it leaves kernels "
           "within 3x), which is what a new process does; *remembered* is `condense(...)` as it is called by default, "
           "where the first call's choice is kept for the rest of the process; *timing alone* is "
           "`choose_kernel(layer, bs, close=math.inf, margin=1, fresh=True)` in the same loop: every kernel timed, the "
           "fastest median wins, about as `condense` chose before the cost model ('gather' left out where the linear "
           "section does not time it). Each cell lists the kernels chosen over the ten calls, how many were distinct, "
           "the margins the report gave (how many times faster than the runner-up: measured where timed, predicted "
           "where not) and how many choices were timed.", "",
           "| batch | calls | kernels chosen | distinct | margins (min-max) | timed |", "|---|---|---|---|---|---|"]
    for bs in batches:
        for how in ('fresh', 'remembered', 'timing alone'):
            ps = picks[bs, how]; ks = [p[0] for p in ps]
            ms_ = [p[1] for p in ps if p[1] is not None and p[1] == p[1]]
            out.append(f"| {bs} | {how} | {count(ks)} | {len(set(ks))} | " +
                       (f"{min(ms_):.2f}-{max(ms_):.2f}x" if ms_ else "-") + f" | {sum(p[2] for p in ps)} of {calls} |")
    out += ["", f"`inference_kernels(lenet5, x, repeats=5)` ten times in a row in the same loop (a dense LeNet-5, "
            "random weights, inputs 1x28x28), *fresh* (`fresh=True`) and *remembered* (the default): the kernel of each "
            "candidate layer (conv1, pool1, conv2, pool2), and the margins (how many times faster the alternative was "
            "than PyTorch's kernel, by the more cautious of the median ratio within rounds and the ratio of the fastest "
            "calls; 1.25x needed to switch).", "",
            "| batch | calls | kernels chosen (conv1, pool1, conv2, pool2) | distinct | margins, min-max per layer |",
            "|---|---|---|---|---|"]
    short = {'Im2colConv2d': 'im2col', 'SliceMaxPool2d': 'slices', 'PyTorch': 'PyTorch'}
    for bs in (1, 256):
        for how in ('fresh', 'remembered'):
            ps = picks['lenet5', bs, how]; ks = [p[0] for p in ps]
            cnt = ", ".join(f"({', '.join(short.get(x, x) for x in k)}) x{ks.count(k)}" for k in dict.fromkeys(ks))
            span = ", ".join(f"{min(m):.2f}-{max(m):.2f}" for m in zip(*[p[1] for p in ps]))
            out.append(f"| {bs} | {how} | {cnt} | {len(set(ks))} | {span} |")
    ok = lambda how: all(len({p[0] for p in picks[bs, how]}) == 1 for bs in batches)
    ok_k = lambda how: all(len({p[0] for p in picks['lenet5', bs, how]}) == 1 for bs in (1, 256))
    out += ["", "**Goal** (the same kernel in ten consecutive calls, for every batch size, under load): `condense` "
            f"{'met' if ok('remembered') else 'NOT met'} as called by default, {'met' if ok('fresh') else 'NOT met'} "
            f"with every call choosing anew (timing alone: {'met' if ok('timing alone') else 'NOT met'}); "
            f"`inference_kernels` {'met' if ok_k('remembered') else 'NOT met'} by default, "
            f"{'met' if ok_k('fresh') else 'NOT met'} choosing anew.", ""]
    return "\n".join(out)

SECTIONS = dict(linear=linear_section, stability=stability_section)
try:                                   # more sections (trained LeNets, ResNet-18), when bench/_condensed_models.py exists
    sys.path.insert(0, str(HERE))
    from _condensed_models import SECTIONS as _MODEL_SECTIONS
    SECTIONS.update(_MODEL_SECTIONS)
except ImportError: pass

def cpu_busy():
    "(seconds the machine's cores have been busy, seconds this process has run on them, wall seconds); None off Linux"
    try:
        with open('/proc/stat') as f: v = [int(x) for x in f.readline().split()[1:9]]
    except (OSError, ValueError): return None
    return (sum(v) - v[3] - v[4]) / os.sysconf('SC_CLK_TCK'), time.process_time(), time.perf_counter()

def others_share(b0, b1) -> str:
    "How much of the cores other processes used between two `cpu_busy` readings"
    if b0 is None or b1 is None: return "unknown"
    other = max(0., (b1[0] - b0[0]) - (b1[1] - b0[1]))
    return f"{other / ((b1[2] - b0[2]) * (os.cpu_count() or 1)):.0%}"

def header(a, others) -> str:
    try:
        import numba
        nb = f"numba {numba.__version__}"
    except ImportError: nb = "no numba"
    cmd = "python " + " ".join([str(Path(sys.argv[0]).resolve().relative_to(HERE.parent)) if Path(sys.argv[0]).exists() else sys.argv[0], *sys.argv[1:]])
    return "\n".join([
        "# Condensed constant fan-in layers: benchmark", "",
        f"`{cmd}`", "",
        f"Machine: {_machine.cpu()}, {os.cpu_count()} cores (os.cpu_count), "
        f"{torch.get_num_threads()} torch threads; torch {torch.__version__}, {nb}, Python {platform.python_version()}; "
        f"{time.strftime('%Y-%m-%d %H:%M')}. One process; the variants take turns call by call in a random order; "
        "medians of the rounds. The machine is shared and noisy: compare ratios within a table, and the A/A column "
        f"shows how far noise alone moves one. Other processes used {others} of the cores during the run (when they "
        "use much, the parallel kernels wait for a core in some rounds).", ""])

def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument('--sections', default=','.join(SECTIONS), help=f"comma-separated, of: {', '.join(SECTIONS)} (default: all)")
    p.add_argument('--repeats', type=int, default=21, help="rounds per measurement (half of them, at least 5, at batch 256)")
    p.add_argument('--out', default=str(HERE / 'CONDENSED.md'))
    a = p.parse_args()
    names = [s.strip() for s in a.sections.split(',') if s.strip()]
    unknown = [s for s in names if s not in SECTIONS]
    if unknown: p.error(f"unknown section(s) {', '.join(unknown)}: choose from {', '.join(SECTIONS)}")
    b0 = cpu_busy()
    body = [SECTIONS[s](a) for s in names]
    text = "\n".join([header(a, others_share(b0, cpu_busy())), *body]).rstrip() + "\n"
    print(text)
    out = Path(a.out)
    if out.exists():                   # what was there before goes under "Earlier", its headings one level down
        old = out.read_text().split("\n", 1)[1] if out.read_text().startswith("# ") else out.read_text()
        old = "\n".join("#" + l if l.startswith("#") else l for l in old.splitlines())
        text += "\n## Earlier\n" + old.rstrip() + "\n"
    out.write_text(text)

if __name__ == '__main__': main()
