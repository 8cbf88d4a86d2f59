"""One whole torchvision ResNet-50 training step on the CPU (batch 16, 64x64 by default, SGD with momentum, one thread): dense,
masked at 90% ERK computing densely, with compute='sparse' (every convolution and the classifier over its active weights)
and with compute='auto' (each layer the faster way, timed on its first batch), taking turns, medians of 7 rounds with
the spread of the ratio.

    python bench/bench_resnet50_cpu.py [--size 64] [--batch 16] [--threads 1]
"""
import argparse
ap = argparse.ArgumentParser(); ap.add_argument('--size', type=int, default=64); ap.add_argument('--batch', type=int, default=16)
ap.add_argument('--threads', type=int, default=1); ap.add_argument('--rounds', type=int, default=7); A = ap.parse_args()
import torch, torch.nn.functional as F, torchvision, time, statistics, warnings
warnings.simplefilter('ignore'); torch.set_num_threads(A.threads)    # the sparse products follow PyTorch's thread count
from fastsparse.loop.optim import sparse_optimizer
from fastsparse.core.compute import compute_report
def make(compute):
    torch.manual_seed(0); m = torchvision.models.resnet50(num_classes=10)
    opt = sparse_optimizer('static_sparse', m, torch.optim.SGD(m.parameters(), 0.01, momentum=0.9), 0.9, distribution='erk', total_steps=10**6, compute=compute) if compute else torch.optim.SGD(m.parameters(), 0.01, momentum=0.9)
    return m, opt
runs = {k: make(c) for k, c in (('dense', None), ('masked-dense', 'dense'), ('sparse', 'sparse'), ('auto', 'auto'))}
x = torch.randn(A.batch, 3, A.size, A.size); y = torch.randint(0, 10, (A.batch,))
def step(m, o): F.cross_entropy(m(x), y).backward(); o.step(); o.zero_grad()
for k, (m, o) in runs.items(): step(m, o); step(m, o)
ts = {k: [] for k in runs}
for _ in range(A.rounds):
    for k, (m, o) in runs.items():
        t = time.perf_counter(); step(m, o); ts[k].append(time.perf_counter() - t)
d = statistics.median(ts['dense'])
for k, v in ts.items(): print(k, f"{statistics.median(v)*1e3:.0f} ms", f"speed over dense {d / statistics.median(v):.2f}x", f"[{d/max(v):.2f}-{d/min(v):.2f}]")
rep = compute_report(runs['sparse'][0]); print('sparse: layers computing sparse', int(((rep.compute == 'sparse') & ~rep.note.str.startswith('dense:')).sum()), 'of', len(rep), '(the others under min_sparsity)')
rep = compute_report(runs['auto'][0]); print('auto: layers that chose sparse', int(rep.note.str.contains(': sparse').sum()), 'of', len(rep))
