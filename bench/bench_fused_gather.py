"""The forward of one masked 4096x4096 Linear two ways, on one thread (`--threads`): the active weights gathered from the dense parameter
and then the product (`take`, `rows_times`), against one pass that reads them as the product needs them
(`rows_times_taking`, what a forward less than 95% sparse does); medians of interleaved calls, the two ways taking turns.

    python bench/bench_fused_gather.py [--sparsity 0.5 0.8 0.9 0.92 0.94 0.95 0.98] [--batch 128 256] [--repeats 21] [--threads 1]
"""
import argparse, statistics, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import torch

def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--sparsity', type=float, nargs='+', default=[0.5, 0.8, 0.9, 0.92, 0.94, 0.95, 0.98])
    p.add_argument('--batch', type=int, nargs='+', default=[128, 256]); p.add_argument('--repeats', type=int, default=21)
    p.add_argument('--size', type=int, default=4096); p.add_argument('--threads', type=int, default=1)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    from fastsparse.ops.spmm import SparsePlan, take, _nb
    K, n = _nb(), a.size
    print(f"| sparsity | batch | gather, then product ms | one pass ms | one pass / both | same outputs |\n|---|---|---|---|---|---|")
    for s in a.sparsity:
        torch.manual_seed(0)
        m = torch.rand(n, n) >= s
        w, b = torch.randn(n, n) * m, torch.randn(n)
        plan = SparsePlan(m)
        for B in a.batch:
            xT = torch.randn(B, n).t().contiguous()
            def both():
                v = take(w, plan.flat); y = torch.empty(B, n)
                K['rows_times'](plan.row_ptr, plan.col, v.numpy(), xT.numpy(), b.numpy(), y.numpy(), 0); return y, v
            def one():
                v = torch.empty(plan.nnz); y = torch.empty(B, n)
                K['rows_times_taking'](plan.row_ptr, plan.col, plan.flat.numpy(), w.view(-1).numpy(), v.numpy(), xT.numpy(),
                                       b.numpy(), y.numpy()); return y, v
            (ya, va), (yb, vb) = both(), one()
            ts = {both: [], one: []}
            for i in range(a.repeats):
                for f in ((both, one) if i % 2 else (one, both)):
                    t = time.perf_counter(); f(); ts[f].append(time.perf_counter() - t)
            mb, mo = statistics.median(ts[both]), statistics.median(ts[one])
            print(f"| {s} | {B} | {mb * 1e3:.2f} | {mo * 1e3:.2f} | {mo / mb:.2f} | {torch.equal(ya, yb) and torch.equal(va, vb)} |", flush=True)

if __name__ == '__main__': main()
