"""Step time and mask-update time of this fastsparse against another checkout of it, in one process, interleaved.

    git worktree add /tmp/before <commit>          # the version to compare with
    python bench/bench_before_after.py /tmp/before [--repeats 9]

The other checkout's package is loaded under the name `fastsparse_before` (its files are copied and its absolute
imports renamed), so both versions train side by side: dense, static masks and RigL (with its callback on every step,
updating every 10 steps, so that update steps are in the timing too) for each version, on LeNet-300-100 and a small
CNN (90% sparse, ERK, the same masks for both versions), interleaved and in reversed order every repeat, medians of
every training batch. Then one RigL mask update over ResNet-50's weights (90%, ERK), by each version, interleaved.
Prints a markdown table of ratios: each version's step time to dense, and after/before."""
import argparse, re, shutil, statistics, sys, tempfile, time, warnings
from pathlib import Path
import torch, torch.nn as nn
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import make_dls, learner, time_steps

def load_before(checkout) -> object:
    "The package of `checkout` as the module `fastsparse_before`"
    dst = Path(tempfile.mkdtemp()) / 'fastsparse_before'
    shutil.copytree(Path(checkout) / 'fastsparse', dst)
    for f in dst.glob('*.py'):
        f.write_text(re.sub(r'\bfastsparse\.', 'fastsparse_before.', re.sub(r'from fastsparse import', 'from fastsparse_before import', f.read_text())))
    sys.path.insert(0, str(dst.parent))
    import fastsparse_before
    return fastsparse_before

def share_masks(src, dst):
    "Give the model `dst` the masks and weights of `src` (both sparsified the same way)"
    with torch.no_grad():
        for (a, b) in zip(src.parameters(), dst.parameters()): b.copy_(a)
        bufs = dict(dst.named_buffers())
        for n, a in src.named_buffers():
            if n.endswith('_mask'): bufs[n].copy_(a)

def variants(libs, make_model, shape, nb, bs):
    dls, out = make_dls(shape, nb, bs), {}
    ref = None
    for tag, fs in libs.items():
        for kind in ('static', 'rigl'):
            learn = learner(make_model(), dls)
            fs.sparsify_model(learn.model, 0.9, sparse_f=fs.erdos_renyi_sparsity)
            if ref is None: ref = learn.model
            else: share_masks(ref, learn.model)
            cbs = []
            if kind == 'rigl':
                with warnings.catch_warnings():
                    warnings.simplefilter('ignore')   # the earlier name of `every`, where the version knows no other
                    try: cbs = [fs.DynamicSparseTrainingCallback(**fs.RigL_presets, every=10)]
                    except TypeError: cbs = [fs.DynamicSparseTrainingCallback(**fs.RigL_presets, batches_per_update=10)]
            out[f'{tag} {kind}'] = (learn, cbs)
    out['dense'] = (learner(make_model(), dls), [])
    return out

def rigl_update(fs, model, opt):
    "A function making one RigL mask update (30%) over `model` with `fs`, after a backward pass with dense gradients"
    if hasattr(fs, 'RigL'):                       # an updater
        upd = fs.RigL().start(model, opt); sites, f = upd.sites, lambda: upd.update_masks(0.3)
    else:
        cb = fs.DynamicSparseTrainingCallback(**fs.RigL_presets)
        cb.sites = fs.masked_sites(model); cb.patterns = cb._site_patterns(); cb.learn = type('L', (), {'opt': opt})()
        sites, f = cb.sites, lambda: cb.update_masks(0.3)
    fs.set_dense_grads(sites, True)
    return f

def main():
    p = argparse.ArgumentParser()
    p.add_argument('before', help='a checkout of the version to compare with (e.g. made by git worktree add)')
    p.add_argument('--repeats', type=int, default=9)
    a = p.parse_args()
    import fastsparse as after
    from fastsparse.data import lenet_300_100, small_cnn
    libs = dict(before=load_before(a.before), after=after)
    rows = []
    for name, mk, shape, bs, nb in [('LeNet-300-100, batch 128', lambda: lenet_300_100(), (784,), 128, 100),
                                    ('small CNN, batch 128', lambda: small_cnn(width=32), (1, 28, 28), 128, 30)]:
        med = time_steps(variants(libs, mk, shape, nb, bs), a.repeats)
        d = med['dense'][0]
        rows.append((name, {k: v[0] / d for k, v in med.items()}))
    from torchvision.models import resnet50
    models, fs_upd = {}, {}
    x, y = torch.randn(8, 3, 224, 224), torch.randint(0, 1000, (8,))
    for tag, fs in libs.items():
        torch.manual_seed(0); m = resnet50(); fs.sparsify_model(m, 0.9, sparse_f=fs.erdos_renyi_sparsity)
        opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
        nn.functional.cross_entropy(m(x), y).backward(); opt.step()
        f = rigl_update(fs, m, opt); nn.functional.cross_entropy(m(x), y).backward()
        models[tag], fs_upd[tag] = m, f
    ts = {k: [] for k in libs}
    for r in range(a.repeats):
        for k in (list(libs) if r % 2 == 0 else list(libs)[::-1]):
            t = time.perf_counter(); fs_upd[k](); ts[k].append(time.perf_counter() - t)
    upd = {k: statistics.median(v) for k, v in ts.items()}
    print(f"| model | before static / dense | after static / dense | before RigL / dense | after RigL / dense | after / before, static | after / before, RigL |")
    print("|---|---|---|---|---|---|---|")
    for name, r in rows:
        print(f"| {name} | {r['before static']:.3f} | {r['after static']:.3f} | {r['before rigl']:.3f} | {r['after rigl']:.3f} | "
              f"{r['after static'] / r['before static']:.3f} | {r['after rigl'] / r['before rigl']:.3f} |")
    print(f"\nOne RigL update over ResNet-50 (90%, ERK), median of {a.repeats} interleaved: before {upd['before']*1e3:.1f} ms, "
          f"after {upd['after']*1e3:.1f} ms, after / before {upd['after'] / upd['before']:.3f}")

if __name__ == '__main__': main()
