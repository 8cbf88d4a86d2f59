"""Step and mask-update times of this checkout against an earlier commit, on the same machine in the same session.

    python bench/bench_ab.py [--old REV] [--rounds 3] [--repeats 15] [--threads 1] [--out bench/AB.md]

A speed check for a change: the figures of `bench/COMPARE.md` come from another day (and often another host), so
"no worse than COMPARE.md" is judged here instead. REV (default: the commit that last wrote bench/COMPARE.md) is
checked out in a temporary git worktree; then, round after round, a fresh process of each checkout times dense,
static, SET and RigL training steps of LeNet-300-100 (batch 128, the same 90% ERK masks, epochs interleaved as in
bench_compare, medians over `--repeats`) and one mask update of SET and RigL. Every ratio divides by dense in the
same process; the table gives each round and the median over rounds. This checkout also times RigL growing by the
update step's gradient (`growth_gradient='step'`), where it has the option."""
import argparse, json, os, statistics, subprocess, sys, tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

def worker(threads:int, repeats:int):
    "Run in the checkout's own bench/ (on sys.path): one round, as JSON on stdout"
    import torch
    torch.set_num_threads(threads)
    import warnings; warnings.simplefilter('ignore')
    import _compare_worker as w, bench_compare as bc
    from _common import time_steps, make_dls
    import fastsparse as fs
    d = tempfile.mkdtemp()
    spec = dict(model='mlp', nb=200, bs=128, masks=bc.shared_masks('mlp', d), seed=0)
    dls = make_dls(w.SHAPES['mlp'], 200, 128, 0)
    vs = {v: w.build_variant(v, spec, dls, bpu=10**9) for v in ('dense', 'fs:static', 'fs:set', 'fs:rigl')}
    if 'growth_gradient' in fs.DynamicSparseTrainingCallback.__init__.__code__.co_varnames:
        learn, _ = w.build_variant('fs:static', spec, dls, bpu=10**9)
        vs['fs:rigl-step'] = (learn, [fs.DynamicSparseTrainingCallback(**fs.RigL_presets, every=10**9, growth_gradient='step')])
    if hasattr(fs, 'sparse_callback'):              # static masks under a method, whose driver vouches for the zeros
        learn, _ = w.build_variant('fs:static', spec, dls, bpu=10**9)
        vs['fs:static-method'] = (learn, [fs.sparse_callback('static_sparse')])
    med, reps = time_steps(vs, repeats, per_repeat=True)
    xb, yb = dls.one_batch()
    out = dict(step_ms={k: m * 1e3 for k, (m, _) in med.items()},
               ratio={k: statistics.median(a / b for a, b in zip(reps[k], reps['dense'])) for k in vs},
               update_ms={v: w.update_times(v, vs[v][0], xb, yb, 7, None)['update'] * 1e3 for v in ('fs:set', 'fs:rigl')})
    print(json.dumps(out))

def run(checkout:Path, threads:int, repeats:int) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ('PYTHONPATH', 'VIRTUAL_ENV')}
    env.update(PYTHONPATH=str(checkout), PYTHONWARNINGS='ignore', OMP_NUM_THREADS=str(threads))
    p = subprocess.run([sys.executable, str(Path(__file__).resolve()), '--worker', str(checkout / 'bench'),
                        '--threads', str(threads), '--repeats', str(repeats)], env=env, capture_output=True, text=True)
    lines = [l for l in p.stdout.splitlines() if l.startswith('{')]
    if not lines: raise RuntimeError(f"the round in {checkout} failed: {(p.stderr or '').strip()[-500:]}")
    return json.loads(lines[-1])

def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument('--old', default=None, help="the earlier commit (default: the last one that wrote bench/COMPARE.md)")
    p.add_argument('--rounds', type=int, default=3)
    p.add_argument('--repeats', type=int, default=15, help="interleaved epochs per round")
    p.add_argument('--threads', type=int, default=1, help="torch threads (1: steadier on a shared 2-core machine)")
    p.add_argument('--out', default=str(HERE / 'AB.md'))
    p.add_argument('--worker', default=None, help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.worker:
        sys.path.insert(0, a.worker); return worker(a.threads, a.repeats)
    git = lambda *args: subprocess.run(['git', '-C', str(REPO), *args], capture_output=True, text=True, check=True).stdout.strip()
    old = a.old or git('log', '-1', '--format=%H', '--', 'bench/COMPARE.md')
    old_s, new_s = git('rev-parse', '--short', old), git('rev-parse', '--short', 'HEAD')
    dirty = bool(git('status', '--porcelain', '--untracked-files=no'))
    res = {'old': [], 'new': []}
    with tempfile.TemporaryDirectory() as d:
        wt = Path(d) / 'old'
        git('worktree', 'add', '--detach', str(wt), old)
        try:
            for r in range(a.rounds):
                for k, co in (('old', wt), ('new', REPO)):
                    print(f"round {r + 1}: {k}", flush=True)
                    res[k].append(run(co, a.threads, a.repeats))
        finally: git('worktree', 'remove', '--force', str(wt))
    names = dict(zip(('fs:static', 'fs:static-method', 'fs:set', 'fs:rigl', 'fs:rigl-step'),
                     ('static (hooks alone)', "static (`learn.sparsify('static_sparse')`)", 'SET', 'RigL', 'RigL (step gradient)')))
    L = ["# This checkout against an earlier commit", "",
         f"`python bench/bench_ab.py --old {old_s} --rounds {a.rounds} --repeats {a.repeats} --threads {a.threads}`: "
         f"{old_s} against {new_s}{' (with uncommitted changes)' if dirty else ''}, LeNet-300-100 at batch 128, 90% ERK, "
         f"{a.threads} torch thread(s); the two checkouts take turns, one fresh process per round. Step: the median over "
         "the interleaved epochs of each epoch's median step time over dense's; update: the median of 7 updates (drop and "
         "regrow 30%), in ms and over the median dense step of its round.", "",
         "| variant | checkout | step / dense, each round | median | update ms, each round | update / step (median) |",
         "|---|---|---|---|---|---|"]
    for v, name in names.items():
        for k, sha in (('old', old_s), ('new', new_s)):
            rows = [x for x in res[k] if v in x['ratio']]
            if not rows: continue
            rs = [x['ratio'][v] for x in rows]
            up = [x['update_ms'][v] for x in rows if v in x['update_ms']]
            ups = [x['update_ms'][v] / x['step_ms']['dense'] for x in rows if v in x['update_ms']]
            L.append(f"| {name} | {sha} | {', '.join(f'{x:.3f}' for x in rs)} | {statistics.median(rs):.3f} | "
                     f"{', '.join(f'{x:.2f}' for x in up) or '—'} | {f'{statistics.median(ups):.3f}' if ups else '—'} |")
    Path(a.out).write_text('\n'.join(L) + '\n'); print('\n'.join(L))

if __name__ == '__main__': main()
