"""fastsparse against the alternatives: dense fastai, torch.nn.utils.prune and the 2020 fastsparse release (0.0.5).

    bash bench/setup_fastsparse_005.sh                 # once: the environments of fastsparse 0.0.5
    python bench/bench_compare.py [--repeats 7] [--quick] [--device cpu|cuda]

Per model (LeNet-300-100, a small CNN, ResNet-18 on 32x32 inputs), interleaved in one process per comparison (this
one for dense, fastsparse and torch.nn.utils.prune; one per environment of 0.0.5, with its own dense run), medians of
repeats, order reversed every repeat, after a warm-up epoch:
- the training step time (BatchTimer over every training batch) as a ratio to dense in the same process; SET and
  RigL add one mask update per 100 steps (`every=100`) at their own median update time;
- one mask update (drop and regrow 30% of the active weights) as a ratio to one dense training step;
- peak memory, each variant in a fresh process of its own (growth of the peak RSS, or CUDA max allocated on a GPU);
- checkpoint size (`learn.save`; torch.save of the state dict for torch.nn.utils.prune) as a ratio to dense.
And one SET and one RigL update over ResNet-50's weights (90%, ERK) against one ResNet-50 training step and against
the memory-bandwidth bound. Every variant uses the same 90% ERK masks (made once by fastsparse and loaded by all).

Writes bench/COMPARE.md, bench/compare.png and the raw figures in bench/compare.json (with --quick: in a temporary
folder, so that a smoke run does not replace the measured figures)."""
import argparse, datetime, json, os, platform, statistics, subprocess, sys, tempfile, time
from pathlib import Path
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _machine                                          # the CPU's name and vector unit
import numpy as np, torch

MODELS = dict(mlp='LeNet-300-100 (784 inputs)', cnn='small CNN (width 32, 1x28x28)', resnet18='ResNet-18 (3x32x32, 10 classes)')
GOALS = dict(mlp=1.05, cnn=1.02)                     # step time of fastsparse at most this much of dense
MAIN_VARIANTS = ['dense', 'fastsparse:static', 'fastsparse:set', 'fastsparse:rigl', 'fastsparse:rigl-step', 'prune:static']
OLD_VARIANTS = ['dense', 'fs005:static', 'fs005:set', 'fs005:rigl']
UPDATE_EVERY = 100                                   # every: the RigL paper's interval
BYTES_PER_WEIGHT = 4 + 4 + 1 + 1                     # read weight and gradient (fp32) and mask (bool), write the mask

def envs(venv_root):
    "key -> (label, python, variants); 0.0.5's environments are made by bench/setup_fastsparse_005.sh"
    root = Path(venv_root)
    return {'main': ('this fastsparse', sys.executable, MAIN_VARIANTS),
            '005cur': ("fastsparse 0.0.5, today's torch and fastai", str(root / 'fastsparse005-current' / 'bin' / 'python'), OLD_VARIANTS),
            '005': ('fastsparse 0.0.5, its 2020 stack', str(root / 'fastsparse005' / 'bin' / 'python'), OLD_VARIANTS)}

LABELS = {'dense': 'dense', 'fastsparse:static': 'fastsparse static', 'fastsparse:set': 'fastsparse SET',
          'fastsparse:rigl': 'fastsparse RigL', 'fastsparse:rigl-step': 'fastsparse RigL (step gradient)', 'prune:static': 'torch prune static', 'fs005:static': '0.0.5 static',
          'fs005:set': '0.0.5 SET', 'fs005:rigl': '0.0.5 RigL'}

def config(a):
    "Batch counts, batch sizes and repeats; `--quick` is a smoke run (memory for the MLP only, none for the update)"
    cuda = a.device == 'cuda'
    if a.quick:
        c = dict(repeats=a.repeats or 2, nb=dict(mlp=30, cnn=5, resnet18=3), mem_models=['mlp'], mem_nb=6,
                 r50_bs=8, r50_steps=1, r50_updates=1, bw_mib=256)
    else:
        c = dict(repeats=a.repeats or 7, nb=dict(mlp=200, cnn=40, resnet18=20), mem_models=list(MODELS), mem_nb=9,
                 r50_bs=32, r50_steps=3, r50_updates=5, bw_mib=1024)
    c['bs'] = dict(mlp=128, cnn=128, resnet18=256 if cuda else 128)
    if cuda: c['nb'] = {k: v * 3 for k, v in c['nb'].items()}
    c['mem_bpu'] = 3                                 # a mask update every 3 steps in the memory runs
    c['models'] = [m for m in MODELS if not a.models or m in a.models]
    c['mem_models'] = [m for m in c['mem_models'] if m in c['models']]
    return c

# --- running the workers ------------------------------------------------------------------------------------------
def run_worker(python, job, spec, timeout=1800):
    "Run one job of _compare_worker.py with `python` in a fresh process; its JSON result, or {'ok': False, 'error': ...}"
    if not Path(python).exists():
        return dict(ok=False, error=f"not installed: {python} is missing (run `bash bench/setup_fastsparse_005.sh`)")
    env = {k: v for k, v in os.environ.items() if k not in ('PYTHONPATH', 'PYTHONHOME', 'VIRTUAL_ENV')}
    env['PYTHONWARNINGS'] = 'ignore'
    if job.endswith('mem'): env['MALLOC_MMAP_THRESHOLD_'] = str(64 * 1024)   # freed tensors go back to the OS at once
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / 'out.json'
        try:
            p = subprocess.run([python, str(HERE / '_compare_worker.py'), job, json.dumps(spec), str(out)], cwd=d, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
        except subprocess.TimeoutExpired: return dict(ok=False, error=f"timed out after {timeout} s")
        if out.exists(): return json.loads(out.read_text())
        tail = [l for l in (p.stderr or '').strip().splitlines() if l.strip()][-1:] or [f'exit code {p.returncode}']
        return dict(ok=False, error=tail[0][:300])

def shared_masks(model, d):
    "fastsparse's 90% ERK masks of `model` (seed 0), in an npz file that every environment reads"
    import _compare_worker as w
    import fastsparse as fs
    m = w.build_model(model, 0)
    fs.sparsify_model(m, w.SPARSITY, sparse_f=fs.erdos_renyi_sparsity)
    fn = Path(d) / f'masks_{model}.npz'
    np.savez(fn, **{n: mod.weight_mask.cpu().numpy() for n, mod in m.named_modules() if hasattr(mod, 'weight_mask')})
    return str(fn)

def bandwidth(device, mib):
    "Memory bandwidth (bytes/s) of a large torch copy: read + write, median of 7"
    a = torch.ones(mib * 2**20 // 4, device=device); b = torch.empty_like(a)
    sync = torch.cuda.synchronize if device == 'cuda' else (lambda: None)
    ts = []
    for _ in range(8):
        sync(); t = time.perf_counter(); b.copy_(a); sync(); ts.append(time.perf_counter() - t)
    return 2 * a.numel() * 4 / statistics.median(ts[1:])

def log(*s): print(time.strftime('%H:%M:%S'), *s, flush=True)

def measure(a, c):
    import _compare_worker as w
    E, res = envs(a.venv_root), dict(timing={}, mem={}, r50={}, r50mem={})
    with tempfile.TemporaryDirectory() as d:
        masks = {m: shared_masks(m, d) for m in c['models']}
        for m in c['models']:
            base = dict(model=m, nb=c['nb'][m], bs=c['bs'][m], repeats=c['repeats'], masks=masks[m], device=a.device, seed=0)
            res['timing'][m] = {}
            for k, (label, py, variants) in E.items():
                log(f"time {m}: {label}")
                spec = dict(base, variants=variants)
                if k == 'main':                          # this process: dense, fastsparse and torch prune interleaved
                    try: r = dict(ok=True, **w.job_time(spec))
                    except Exception as e: r = dict(ok=False, error=f"{type(e).__name__}: {e}")
                else: r = run_worker(py, 'time', spec)
                res['timing'][m][k] = r
                if not r['ok']: log(f"  did not run: {r['error']}")
        for m in c['mem_models']:
            res['mem'][m] = {}
            for k, (label, py, variants) in E.items():
                log(f"memory {m}: {label}")
                for v in variants:
                    spec = dict(model=m, nb=c['mem_nb'], bs=c['bs'][m], bpu=c['mem_bpu'], variant=v, masks=masks[m],
                                device=a.device, seed=0)
                    res['mem'][m][f'{k}/{v}'] = run_worker(py, 'mem', spec)
    for k, (label, py, _) in E.items():
        log(f"ResNet-50 update: {label}")
        res['r50'][k] = run_worker(py, 'r50', dict(bs=c['r50_bs'], step_repeats=c['r50_steps'],
                                                   update_repeats=c['r50_updates'], device=a.device))
        res['r50mem'][k] = (dict(ok=False, error='not measured with --quick') if a.quick else
                            run_worker(py, 'r50mem', dict(device=a.device)))
    log("memory bandwidth")
    res['bandwidth'] = bandwidth(a.device, c['bw_mib'])
    return res

# --- the report ---------------------------------------------------------------------------------------------------
def machine_info(device):
    import fastai
    dev = (torch.cuda.get_device_name() if device == 'cuda' else
           f"{_machine.cpu()}, {os.cpu_count()} logical CPUs, {torch.get_num_threads()} torch threads")
    return dict(device=dev, date=datetime.date.today().isoformat(), python=platform.python_version(),
                torch=torch.__version__, fastai=fastai.__version__)

def fmt(x, f='{:.2f}', none='—'): return none if x is None else f.format(x)

def env_line(r):
    e = r.get('env', {})
    k = f" (fused kernels: {e['kernels']})" if 'kernels' in e else ''
    return f"Python {e.get('python')}, torch {e.get('torch')}, fastai {e.get('fastai')}, fastsparse {e.get('fastsparse')}{k}"

def step_rows(res, c, E):
    "One row per (model, environment, variant): every figure of the table, ratios taken within the environment"
    rows = []
    for m in c['models']:
        for k, r in res['timing'][m].items():
            variants = E[k][2]
            if not r['ok']:
                rows.append(dict(model=m, env=k, variant=None, error=r['error'])); continue
            dense = r['steps']['dense']['median']
            mem = res['mem'].get(m, {})
            md = mem.get(f'{k}/dense', {})
            for v in variants:
                s = r['steps'][v]['median']
                u = r['updates'].get(v, {}).get('update')
                add = u / UPDATE_EVERY if u is not None else 0.
                per = [(x + add) / d for x, d in zip(r['steps'][v]['per_repeat'], r['steps']['dense']['per_repeat'])]
                mv = mem.get(f'{k}/{v}', {})
                grow = lambda x: (x.get('peak_cuda', x.get('grow_rss')) if x.get('ok') else None)
                size = lambda x: x.get('ckpt_bytes') if x.get('ok') else None
                row = dict(model=m, env=k, variant=v, step=s, ratio=statistics.median(per), lo=min(per), hi=max(per), update=u,
                           update_ratio=u / dense if u is not None else None,
                           mem=grow(mv), mem_ratio=grow(mv) / grow(md) if grow(mv) and grow(md) else None,
                           peak=mv.get('peak_rss') if mv.get('ok') else None,
                           ckpt=size(mv), ckpt_ratio=size(mv) / size(md) if size(mv) and size(md) else None,
                           density=mv.get('density_after') if mv.get('ok') and v != 'dense' else None,
                           density1=r['updates'].get(v, {}).get('density_after_one_update'),
                           mem_error=None if not mv or mv.get('ok') else mv.get('error'))
                rows.append(row)
    return rows

def rng(r): return f"{r['ratio']:.4f}x [{r['lo']:.3f}, {r['hi']:.3f}]"

def goals(res, rows, c, device):
    """(goal, row, figure, met, within spread) for every goal and row it applies to; `within spread`: the threshold or
    the other library's range overlaps the range of the per-repeat ratios, so the verdict could flip on a rerun"""
    out = []
    by = {(r['model'], r['env'], r['variant']): r for r in rows if r.get('variant')}
    for m in c['models']:
        for kind in ('static', 'set', 'rigl', 'rigl-step'):
            mine = by.get((m, 'main', f'fastsparse:{kind}'))
            if mine is None: continue
            K = dict(static='static', set='SET', rigl='RigL', **{'rigl-step': 'RigL (step gradient)'})[kind]
            if m in GOALS:
                out.append((f"step at most {GOALS[m]:.2f}x dense", f"{MODELS[m]}, fastsparse {K}",
                            f"{rng(mine)}", mine['ratio'] <= GOALS[m], mine['lo'] <= GOALS[m] <= mine['hi']))
            others = [('prune:static', 'main', 'torch prune static')] if kind == 'static' else []
            if kind != 'rigl-step':                  # 0.0.5 has one RigL, compared with the default
                others += [(f'fs005:{kind}', '005cur', "0.0.5 (today's torch)"), (f'fs005:{kind}', '005', '0.0.5 (2020 stack)')]
            for v, k, name in others:
                o = by.get((m, k, v))
                if o is None: out.append(("no slower than the others", f"{MODELS[m]}, fastsparse {K} vs {name}",
                                          "not measured", None, False)); continue
                out.append(("no slower than the others (step / dense)", f"{MODELS[m]}, fastsparse {K} vs {name}",
                            f"{rng(mine)} vs {rng(o)}", mine['ratio'] <= o['ratio'],
                            mine['lo'] <= o['hi'] and o['lo'] <= mine['hi']))
                if kind != 'static' and mine['update_ratio'] is not None and o['update_ratio'] is not None:
                    out.append(("no slower than the others (update / step)", f"{MODELS[m]}, fastsparse {K} vs {name}",
                                f"{mine['update_ratio']:.3f} vs {o['update_ratio']:.3f}", mine['update_ratio'] <= o['update_ratio'], False))
    r50 = res['r50'].get('main', {})
    if r50.get('ok'):
        for kind in ('set', 'rigl'):
            u = r50['updates'][f'fastsparse:{kind}']['update']
            for k, name in (('005cur', "0.0.5 (today's torch)"), ('005', '0.0.5 (2020 stack)')):
                o = res['r50'].get(k, {})
                if o.get('ok'):
                    ou = o['updates'][f'fs005:{kind}']['update']
                    out.append(("no slower than the others (update / step)", f"ResNet-50 {dict(set='SET', rigl='RigL')[kind]} update vs {name}",
                                f"{u / r50['step']:.3f} vs {ou / o['step']:.3f}", u / r50['step'] <= ou / o['step'], False))
        u = r50['updates']['fastsparse:rigl']['update']
        bound = r50['n_weights'] * BYTES_PER_WEIGHT / res['bandwidth']
        if device == 'cpu':
            out.append(("RigL update at most 0.1x of a step (CPU)", "ResNet-50", f"{u / r50['step']:.3f}x", u / r50['step'] <= 0.1, False))
        out.append(("RigL update within 10x of the bandwidth bound", "ResNet-50", f"{u / bound:.1f}x the bound", u / bound <= 10, False))
        if device == 'cuda':
            out.append(("RigL update under 2 ms (GPU)", "ResNet-50", f"{u * 1e3:.2f} ms", u < 2e-3, False))
    return out

def write_report(a, c, res, md, png, seconds):
    E = envs(a.venv_root)
    rows = step_rows(res, c, E)
    cmd = 'python bench/bench_compare.py' + (f' --repeats {a.repeats}' if a.repeats else '') + (' --quick' if a.quick else '') \
          + (f' --device {a.device}' if a.device != 'cpu' else '') + (f" --models {' '.join(a.models)}" if a.models else '')
    M = res['machine']
    dev = M['device']
    L = ["# fastsparse against the alternatives", "",
         f"`{cmd}` on {M['date']}, {dev}; this process: Python {M['python']}, "
         f"torch {M['torch']}, fastai {M['fastai']}. Took {seconds / 60:.1f} minutes.", ""]
    L += ["Environments (each in its own processes):", ""]
    for k, (label, py, _) in E.items():
        r = next((res['timing'][m][k] for m in c['models'] if res['timing'][m][k].get('ok')), None)
        L.append(f"- **{label}** (`{py}`): " + (env_line(r) if r else f"did not run: {res['timing'][c['models'][0]][k]['error']}"))
    L += ["",
          f"Settings: 90% sparsity, Erdos-Renyi-Kernel distribution, the same masks for every library; SGD with momentum "
          f"0.9; random data. Steps timed by a BatchTimer callback over every training batch of {c['repeats']} interleaved "
          f"epochs per variant (order reversed every repeat, after a warm-up epoch); batches per epoch: "
          + ', '.join(f"{m} {c['nb'][m]} x {c['bs'][m]}" for m in c['models']) + ". "
          f"SET and RigL (`every={UPDATE_EVERY}`) are timed with their callback on every step and their mask "
          f"update timed apart (median of {c['repeats']}, drop and regrow 30%), added at one per {UPDATE_EVERY} steps. "
          f"Every ratio divides by dense measured in the same process; a step ratio is the median over the repeats of each repeat's "
          f"median step time over dense's in the same repeat. Memory: each variant in a fresh process "
          f"({c['mem_nb']} training batches, a mask update every {c['mem_bpu']} steps), "
          + ("CUDA max allocated" if a.device == 'cuda' else "growth of the peak RSS (VmHWM, reset by /proc/self/clear_refs) over the RSS before the model is built, "
             "with glibc's mmap threshold fixed at 64 KiB (`MALLOC_MMAP_THRESHOLD_=65536`)")
          + "; checkpoints without optimizer state (`learn.save(..., with_opt=False)`; torch prune: `torch.save(model.state_dict())`).", ""]
    L += ["## Training steps", "",
          "| model | library | variant | ms/step | step / dense [range over repeats] | one update, ms | update / step | peak memory growth, MB | memory / dense | checkpoint, KB | checkpoint / dense | mask density after training |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lib = E[r['env']][0]
        if r.get('error'):
            L.append(f"| {MODELS[r['model']]} | {lib} | all | did not run: {r['error']} |  |  |  |  |  |  |  |  |"); continue
        mem = fmt(r['mem'] and r['mem'] / 2**20, '{:.1f}', '—' if r['mem_error'] is None else 'failed')
        L.append(f"| {MODELS[r['model']]} | {lib} | {LABELS[r['variant']]} | {r['step'] * 1e3:.2f} | {r['ratio']:.3f} [{r['lo']:.3f}, {r['hi']:.3f}] | "
                 f"{fmt(r['update'] and r['update'] * 1e3)} | {fmt(r['update_ratio'], '{:.3f}')} | {mem} | "
                 f"{fmt(r['mem_ratio'], '{:.2f}')} | {fmt(r['ckpt'] and r['ckpt'] / 1024, '{:.0f}')} | {fmt(r['ckpt_ratio'], '{:.3f}')} | "
                 f"{fmt(r['density'], '{:.4f}')} |")
    errs = sorted({r['mem_error'] for r in rows if r.get('mem_error')})
    if errs: L += ["", "Memory runs that failed: " + '; '.join(errs)]
    # ResNet-50
    bw = res['bandwidth']
    L += ["", "## One mask update over ResNet-50's weights", "",
          f"ResNet-50 (torchvision, 1000 classes), 90% sparse (ERK), masks of every conv and linear weight. A training step is "
          f"dense, batch {c['r50_bs']} at 224x224 (median of {c['r50_steps']}); an update drops and regrows 30% of each layer's "
          f"active weights (median of {c['r50_updates']}). Bandwidth bound: an update must read every masked weight and its "
          f"gradient (4 + 4 bytes) and the old mask (1 byte) and write the new mask (1 byte), {BYTES_PER_WEIGHT} bytes per "
          f"weight, at the {bw / 1e9:.1f} GB/s of a {c['bw_mib']} MiB torch copy on this machine (read + write). Optimizer "
          f"state (momentum of grown weights zeroed) is left out of the bound. Memory: growth of the peak RSS during one RigL update "
          f"(CUDA: max allocated), its gradient computed before.", "",
          "| library | method | weights | one update, ms | one step, ms | update / step | bound, ms | update / bound | density after one update | update memory, MB |",
          "|---|---|---|---|---|---|---|---|---|---|"]
    for k, (label, _, _) in E.items():
        r = res['r50'].get(k, {})
        if not r.get('ok'): L.append(f"| {label} | all | did not run: {r.get('error')} |  |  |  |  |  |  |  |"); continue
        bound = r['n_weights'] * BYTES_PER_WEIGHT / bw
        mm = res['r50mem'].get(k, {})
        mem = mm.get('peak_cuda', mm.get('grow_rss')) if mm.get('ok') else None
        for v, u in r['updates'].items():
            mem_s = fmt(mem and mem / 2**20, '{:.0f}') if v.endswith('rigl') else '—'
            L.append(f"| {label} | {LABELS[v].split()[-1]} | {r['n_weights'] / 1e6:.1f}M | {u['update'] * 1e3:.1f} | {r['step'] * 1e3:.0f} | "
                     f"{u['update'] / r['step']:.3f} | {bound * 1e3:.2f} | {u['update'] / bound:.1f} | "
                     f"{fmt(u['density_after_one_update'], '{:.4f}')} | {mem_s} |")
    # goals
    G = goals(res, rows, c, a.device)
    met = sum(1 for g in G if g[3]); notmet = sum(1 for g in G if g[3] is False)
    close = sum(1 for g in G if g[4] and g[3] is not None)
    L += ["", "## Goals", "", f"{met} met, {notmet} not met" + (f", {len(G) - met - notmet} not measured" if len(G) - met - notmet else '')
          + f"; {close} of these verdicts are within the spread: the threshold, or the other library's range, overlaps the "
          "range of the per-repeat ratios, so they could flip on a rerun. Step ratios are shown as the median [lowest, "
          "highest per-repeat ratio] over the interleaved repeats.", "",
          "| goal | row | measured | met |", "|---|---|---|---|"]
    for g, row, fig, ok, close in G:
        verdict = '—' if ok is None else 'met' if ok else '**not met**'
        L.append(f"| {g} | {row} | {fig} | {verdict}{' (within the spread)' if close and ok is not None else ''} |")
    L += ["", "## Notes", "",
          "- fastsparse's RigL grows by the gradient summed over every step since the last update (see the README's \"Why "
          "RigL trailed SET\"): each step of the update window adds the gradient of every sparse layer to a running sum, one "
          "elementwise pass over the sparse weights that RigL (step gradient), `growth_gradient='step'` (growth by the update "
          "step's gradient, as in the paper), does not make. On a small, fast step such as LeNet-300-100's that pass is a "
          "visible share of the step; on ResNet-sized steps it is not.",
          "- fastsparse 0.0.5 asks only for `fastai` (no version; Requires-Python >= 3.6), so `bash bench/setup_fastsparse_005.sh` "
          "installs it twice: on the stack of its release (wheel built 2020-11-24: Python 3.8, torch 1.7.0, fastai 2.1.7, "
          "fastcore 1.3.7) and, with `--no-deps`, beside today's torch and fastai. It runs unmodified on both.",
          "- 0.0.5 keeps `int(n_active - drop_fraction)` weights on an update where it means `int(n_active * (1 - drop_fraction))` "
          "(operator precedence), so an update drops nothing and grows 30% more: after its first update a layer holds 1.3x its "
          "target (the density columns), later updates leave it at (1 + the current drop fraction) x the target. Its update "
          "timings put the masks back after every update, so that each times the same work.",
          "- 0.0.5 applies the masks in a forward pre-hook that walks the module's buffers on every forward, and ranks every "
          "weight with a full `topk` (a sort) on updates; torch.nn.utils.prune recomputes `weight = weight_orig * weight_mask` "
          "on every forward and keeps float masks (its checkpoint holds both tensors).",
          "- Peak memory on CPU is the kernel's high-water mark of the process's RSS, reset just before the model is built. "
          "`getrusage`'s max RSS is not used: it cannot be reset, and a process started by `subprocess` inherits its "
          "parent's peak in it (vfork + exec). The memory runs fix glibc's mmap threshold at 64 KiB, so that every freed "
          "tensor goes back to the OS at once and the peak RSS follows the peak of live memory: with glibc's adaptive "
          "threshold the small CNN's peak varied by 30 MB from run to run, with it by 0.1 MB. The growth also holds the "
          "pages of library code first touched by training, about the same for every variant."]
    md.write_text('\n'.join(L) + '\n')
    plot(rows, res, c, E, png, f"{cmd}, {M['date']}, {dev}")
    return L

def plot(rows, res, c, E, png, title):
    import matplotlib; matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    series = [('main', 'fastsparse:static'), ('main', 'fastsparse:set'), ('main', 'fastsparse:rigl'), ('main', 'fastsparse:rigl-step'),
              ('main', 'prune:static'),
              ('005cur', 'fs005:static'), ('005cur', 'fs005:set'), ('005cur', 'fs005:rigl'),
              ('005', 'fs005:static'), ('005', 'fs005:set'), ('005', 'fs005:rigl')]
    colors = ['#1f77b4', '#4a98d3', '#8cc3ee', '#c6e2f7', '#7f7f7f', '#d62728', '#e9686a', '#f4a5a6', '#ff7f0e', '#ffa64d', '#ffcc99']
    by = {(r['model'], r['env'], r['variant']): r for r in rows if r.get('variant')}
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(14, 5), gridspec_kw=dict(width_ratios=[3, 1.2]))
    ms, width = c['models'], 0.8 / len(series)
    for i, ((k, v), col) in enumerate(zip(series, colors)):
        rs = [by.get((m, k, v)) for m in ms]
        ys = [r['ratio'] if r else np.nan for r in rs]
        err = [[r['ratio'] - r['lo'] if r else 0 for r in rs], [r['hi'] - r['ratio'] if r else 0 for r in rs]]
        name = LABELS[v] if k == 'main' else f"{LABELS[v]} ({'today' if k == '005cur' else '2020 stack'})"
        ax.bar(np.arange(len(ms)) + (i - len(series) / 2 + 0.5) * width, ys, width, label=name, color=col,
               yerr=err, error_kw=dict(lw=0.6, capsize=1.5, ecolor='0.3'))
    ax.axhline(1, color='k', lw=0.8)
    for j, m in enumerate(ms):
        if m in GOALS: ax.hlines(GOALS[m], j - 0.45, j + 0.45, colors='g', linestyles='--', lw=1)
    ax.set_xticks(range(len(ms))); ax.set_xticklabels([MODELS[m] for m in ms], fontsize=8)
    ax.set_ylabel('training step time / dense (same process)')
    lo = np.nanmin([r['lo'] for r in rows if r.get('variant')] + [1.0])
    ax.set_ylim(min(0.9, lo - 0.05), None)
    ax.set_title('Step time / dense (SET/RigL: 1 update per 100 steps); bars: range over repeats; green: goal', fontsize=10)
    ax.legend(fontsize=7, ncol=2)
    names, vals, cols = [], [], []
    for (k, col) in (('main', '#1f77b4'), ('005cur', '#d62728'), ('005', '#ff7f0e')):
        r = res['r50'].get(k, {})
        if r.get('ok'):
            v = 'fastsparse:rigl' if k == 'main' else 'fs005:rigl'
            names.append({'main': 'fastsparse', '005cur': "0.0.5\n(today)", '005': '0.0.5\n(2020)'}[k])
            vals.append(r['updates'][v]['update'] / r['step']); cols.append(col)
    ax2.bar(names, vals, color=cols)
    ax2.axhline(0.1, color='g', ls='--', lw=1)
    ax2.set_yscale('log'); ax2.set_ylabel('one RigL update / one training step')
    ax2.set_title('ResNet-50, 90% ERK; green: goal 0.1')
    fig.suptitle(title, fontsize=9)
    fig.tight_layout(); fig.savefig(png, dpi=110); plt.close(fig)

def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--repeats', type=int, default=None, help='interleaved repeats (default 7; 2 with --quick)')
    p.add_argument('--quick', action='store_true', help='a smoke run of every path in about two minutes')
    p.add_argument('--device', choices=['cpu', 'cuda'], default='cpu')
    p.add_argument('--models', nargs='*', choices=list(MODELS), help='only these models (default: all)')
    p.add_argument('--venv-root', default=os.environ.get('FASTSPARSE005_VENVS', '/work/venvs'),
                   help="where setup_fastsparse_005.sh put 0.0.5's environments")
    p.add_argument('--out', help='the markdown report (default bench/COMPARE.md; with --quick, in a temporary folder)')
    p.add_argument('--png', help='the plot (default bench/compare.png; with --quick, beside the report)')
    p.add_argument('--from-json', help='write the report and plot from the figures of an earlier run (its compare.json)')
    a = p.parse_args()
    if a.out is None:
        a.out = str(Path(tempfile.mkdtemp(prefix='fastsparse-compare-quick-')) / 'COMPARE.md') if a.quick else str(HERE / 'COMPARE.md')
    if a.png is None: a.png = str(Path(a.out).with_name('compare.png'))
    out = Path(a.out); out.parent.mkdir(parents=True, exist_ok=True)
    raw = out.with_name('compare.json')
    if a.from_json:                                  # render the report again from measured figures
        res = json.loads(Path(a.from_json).read_text())
        for k in ('repeats', 'quick', 'device', 'models'): setattr(a, k, res['args'][k])
        c, seconds = res['config'], res['seconds']
    else:
        if a.device == 'cuda' and not torch.cuda.is_available():
            p.error("--device cuda: no CUDA device is available here (torch.cuda.is_available() is False); use --device cpu")
        c = config(a)
        t0 = time.time()
        machine = machine_info(a.device)
        res = measure(a, c)
        res['machine'] = machine
        seconds = time.time() - t0
        res.update(config=c, seconds=seconds, args=dict(repeats=a.repeats, quick=a.quick, device=a.device, models=a.models))
        raw.write_text(json.dumps(res, indent=1, default=str))
    L = write_report(a, c, res, out, Path(a.png), seconds)
    print('\n'.join(L))
    log(f"wrote {out}, {a.png}" + ('' if a.from_json else f" and {raw}"))

if __name__ == '__main__': main()
