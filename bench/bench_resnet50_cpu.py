"""One whole torchvision ResNet-50 training step on the CPU (batch 16, 64x64, SGD with momentum, one thread): dense, masked at
90% ERK computing densely, and with compute='sparse' (its 1x1 convolutions sparse, the 3x3 ones dense), taking turns, medians
of 7 rounds with the spread of the ratio.

    python bench/bench_resnet50_cpu.py
"""
import torch, torch.nn.functional as F, torchvision, time, statistics, warnings
warnings.simplefilter('ignore'); torch.set_num_threads(1)
import numba; numba.set_num_threads(1)
from fastsparse.loop.optim import sparse_optimizer
from fastsparse.core.compute import compute_report
def make(compute):
    torch.manual_seed(0); m = torchvision.models.resnet50(num_classes=10)
    opt = sparse_optimizer('static_sparse', m, torch.optim.SGD(m.parameters(), 0.01, momentum=0.9), 0.9, distribution='erk', total_steps=10**6, compute=compute) if compute else torch.optim.SGD(m.parameters(), 0.01, momentum=0.9)
    return m, opt
runs = {k: make(c) for k, c in (('dense', None), ('masked-dense', 'dense'), ('sparse', 'sparse'))}
x = torch.randn(16, 3, 64, 64); y = torch.randint(0, 10, (16,))
def step(m, o): F.cross_entropy(m(x), y).backward(); o.step(); o.zero_grad()
for k, (m, o) in runs.items(): step(m, o); step(m, o)
ts = {k: [] for k in runs}
for _ in range(7):
    for k, (m, o) in runs.items():
        t = time.perf_counter(); step(m, o); ts[k].append(time.perf_counter() - t)
d = statistics.median(ts['dense'])
for k, v in ts.items(): print(k, f"{statistics.median(v)*1e3:.0f} ms", f"speed over dense {d / statistics.median(v):.2f}x", f"[{d/max(v):.2f}-{d/min(v):.2f}]")
rep = compute_report(runs['sparse'][0]); print('sparse layers', int((rep.compute == 'sparse').sum()), 'of', len(rep))
