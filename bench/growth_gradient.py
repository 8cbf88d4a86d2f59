"""RigL's growth gradient on the cpu grid's LeNet-300-100: the accuracy of each way of choosing it, over seeds.

    python bench/growth_gradient.py [--seeds 5] [--out bench/GROWTH_GRADIENT.md]

RigL at 90% ERK on Fashion-MNIST (10 epochs, Adam one-cycle at 3e-3, batch 128, masks updated every 100 steps: the
`cpu` grid's settings), one thread per run, with its growth scored by:

- `interval`: the gradient summed over every step since the last update (RigL's default here);
- `sum_every=4` / `sum_every=10`: the gradients of every 4th / 10th step of the window and of the update step;
- `step`: the update step's gradient alone (`growth_gradient='step'`, RigL's paper and code).

Under `compute='sparse'` every summed step computes the whole weight gradient; the others compute it at the active
weights only (`bench/SPARSE_TRAIN.md` times them). The masks, and so the accuracies, are those of dense compute.
Each run's accuracy goes to a JSON-lines file as it ends, so an interrupted run can go on (`--resume`).
"""
import argparse, json, statistics, time
from pathlib import Path
import torch

HERE = Path(__file__).resolve().parent
VARIANTS = {'interval': {}, 'sum_every=4': dict(sum_every=4), 'sum_every=10': dict(sum_every=10),
            'step': dict(growth_gradient='step')}

def main(argv=None):
    p = argparse.ArgumentParser('growth_gradient.py', description=__doc__.split('\n')[0])
    p.add_argument('--seeds', type=int, default=5)
    p.add_argument('--epochs', type=int, default=10)
    p.add_argument('--runs', default=str(HERE / 'growth_gradient.jsonl'))
    p.add_argument('--resume', action='store_true', help='keep the runs already in --runs')
    p.add_argument('--out', default=str(HERE / 'GROWTH_GRADIENT.md'))
    a = p.parse_args(argv)
    torch.set_num_threads(1)
    from fastsparse.experiments.train import train
    runs = Path(a.runs)
    done = [json.loads(l) for l in runs.read_text().splitlines()] if a.resume and runs.exists() else []
    if not a.resume: runs.write_text('')
    have = {(r['variant'], r['seed']) for r in done}
    with runs.open('a') as f:
        for seed in range(a.seeds):
            for name, args in VARIANTS.items():
                if (name, seed) in have: continue
                r = train('rigl', 0.9, 'erk', 'fashion-mnist', 'mlp', a.epochs, 128, 3e-3, None, seed=seed,
                          show_progress=False, log=None, method_args=args or None)
                done.append(dict(variant=name, seed=seed, accuracy=r['accuracy']))
                f.write(json.dumps(done[-1]) + "\n"); f.flush()
                print(name, seed, f"{r['accuracy']:.4f}", flush=True)
    out = [f"# RigL's growth gradient: accuracy", "",
           f"`python bench/growth_gradient.py {' '.join(argv) if argv else ''}`".replace(' `', '`'), "",
           f"RigL, 90% ERK, LeNet-300-100 on Fashion-MNIST, {a.epochs} epochs (the cpu grid's settings); mean ± standard "
           f"deviation of the test accuracy over seeds, {time.strftime('%Y-%m-%d')}.", "",
           "| growth scored by | accuracy (%) | seeds |", "|---|---|---|"]
    for name in VARIANTS:
        acc = [r['accuracy'] * 100 for r in done if r['variant'] == name]
        if acc: out.append(f"| {name} | {statistics.mean(acc):.2f} ± {statistics.stdev(acc) if len(acc) > 1 else 0:.2f} | {len(acc)} |")
    Path(a.out).write_text("\n".join(out) + "\n")
    print(f"wrote {a.out}")

if __name__ == '__main__':
    import sys; main(sys.argv[1:])
