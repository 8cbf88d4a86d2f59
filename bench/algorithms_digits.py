"""Accuracy of every pruning and sparse-training algorithm on scikit-learn's digits at 90% sparsity.

    python bench/algorithms_digits.py [--epochs 20] [--seeds 3] [--out bench/ALGORITHMS.md]

LeNet-300-100 (64 inputs), Adam one-cycle at 1e-2, batch 64, uniform layer sparsity (global ranking for the
global_* algorithms). Pruning algorithms ramp from dense to 90% with the cubic schedule until 75% of training,
updating every 10 steps; SET, SNFS and RigL rewire every 10 steps from a random 90%-sparse start.
"""
import argparse, statistics
from pathlib import Path
from fastai.basics import *
from fastsparse import *

def run(alg, epochs, seed):
    set_seed(seed, reproducible=True)
    learn = Learner(digits_dls(seed=seed), lenet_300_100(64), loss_func=CrossEntropyLossFlat(), metrics=accuracy)
    cbs = []
    if alg in ALGORITHMS: cbs = [PruningCallback(0.9, alg, update_every=10)]
    else:
        h = sparsify_model(learn.model, 0.9)
        if alg != 'static_sparse': cbs = [DynamicSparseTrainingCallback(**dict(set=SET_presets, snfs=SNFS_presets, rigl=RigL_presets)[alg],
                                                                         batches_per_update=10)]
    with learn.no_bar(), learn.no_logging(): learn.fit_one_cycle(epochs, 1e-2, cbs=cbs)
    rep = sparsity_report(learn.model)
    sp = rep.sparsity.iloc[-1] if len(rep) else 0.
    return learn.validate()[1], sp

def main():
    p = argparse.ArgumentParser()
    p.add_argument('--epochs', type=int, default=20); p.add_argument('--seeds', type=int, default=3)
    p.add_argument('--out', default=str(Path(__file__).parent / 'ALGORITHMS.md'))
    a = p.parse_args()
    algs = list(ALGORITHMS) + ['static_sparse', 'set', 'snfs', 'rigl']
    lines = [f"# Algorithms on the digits at 90% sparsity", "",
             f"`python bench/algorithms_digits.py --epochs {a.epochs} --seeds {a.seeds}`: LeNet-300-100, mean and standard "
             f"deviation of validation accuracy over {a.seeds} seeds.", "",
             "| algorithm | accuracy | std | final sparsity |", "|---|---|---|---|"]
    for alg in algs:
        res = [run(alg, a.epochs, s) for s in range(a.seeds)]
        accs = [float(r[0]) for r in res]
        lines.append(f"| {alg} | {statistics.fmean(accs):.4f} | {statistics.pstdev(accs):.4f} | {res[0][1]:.3f} |")
        print(lines[-1], flush=True)
    Path(a.out).write_text("\n".join(lines) + "\n")

if __name__ == '__main__': main()
