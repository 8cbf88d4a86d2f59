"""Accuracy of every algorithm in the registry on scikit-learn's digits at 90% sparsity (and N:M variants).

    python bench/algorithms_digits.py [--epochs 20] [--seeds 3] [--out bench/ALGORITHMS.md]

LeNet-300-100 (64 inputs), Adam one-cycle at 1e-2, batch 64, uniform layer sparsity (global ranking for the
global_* algorithms). Pruning algorithms ramp from dense to 90% with the cubic schedule until 75% of training,
updating every 10 steps; SET, SNFS and RigL rewire every 10 steps from a random 90%-sparse start; the
straight-through (STE) algorithms train dense weights under a 90% mask and are made permanent after fitting.
Every run is one line: `learn.sparsify(name, 0.9, ...)`.
"""
import argparse, statistics
from pathlib import Path
from fastai.basics import *
from fastsparse import *

SCHEDULE = dict(pruning=dict(every=10), dynamic=dict(every=10), ste={})

def run(alg, epochs, seed, pattern='unstructured'):
    set_seed(seed, reproducible=True)
    learn = Learner(digits_dls(seed=seed), lenet_300_100(64), loss_func=CrossEntropyLossFlat(), metrics=accuracy)
    sp = None if pattern != 'unstructured' else 0.9
    learn.sparsify(alg, sp, pattern=pattern, **SCHEDULE[ALGORITHMS[alg].kind])
    with learn.no_bar(), learn.no_logging(): learn.fit_one_cycle(epochs, 1e-2)
    nz = [(int((m.weight != 0).sum()), m.weight.numel()) for m in learn.model.modules() if isinstance(m, nn.Linear)]
    return learn.validate()[1], 1 - sum(a for a, _ in nz) / sum(b for _, b in nz)

def main():
    p = argparse.ArgumentParser()
    p.add_argument('--epochs', type=int, default=20); p.add_argument('--seeds', type=int, default=3)
    p.add_argument('--out', default=str(Path(__file__).parent / 'ALGORITHMS.md'))
    a = p.parse_args()
    rows = [(alg, 'unstructured') for alg in ALGORITHMS] + [(alg, '2:4') for alg in ('magnitude', 'magnitude_ste', 'rigl')] \
         + [(alg, '1:4') for alg in ('magnitude', 'magnitude_ste', 'rigl')]
    lines = [f"# Algorithms on the digits", "",
             f"`python bench/algorithms_digits.py --epochs {a.epochs} --seeds {a.seeds}`: LeNet-300-100, mean and standard "
             f"deviation of validation accuracy over {a.seeds} seeds; 90% sparsity, or the N:M pattern's own (2:4 = 50%, 1:4 = 75%).", "",
             "| algorithm | kind | pattern | accuracy | std | final sparsity (zero weights) |", "|---|---|---|---|---|---|"]
    for alg, pat in rows:
        res = [run(alg, a.epochs, s, pat) for s in range(a.seeds)]
        accs = [float(r[0]) for r in res]
        lines.append(f"| {alg} | {ALGORITHMS[alg].kind} | {pat} | {statistics.fmean(accs):.4f} | {statistics.pstdev(accs):.4f} | {res[0][1]:.3f} |")
        print(lines[-1], flush=True)
    Path(a.out).write_text("\n".join(lines) + "\n")

if __name__ == '__main__': main()
