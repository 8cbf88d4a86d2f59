"""Write the checkpoint fixtures of `nbs/94_compat.ipynb`: one small file per way fastsparse 0.1 saved a model, each
with what loading it must reproduce.

Run it under the code of the release whose files the fixtures keep (fastsparse 0.1, before the package moved into
subpackages; a worktree of that commit on the path), never under the current code:

    git worktree add /tmp/base 538043e
    PYTHONPATH=/tmp/base python tools/make_fixtures.py nbs/fixtures/v0.1

It imports fastsparse 0.1's module paths (`fastsparse.io`, `fastsparse.export`, `fastsparse.algorithms`, ...) and
refuses to run under a fastsparse that has the new layout. Every model is tiny and seeded; the models' constructors
below are the ones the notebook builds its fresh models with. Next to each checkpoint `<name>.<ext>` it writes
`<name>.expected.pt` (plain tensors and Python values, `torch.load(..., weights_only=True)` reads it):

- `x`, `out`: a fixed input and the saved model's output on it (in eval mode, without gradients);
- `masks`: {weight name: bool mask}; `records`: `fastsparse.io.sparse_records(model)`; `layouts`: {name: 'bool'|'packed'};
- `arch`: the name of the constructor below that builds the model the file loads into;
- and what a file of its kind needs besides (the optimizer state, the sparse schedule state, the masks and outputs
  of the run continued from the saved state, the input batches that run reads).

`MANIFEST.json` lists the files, their sizes, and the versions (fastsparse, its commit, torch) that wrote them.
Run again, the script writes the same bytes, except in the safetensors files, whose header may list the same
metadata in another order.
"""
import json, subprocess, sys
from pathlib import Path
import torch, torch.nn as nn, torch.nn.functional as F

# ---- the architectures (`nbs/94_compat.ipynb` has the same constructors) ----
def mlp(): return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
def convnet():
    "A tiny LeNet: 14x14 images, two conv-ReLU-pool blocks, two Linear layers"
    return nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(4, 8, 3), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(32, 16), nn.ReLU(), nn.Linear(16, 4))
ARCHS = dict(mlp=mlp, convnet=convnet)

def seeded(arch:str, seed:int):
    torch.manual_seed(seed)
    return ARCHS[arch]()

def mlp_input(seed=100): return torch.randn(8, 16, generator=torch.Generator().manual_seed(seed))
def conv_input(seed=101): return torch.randn(8, 1, 14, 14, generator=torch.Generator().manual_seed(seed))

def batches(n:int, seed:int=7, bs:int=8):
    "`n` seeded (input, target) batches for the mlp"
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, bs, 16, generator=g), torch.randint(0, 4, (n, bs), generator=g)

def synthetic(n:int=96, seed:int=3):
    "A 4-class problem on 16 features: (inputs, targets), linearly separable up to noise"
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 16, generator=g)
    w = torch.randn(16, 4, generator=g)
    return x, (x @ w + 0.1 * torch.randn(n, 4, generator=g)).argmax(1)

def main(out:Path):
    import fastsparse
    if Path(fastsparse.__file__).with_name('ops').is_dir():       # the subpackages of the new layout
        sys.exit(f"{fastsparse.__file__} is the new layout: run this script under fastsparse 0.1 (PYTHONPATH=<its worktree>)")
    from fastai.learner import Learner
    from fastai.torch_core import set_seed
    from fastai.callback.core import Callback, CancelFitException
    from fastsparse.core import sparsify_model, masked_sites, erdos_renyi_sparsity
    from fastsparse.io import save_model, load_model, sparse_records, save_safetensors   # patches Learner.save and .load
    from fastsparse.export import save_sparse, save_inference, to_sparse_inference
    from fastsparse.algorithms import sparse_optimizer                                   # patches Learner.sparsify
    from fastsparse.structured import ablate_units_, unit_tensors
    from fastsparse.data import tensor_dls
    import fastsparse.condense as fc, fastsparse.condensed as fcd

    out.mkdir(parents=True, exist_ok=True)
    manifest = {}

    def state(model, x) -> dict:
        "What a loaded model must reproduce: its output on `x`, its masks, their layouts and records"
        model.eval()
        with torch.no_grad(): y = model(x)
        sites = masked_sites(model)
        return dict(x=x, out=y, masks={s.name: s.mask.clone() for s in sites}, records=sparse_records(model),
                    layouts={s.name: 'packed' if s.packed else 'bool' for s in sites})

    def write(name:str, file:str, kind:str, arch:str, expected:dict, note:str):
        torch.save({'arch': arch, **expected}, out/f'{name}.expected.pt')
        manifest[name] = dict(file=file, kind=kind, arch=arch, note=note, expected=f'{name}.expected.pt')

    def train(model, opt, n:int, seed:int=5):
        "`n` SGD steps on seeded batches, so the optimizer has state and the weights moved"
        xs, ys = batches(n, seed)
        model.train()
        for xb, yb in zip(xs, ys):
            F.cross_entropy(model(xb), yb).backward(); opt.step(); opt.zero_grad()

    x, xc = mlp_input(), conv_input()

    # ---- save_model: bool masks, SGD with momentum ----
    m = seeded('mlp', 0); sparsify_model(m, 0.8)
    opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9); train(m, opt, 3)
    save_model(out/'save_model_bool.pth', m, opt, packed_masks=False)
    write('save_model_bool', 'save_model_bool.pth', 'save_model', 'mlp', {**state(m, x), 'opt': opt.state_dict()},
          "save_model(file, model, opt, packed_masks=False): bool masks, SGD momentum state")

    # ---- save_model: packed masks (made packed), Adam ----
    m = seeded('mlp', 1); sparsify_model(m, 0.9, packed=True)
    opt = torch.optim.Adam(m.parameters(), lr=1e-2); train(m, opt, 3)
    save_model(out/'save_model_packed.pth', m, opt)
    write('save_model_packed', 'save_model_packed.pth', 'save_model', 'mlp', {**state(m, x), 'opt': opt.state_dict()},
          "save_model(file, model, opt): packed masks of a model sparsified with packed=True, Adam state")

    # ---- save_model: the 2:4 pattern ----
    m = seeded('mlp', 2); sparsify_model(m, None, pattern='2:4')
    opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9); train(m, opt, 2)
    save_model(out/'save_model_2to4.pth', m, opt)
    write('save_model_2to4', 'save_model_2to4.pth', 'save_model', 'mlp', {**state(m, x), 'opt': opt.state_dict()},
          "save_model of a 2:4 model: records carry the pattern")

    # ---- save_model: per-layer targets (ERK) and ablated units ----
    m = seeded('mlp', 3); sparsify_model(m, 0.8, sparse_f=erdos_renyi_sparsity)
    s0 = masked_sites(m)[0]; ablate_units_(s0, [1, 5, 30], unit_tensors(s0))
    save_model(out/'save_model_targets.pth', m, None)
    write('save_model_targets', 'save_model_targets.pth', 'save_model', 'mlp', state(m, x),
          "save_model(file, model, None) of an ERK model (a target per layer) with 3 units of 0.weight ablated")

    # ---- Learner.save mid-run (RigL every 2 steps), then the run resumed from it ----
    xt, yt = synthetic()
    n_train = 64
    def learner(seed):
        set_seed(seed)           # torch, NumPy and Python: the validation loader's generator too, so the file is reproducible
        return Learner(tensor_dls(xt[:n_train], yt[:n_train], xt[n_train:], yt[n_train:], bs=16, seed=seed, device='cpu'), mlp(),
                       loss_func=nn.CrossEntropyLoss(), path=out, model_dir='.')
    class SaveAt(Callback):
        order = 99
        def after_epoch(self):
            if self.epoch == 0: self.learn.save('learner'); raise CancelFitException()
    learn = learner(4).sparsify('rigl', 0.8, every=2)
    with learn.no_bar(), learn.no_logging(): learn.fit(3, 1e-2, cbs=SaveAt())
    saved = state(learn.model, x)
    ck = torch.load(out/'learner.pth', weights_only=False)
    resumed = learner(9).sparsify('rigl', 0.8, every=2)     # a fresh learner, as the notebook builds it
    resumed.load('learner')
    with resumed.no_bar(), resumed.no_logging(): resumed.fit(3, 1e-2, start_epoch=1)
    cb = [c for c in resumed.cbs if hasattr(c, 'n_steps')][0]
    write('learner', 'learner.pth', 'Learner.save', 'mlp',
          {**saved, 'sparse': ck['sparse'], 'rng': ck['rng'],
           'opt': dict(state=ck['opt']['state'], hypers=[dict(h) for h in ck['opt']['hypers']]),   # fastai's L as a list
           'data': dict(x=xt, y=yt, n_train=n_train, bs=16, seed=9, lr=1e-2, n_epoch=3, start_epoch=1),
           'resumed': {**state(resumed.model, x), 'n_steps': cb.n_steps, 'n_updates': cb.n_updates,
                       'sparse': cb.state_dict()}},
          "Learner.save after epoch 1 of fit(3) with learn.sparsify('rigl', 0.8, every=2) (fresh learner seeded 4, "
          "its data loader seeded 4); 'resumed': a learner seeded 9 that loads it and fits epochs 2-3 (start_epoch=1)")

    # ---- save_sparse ----
    m = seeded('mlp', 5); sparsify_model(m, 0.9, sparse_f=erdos_renyi_sparsity)
    save_sparse(m, out/'save_sparse.pth')
    write('save_sparse', 'save_sparse.pth', 'save_sparse', 'mlp', state(m, x), "save_sparse(model, file) of an ERK model")

    # ---- save_safetensors: whole and masks only ----
    m = seeded('mlp', 6); sparsify_model(m, 0.75, pattern='block2x4')
    save_safetensors(m, out/'safetensors_full.safetensors')
    write('safetensors_full', 'safetensors_full.safetensors', 'save_safetensors', 'mlp', state(m, x),
          "save_safetensors(model, file) of a block2x4 model")
    save_safetensors(m, out/'safetensors_masks.safetensors', masks_only=True)
    dense = {k: v.clone() for k, v in m.state_dict().items() if not k.endswith(('_mask', '_mask_bits'))}
    write('safetensors_masks', 'safetensors_masks.safetensors', 'save_safetensors', 'mlp', {**state(m, x), 'dense': dense},
          "save_safetensors(model, file, masks_only=True); 'dense': the weights, which the file lacks")

    # ---- save_inference of to_sparse_inference (SparseLinear: CSR) ----
    m = seeded('mlp', 7); sparsify_model(m, 0.9)
    m.eval()
    with torch.no_grad(): ref = m(x)
    conv, rep = to_sparse_inference(m, min_speedup=0.)                  # every layer converted, whatever the timing
    assert rep.converted.all(), rep
    save_inference(conv, out/'inference_csr.pth')
    with torch.no_grad(): y = conv(x)
    write('inference_csr', 'inference_csr.pth', 'save_inference', 'mlp',
          dict(x=x, out=y, sparse_out=ref, types=[type(l).__name__ for l in conv.modules()]),
          "save_inference of to_sparse_inference(model of 0.9, min_speedup=0): both Linear layers SparseLinear")

    # ---- save_inference of condense: timings replaced so that condense picks the special layers everywhere ----
    def timer(fav):
        def fake(fns, repeats, warmup=True):
            return {k: [0.1 if k == fav else 0.5 if k in ('alt', 'condensed') else 1.0] * max(int(repeats), 1) for k in fns}
        return fake
    def condensed(model, example, fav):
        old = fc._time_interleaved, fcd._time_interleaved
        fc._time_interleaved = fcd._time_interleaved = timer(fav)
        try: return fc.condense(model, batch_size=1, example=example)
        finally: fc._time_interleaved, fcd._time_interleaved = old

    def condensed_file(name, m, xin, fav):
        "Condense `m` (timings replaced: `fav` wins), save it as `name`.pth; return it, its report, what it saw and computes"
        m.eval()
        with torch.no_grad(): ref = m(xin)
        small, rep = condensed(m, xin[:1], fav)
        save_inference(small, out/f'{name}.pth')
        with torch.no_grad(): y = small(xin)
        types = [type(l).__name__ for l in small.modules()]
        return small, rep, dict(x=xin, out=y, sparse_out=ref, types=types,
                                kernels=[l.kernel for l in small.modules() if hasattr(l, 'k')])

    m = seeded('mlp', 8); sparsify_model(m, 0.9, pattern='constant_fan_in')      # SRigL's masks
    small, rep, e = condensed_file('inference_condensed', m, x, 'embedding_bag')
    assert e['types'].count('CondensedLinear') == 2, rep
    write('inference_condensed', 'inference_condensed.pth', 'save_inference', 'mlp', e,
          "save_inference of condense(model, batch_size=1, example=x[:1]) of a constant fan-in model of 0.9 "
          "(kernel timings replaced: embedding_bag wins)")

    m = seeded('convnet', 9); sparsify_model(m, 0.5, pattern='constant_fan_in')
    s0 = masked_sites(m)[0]; ablate_units_(s0, [2], unit_tensors(s0))              # a channel removed, as Chase does
    s1 = masked_sites(m)[2]; ablate_units_(s1, [0, 7], unit_tensors(s1))
    small, rep, e = condensed_file('inference_conv', m, xc, 'gather')
    assert {'Im2colConv2d', 'SliceMaxPool2d', 'CondensedLinear'} <= set(e['types']) and small[0].out_channels == 3, (e['types'], rep)
    write('inference_conv', 'inference_conv.pth', 'save_inference', 'convnet',
          dict(e, shapes={k: tuple(v.shape) for k, v in small.state_dict().items() if isinstance(v, torch.Tensor)}),
          "save_inference of condense of a convnet: a channel of the first conv and two units of the first Linear "
          "ablated and cut, Im2colConv2d, SliceMaxPool2d and CondensedLinear (gather) chosen by replaced timings")

    # ---- an optimizer wrapper mid-run: w.state_dict() after 8 of 20 steps, the model by save_model ----
    n_before, n_total = 8, 20
    xs, ys = batches(n_total, seed=11)
    def run_wrapper(w, m, steps):
        "Take the optimizer steps `steps` on the batches; the masks and records after each step"
        masks, records = [], []
        m.train()
        for i in steps:
            F.cross_entropy(m(xs[i]), ys[i]).backward(); w.step(); w.zero_grad()
            masks.append({s.name: s.mask.clone() for s in masked_sites(m)}); records.append(sparse_records(m))
        return masks, records
    m = seeded('mlp', 10)
    w = sparse_optimizer('rigl', m, torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9), 0.8, total_steps=n_total, every=4)
    run_wrapper(w, m, range(n_before))
    torch.save(w.state_dict(), out/'wrapper.pt')
    save_model(out/'wrapper_model.pth', m, None)
    at_save = {**state(m, x), 'taken': w.taken, 'n_steps': w.n_steps, 'n_updates': w.n_updates,
               'sparse': w.updater.state_dict()}
    cont = run_wrapper(w, m, range(n_before, n_total))          # the run continued, uninterrupted
    # the same from the files, as the notebook resumes it: a fresh model, load_model, a new wrapper, load_state_dict
    m2 = seeded('mlp', 12); load_model(out/'wrapper_model.pth', m2)
    w2 = sparse_optimizer('rigl', m2, torch.optim.SGD(m2.parameters(), lr=0.1, momentum=0.9), 0.8, total_steps=n_total, every=4)
    w2.load_state_dict(torch.load(out/'wrapper.pt', weights_only=True))
    again = run_wrapper(w2, m2, range(n_before, n_total))
    for a, b in zip(cont[0], again[0]):
        for k in a: assert torch.equal(a[k], b[k]), "fastsparse 0.1 does not resume its own wrapper: fix that first"
    write('wrapper', 'wrapper.pt', 'SparseOptimizerWrapper.state_dict', 'mlp',
          {**at_save, 'batches': (xs, ys), 'n_before': n_before, 'n_total': n_total,
           'args': dict(algorithm='rigl', sparsity=0.8, total_steps=n_total, every=4, lr=0.1, momentum=0.9),
           'continued': dict(masks=cont[0], records=cont[1], out=state(m, x)['out'], n_updates=w.n_updates,
                             taken=w.taken)},
          "torch.save(w.state_dict()) of sparse_optimizer('rigl', model, SGD(lr=0.1, momentum=0.9), 0.8, total_steps=20, "
          "every=4) after 8 steps (the model in wrapper_model.pth, by save_model); 'continued': the masks and records "
          "after each of steps 9-20 of the same run, on 'batches'")

    commit = subprocess.run(['git', '-C', str(Path(fastsparse.__file__).parent), 'rev-parse', 'HEAD'],
                            capture_output=True, text=True).stdout.strip()
    files = sorted(p.name for p in out.iterdir() if p.name != 'MANIFEST.json')
    info = dict(fastsparse=fastsparse.__version__, commit=commit, torch=torch.__version__.split('+')[0],
                written_by='tools/make_fixtures.py', fixtures=manifest, sizes={f: (out/f).stat().st_size for f in files})
    (out/'MANIFEST.json').write_text(json.dumps(info, indent=1) + '\n')
    total = sum(info['sizes'].values())
    print(f"{len(files)} files, {total / 1024:.1f} KB in all, the largest {max(info['sizes'].values()) / 1024:.1f} KB")

if __name__ == '__main__':
    if len(sys.argv) != 2: sys.exit(__doc__)
    main(Path(sys.argv[1]))
