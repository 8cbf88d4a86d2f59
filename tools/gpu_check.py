"""One command that spends a lent GPU's minutes on measuring: the CUDA tests and the GPU benchmarks, in parts that fit.

Here, once before a GPU is lent (and again when a dependency's version changes):

    python tools/gpu_check.py --prepare      # .gpu-wheels/: pure wheels of what the GPU machine lacks (fastai, nbdev, ...)

On the GPU machine (Python 3.12, torch 2.11, no fastai; 10 minutes a command), from the repository root, with
`.gpu-wheels` carried; each part installs the wheels into /tmp first (a fresh machine is bare):

    python tools/gpu_check.py --part 1       # the notebooks that hold `#| cuda` cells, those cells included
    python tools/gpu_check.py --part 2       # the benchmarks: selection, ResNet-18 step, ResNet-50 RigL update,
                                             # a 2:4 8192x8192 half Linear, sparse compute, condense
    python tools/gpu_check.py --part 3       # the rest of the fast suite, with the GPU visible

Each part keeps to its time budget (`--budget`, seconds; every benchmark has its own share and runs in a process of its
own, so one that hangs or fails costs its share only) and writes `gpu-part<N>.json` and `GPU.md` into `$OUT` where it
is set (the device tool brings that folder back), else into `bench/gpu/`. Back here, copy the JSON files into
`bench/gpu/` and run

    python tools/gpu_check.py --report       # bench/GPU.md from bench/gpu/*.json; prints the README rows to add

On an H100 (2026-11-26) the parts took 127, 84 and 192 s, so one command runs them all inside the 10 minutes a
command may take, with the wheels installed once:

    python tools/gpu_check.py --all          # parts 1, 2 and 3 (budgets 180, 130 and 260 s), under 10 minutes

On 2026-11-27 (more notebooks) parts 1 and 3 ran out of their budgets with a few notebooks unfinished, each worker
running 16 threads on the 16 cores: the notebooks now start slowest first (by the last recorded times in bench/gpu/)
and each worker gets its share of the cores. The machine started in about 30 s, so `--all` and a second command,

    python bench/gpu_diagnose.py --out $OUT/diag.json    # about 25 s

(host syncs, host time against step time, a profile, the 2:4 kernels) fit a 15-minute loan, with a few minutes left
for one short rerun.

    python tools/gpu_check.py --dry-run      # every step on the CPU, tiny sizes, in under 2 minutes (CI runs it)
"""
import argparse, collections, datetime, json, os, platform, re, shutil, statistics, subprocess, sys, tempfile, time, warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WHEELS = ROOT / '.gpu-wheels'
SITE = Path(tempfile.gettempdir()) / 'fastsparse-gpu-site'
CARRY_LIMIT = 64 * 2**20                      # what one device call can carry: the working tree and the wheels together

# The Python packages of the lent machines' image ('cuda'), as /work/.library/device/KINDS.md listed them on 2026-11-17
DEVICE_HAS = set("""absl-py accelerate aiofiles aiohappyeyeballs aiohttp aiosignal annotated-doc anyio attrs botorch build
certifi charset-normalizer chex click cloudpickle cmake colorama contourpy coverage cuda-bindings cuda-core cuda-pathfinder
cuda-toolkit cupy-cuda13x cycler cython diffrax e3nn einops equinox etils execnet filelock flatbuffers flax fonttools
formulaic frozenlist fsspec gpytorch grpcio h11 h5py hf-xet httpcore httpx huggingface-hub humanize hypothesis idna imageio
iniconfig interface-meta jax jax-cuda13-pjrt jax-cuda13-plugin jaxlib jaxtyping jinja2 joblib kiwisolver lazy-loader
lightning lightning-utilities linear-operator lineax llvmlite lxml markdown markdown-it-py markupsafe matplotlib mdurl meson
ml-dtypes mpi4py mpmath msgpack multidict multipledispatch mypy-extensions nanobind narwhals networkx ninja numba numba-cuda
numpy numpyro nvidia-cublas nvidia-cuda-cupti nvidia-cuda-nvrtc nvidia-cuda-runtime nvidia-cudnn-cu13 nvidia-cufft
nvidia-cufile nvidia-curand nvidia-cusolver nvidia-cusparse nvidia-cusparselt-cu13 nvidia-ml-py nvidia-nccl-cu13
nvidia-nvjitlink nvidia-nvshmem-cu13 nvidia-nvtx onnx onnx-ir onnxruntime onnxscript opencv-python-headless optax opt-einsum
opt-einsum-fx optimistix orbax-checkpoint packaging pandas pathspec patsy peft pillow pip pluggy portalocker
prometheus-client propcache protobuf psutil pyarrow pybind11 py-cpuinfo pygments pyparsing pyproject-hooks pyre-extensions
pytest pytest-benchmark pytest-cov pytest-mock pytest-timeout pytest-xdist python-dateutil pytorch-lightning pyyaml regex
requests rich sacrebleu safetensors scikit-build-core scikit-image scikit-learn scipy seaborn sentencepiece
sentence-transformers setuptools shellingham simplejson six sortedcontainers statsmodels sympy tabulate tensorboard
tensorboard-data-server tensorstore threadpoolctl tifffile tiktoken timm tokenizers toolz torch torchaudio torchdiffeq
torch-geometric torchmetrics torchvision tqdm transformers treescope triton typer typing-extensions typing-inspect urllib3
uvloop wadler-lindig werkzeug wheel wrapt xarray xxhash yarl zipp""".split())
NEEDED = ('fastai', 'nbdev', 'execnb', 'ipython')     # what the tests import beyond the image; their dependencies follow
# spaCy and its compiled family serve fastai.text alone, which no test imports: left out (the wheels install --no-deps)
LEFT_OUT = set('spacy thinc blis cymem murmurhash preshed srsly spacy-legacy spacy-loggers weasel confection wasabi '
               'catalogue cloudpathlib smart-open'.split())
PLATFORMS = ('manylinux_2_28_x86_64', 'manylinux_2_17_x86_64', 'manylinux2014_x86_64', 'any')

def _norm(name:str) -> str: return re.sub(r'[-_.]+', '-', name).lower()

def _say(*a): print(*a, flush=True)

# --- preparing the wheels (here) ----------------------------------------------------------------------------------
def wheel_plan() -> tuple:
    "([(name, version)] to carry, {name: why left out}): `NEEDED` and their dependencies as installed here, less the image's"
    from importlib.metadata import distribution, PackageNotFoundError
    from packaging.requirements import Requirement
    plan, left, todo = {}, {}, list(NEEDED)
    while todo:
        n = _norm(todo.pop())
        if n in plan or n in left: continue
        if n in DEVICE_HAS: continue
        if n in LEFT_OUT: left[n] = 'fastai.text only'; continue
        try: d = distribution(n)
        except PackageNotFoundError: left[n] = 'not installed here'; continue
        plan[n] = d.version
        for r in d.requires or []:
            req = Requirement(r)
            if req.marker is None or req.marker.evaluate({'extra': '', 'python_version': '3.12'}): todo.append(req.name)
    return sorted(plan.items()), left

def tree_bytes() -> int:
    "Bytes of the working tree a device call carries: tracked files and untracked ones git does not ignore"
    try: out = subprocess.run(['git', 'ls-files', '-co', '--exclude-standard', '-z'], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError): return 0
    return sum((ROOT / f).stat().st_size for f in out.decode().split('\0') if f and (ROOT / f).is_file())

def git_commit() -> str:
    try: return subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        m = WHEELS / 'manifest.json'
        return json.loads(m.read_text()).get('commit', '?') if m.exists() else '?'

def prepare(dry:bool=False):
    plan, left = wheel_plan()
    _say(f"{len(plan)} packages to carry: " + ', '.join(f"{n}=={v}" for n, v in plan))
    _say("left out: " + ', '.join(f"{n} ({why})" for n, why in sorted(left.items())))
    if dry: return plan
    tmp = Path(tempfile.mkdtemp(prefix='gpu-wheels-'))
    cmd = [sys.executable, '-m', 'pip', 'download', '-q', '--no-deps', '--only-binary=:all:', '--python-version', '3.12',
           '--implementation', 'cp', '--abi', 'cp312', *[a for p in PLATFORMS for a in ('--platform', p)], '-d', str(tmp),
           *[f"{n}=={v}" for n, v in plan]]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        raise SystemExit(f"pip download failed (exit {r.returncode}):\n{r.stderr[-3000:]}")
    if WHEELS.exists(): shutil.rmtree(WHEELS)
    shutil.move(str(tmp), WHEELS)
    got = sorted(WHEELS.glob('*.whl'))
    size, tree = sum(f.stat().st_size for f in got), tree_bytes()
    (WHEELS / 'manifest.json').write_text(json.dumps(dict(commit=git_commit(), made=_now(), packages=dict(plan),
                                                          left_out=left, bytes=size), indent=1))
    _say(f"{len(got)} wheels, {size / 2**20:.1f} MiB, in {WHEELS}; the working tree is {tree / 2**20:.1f} MiB: "
         f"{(size + tree) / 2**20:.1f} MiB of the {CARRY_LIMIT // 2**20} MiB a call carries")
    if size + tree > CARRY_LIMIT: raise SystemExit("too large to carry: leave out more packages, or shrink the tree")
    ignore = ROOT / '.gitignore'
    if '/.gpu-wheels/' not in ignore.read_text().split():
        _say("add /.gpu-wheels/ to .gitignore (so that it travels only when carried)")
    _say("on the GPU machine: carry .gpu-wheels, run `python tools/gpu_check.py --part 1` (then 2, then 3)")
    return plan

def install(dry:bool=False) -> dict:
    "Install the carried wheels into `SITE` (once per machine) and make them importable here and in child processes"
    wheels = sorted(WHEELS.glob('*.whl'))
    info = dict(wheels=len(wheels))
    mark = SITE / '.installed'
    if dry: info['note'] = 'dry run: nothing installed'
    elif wheels and not mark.exists():
        r = subprocess.run([sys.executable, '-m', 'pip', 'install', '-q', '--no-index', '--no-deps', '--no-compile',
                            '--no-cache-dir', '--upgrade', '--target', str(SITE), *map(str, wheels)], capture_output=True, text=True)
        info['pip'] = r.returncode
        if r.returncode: info['pip_error'] = r.stderr[-2000:]
        else: mark.write_text(_now())
    paths = [str(ROOT)] + ([str(SITE)] if SITE.exists() and not dry else [])
    if not dry and SITE.exists():                 # fastsparse is not installed there: its console scripts, for the notebooks
        bin_ = SITE / 'bin'; bin_.mkdir(exist_ok=True)
        for cmd, mod in (('fastsparse-train', 'fastsparse.cli.train'), ('fastsparse-prune', 'fastsparse.cli.prune')):
            (bin_ / cmd).write_text(f"#!{sys.executable}\nimport sys\nsys.path[:0] = {paths!r}\n"
                                    f"from {mod} import main\nsys.exit(main())\n")
            (bin_ / cmd).chmod(0o755)
        os.environ['PATH'] = f"{bin_}{os.pathsep}{os.environ.get('PATH', '')}"
    os.environ['PYTHONPATH'] = os.pathsep.join(paths + [p for p in os.environ.get('PYTHONPATH', '').split(os.pathsep) if p])
    for p in reversed(paths):
        if p not in sys.path: sys.path.insert(0, p)
    r = subprocess.run([sys.executable, '-c', 'import fastai, nbdev, fastsparse.all; print(fastai.__version__, nbdev.__version__)'],
                       capture_output=True, text=True)
    info['imports'] = r.stdout.strip() if r.returncode == 0 else 'failed: ' + r.stderr.strip().splitlines()[-1:][0] if r.stderr.strip() else 'failed'
    return info

# --- the environment and the results ------------------------------------------------------------------------------
def _now() -> str: return datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')

def env_info() -> dict:
    import torch
    e = dict(date=_now(), commit=git_commit(), python=platform.python_version(), torch=torch.__version__,
             cuda=torch.version.cuda, device='cpu')
    if torch.cuda.is_available():
        p = torch.cuda.get_device_properties(0)
        e.update(device=torch.cuda.get_device_name(0), memory_gib=round(p.total_memory / 2**30, 1),
                 sms=p.multi_processor_count, tf32=torch.backends.cuda.matmul.allow_tf32)
    return e

def out_dir(dry:bool) -> Path:
    if os.environ.get('OUT'): return Path(os.environ['OUT'])
    return Path(tempfile.mkdtemp(prefix='gpu-check-')) if dry else ROOT / 'bench' / 'gpu'

# --- part 1 and 3: notebooks --------------------------------------------------------------------------------------
def _cells(nb:Path) -> list:
    return [c for c in json.loads(nb.read_text())['cells'] if c['cell_type'] == 'code']

def _flags(src:str) -> set:
    return {f for l in src.splitlines() if l.startswith('#|') for f in l[2:].split() if f in ('slow', 'cuda', 'notest')}

def cuda_notebooks() -> list:
    return sorted(nb for nb in (ROOT / 'nbs').glob('*.ipynb') if not nb.name.startswith(('_', '.'))
                  and any('cuda' in _flags(''.join(c['source'])) for c in _cells(nb)))

def _compile_cells(nbs:list, flag:str|None) -> list:
    "A dry run's check of notebooks: every code cell (or only those flagged `flag`) compiles, magics and shell lines left out"
    rows = []
    for nb in nbs:
        n, bad = 0, []
        for i, c in enumerate(_cells(nb)):
            src = ''.join(c['source'])
            if flag and flag not in _flags(src): continue
            if any(l.startswith('%%') for l in src.splitlines()):
                n += 1; continue                     # a cell magic (%%bash): not Python
            n += 1
            code = '\n'.join('' if l.lstrip().startswith(('%', '!')) else l for l in src.splitlines())
            try: compile(code, f"{nb.name} cell {i}", 'exec')
            except SyntaxError as e: bad.append(f"cell {i}: {e.msg} (line {e.lineno})")
        rows.append(dict(notebook=nb.name, status='failed' if bad else 'compiles', cells=n, error='; '.join(bad)))
    return rows

_LINE = re.compile(r'\[\s*\d+/\d+\]\s+(passed|FAILED)\s+(\S+)\s+(\d+) s')

def last_seconds() -> dict:
    "{notebook: seconds} as the last GPU run recorded them (bench/gpu/gpu-part*.json); empty where none"
    secs = {}
    for f in sorted((ROOT / 'bench' / 'gpu').glob('gpu-part*.json')):
        try: rows = json.loads(f.read_text()).get('tests', {}).get('notebooks', [])
        except (OSError, ValueError, AttributeError): continue
        secs.update({r['notebook']: r['seconds'] for r in rows if isinstance(r.get('seconds'), (int, float))})
    return secs

def longest_first(nbs:list, secs:dict) -> list:
    "`nbs` in the order to start them: the slowest last time first, those with no time recorded (new or unfinished) before all"
    return sorted(nbs, key=lambda nb: -secs.get(nb.name, float('inf')))

def worker_env(workers:int) -> dict:
    "The notebooks' environment: each of `workers` processes gets its share of the cores for PyTorch's and Numba's threads"
    n = str(max(2, (os.cpu_count() or 2) // workers))     # 12 workers of 16 threads each on 16 cores ran parts out of time
    env = {**os.environ, 'CUBLAS_WORKSPACE_CONFIG': os.environ.get('CUBLAS_WORKSPACE_CONFIG', ':4096:8')}   # deterministic resume
    for k in ('OMP_NUM_THREADS', 'MKL_NUM_THREADS', 'NUMBA_NUM_THREADS'): env.setdefault(k, n)
    return env

def run_notebooks(nbs:list, flags:str, budget:float, workers:int, dry:bool) -> dict:
    if dry: return dict(notebooks=_compile_cells(nbs, 'cuda' if flags else None), note='dry run: compiled, not run')
    cmd = [sys.executable, str(ROOT / 'tools' / 'test.py'), '--n-workers', str(workers), '--cell-timeout', str(int(budget)),
           *(['--flags', flags] if flags else []), *map(str, longest_first(nbs, last_seconds()))]
    t = time.time()
    try:
        env = worker_env(workers)
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=budget, cwd=ROOT, env=env)
        out, status = r.stdout + r.stderr, 'ok' if r.returncode == 0 else 'failed'
    except subprocess.TimeoutExpired as e:
        out, status = ((e.stdout or b'').decode() if isinstance(e.stdout, bytes) else (e.stdout or '')) + \
                      ((e.stderr or b'').decode() if isinstance(e.stderr, bytes) else (e.stderr or '')), 'timeout'
    done = {m.group(2): (m.group(1), int(m.group(3))) for m in _LINE.finditer(out)}
    rows = [dict(notebook=nb.name, status={'passed': 'passed', 'FAILED': 'FAILED'}.get(done.get(nb.name, ('',))[0], 'not finished'),
                 seconds=done.get(nb.name, (None, None))[1]) for nb in nbs]
    return dict(status=status, seconds=round(time.time() - t), notebooks=rows, log_tail=out[-6000:])

# --- part 2: benchmarks, each in a process of its own ---------------------------------------------------------------
def _sync(dev):
    import torch
    return torch.cuda.synchronize if str(dev).startswith('cuda') else (lambda: None)

def _interleaved(fns:dict, repeats:int, sync) -> dict:
    "{name: (median, min, max) seconds} of each function, the order reversed every other round"
    ts = {k: [] for k in fns}
    for r in range(repeats):
        for k in (list(fns) if r % 2 == 0 else list(fns)[::-1]):
            sync(); t = time.perf_counter(); fns[k](); sync(); ts[k].append(time.perf_counter() - t)
    return {k: (statistics.median(v), min(v), max(v)) for k, v in ts.items()}

def _ms(x): return round(x * 1e3, 3)

def bench_selection(dev, tiny):
    "S1: the selection primitive on the device: fastsparse's top_k_mask (its cut by topk on CUDA) against kthvalue, topk and sort"
    import torch
    from fastsparse.ops.select import top_k_mask
    rows, sync = [], _sync(dev)
    for n in ([10_000] if tiny else [2_400_000, 23_000_000]):
        v, k = torch.randn(n, device=dev), n // 10
        t = _interleaved(dict(top_k_mask=lambda: top_k_mask(v, k), kthvalue=lambda: torch.kthvalue(v, n - k + 1),
                              topk=lambda: torch.topk(v, k, sorted=False), sort=lambda: torch.sort(v)), 2 if tiny else 7, sync)
        rows.append(dict(n=n, k=k, **{f"{name}_ms": _ms(m) for name, (m, _, _) in t.items()}))
    return dict(rows=rows)

def _resnet(name, classes, tiny=False):
    "torchvision's `name`, or for a dry run a small CNN with BatchNorm (the same code paths, a thousandth of the work)"
    import torch.nn as nn
    if tiny: return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(), nn.Conv2d(8, 16, 3, 2, 1, bias=False),
                                  nn.BatchNorm2d(16), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, classes))
    import torchvision
    return getattr(torchvision.models, name)(num_classes=classes)

def bench_resnet18(dev, tiny):
    "ResNet-18 (3x32x32, 10 classes) training step at batch 256, fp32, SGD with momentum: each method over dense"
    import copy, torch, torch.nn as nn
    from fastsparse.core.sparsify import sparsify_model
    from fastsparse.loop.optim import sparse_optimizer
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = True
    bs, steps, repeats, size = (4, 1, 2, 16) if tiny else (256, 10, 5, 32)
    base = _resnet('resnet18', 10, tiny).to(dev)
    x, y = torch.randn(bs, 3, size, size, device=dev), torch.randint(0, 10, (bs,), device=dev)
    runs = {}
    for v in ('dense', 'static', 'rigl', 'rigl-step'):
        m = copy.deepcopy(base)
        opt = torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
        if v == 'static': sparsify_model(m, 0.9, 'erk')
        elif v != 'dense':
            opt = sparse_optimizer('rigl', m, opt, 0.9, distribution='erk', total_steps=10**6, every=10**6,
                                   **({'growth_gradient': 'step'} if v == 'rigl-step' else {}))
        def step(m=m, opt=opt):
            for _ in range(steps):
                nn.functional.cross_entropy(m(x), y).backward(); opt.step(); opt.zero_grad()
        step()
        runs[v] = step
    t = _interleaved(runs, repeats, _sync(dev))
    d = t['dense'][0]
    rows = [dict(method=k, step_ms=_ms(m / steps), over_dense=round(m / d, 3), spread=f"{lo / d:.2f}-{hi / d:.2f}")
            for k, (m, lo, hi) in t.items()]
    return dict(batch=bs, size=size, rows=rows)

def bench_resnet50_update(dev, tiny):
    "One RigL mask update (drop and regrow 30%) over ResNet-50's weights at 90% ERK, against one training step at batch 32"
    import torch, torch.nn as nn
    from fastsparse.core.hooks import set_dense_grads
    from fastsparse.methods.registry import make_updater
    torch.manual_seed(0)
    name, bs, size = ('small CNN', 2, 16) if tiny else ('resnet50', 32, 224)
    model = _resnet(name, 1000, tiny).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x, y = torch.randn(bs, 3, size, size, device=dev), torch.randint(0, 1000, (bs,), device=dev)
    def step(): nn.functional.cross_entropy(model(x), y).backward(); opt.step(); opt.zero_grad()
    sync = _sync(dev)
    step()
    st = _interleaved(dict(step=step), 2 if tiny else 5, sync)['step'][0]
    upd = make_updater('rigl', 0.9, distribution='erk')
    upd.sparsify(model); upd.start(model, opt)
    counts = [int(s.mask.count_nonzero()) for s in upd.sites]
    set_dense_grads(upd.sites, True)
    nn.functional.cross_entropy(model(x), y).backward()
    set_dense_grads(upd.sites, False)
    cuda = str(dev).startswith('cuda')
    if cuda: sync(); torch.cuda.reset_peak_memory_stats(); base = torch.cuda.memory_allocated()
    ut = _interleaved(dict(update=lambda: upd.update_masks(0.3)), 2 if tiny else 5, sync)['update']
    after = [int(s.mask.count_nonzero()) for s in upd.sites]
    r = dict(model=name, weights=sum(s.weight.numel() for s in upd.sites), step_ms=_ms(st), update_ms=_ms(ut[0]),
             update_over_step=round(ut[0] / st, 4), counts_kept=counts == after,
             roads=', '.join(f"{k} {v}" for k, v in sorted(collections.Counter(l.road for l in upd.layers).items())))
    if cuda:
        r['update_peak_mib'] = round((torch.cuda.max_memory_allocated() - base) / 2**20, 1)
        with warnings.catch_warnings(record=True) as ws:     # the host's waits for the GPU in one update (2 expected)
            warnings.simplefilter('always'); torch.cuda.set_sync_debug_mode('warn')
            try: upd.update_masks(0.3); sync()
            finally: torch.cuda.set_sync_debug_mode(0)
        r['update_syncs'] = sum('called a synchronizing' in str(w.message) for w in ws)
    return r

def bench_semi_structured(dev, tiny):
    "A 2:4 half Linear (8192x8192, 2048 tokens) against dense: torch's semi-structured tensor, and fastsparse's export"
    import torch, torch.nn as nn, torch.nn.functional as F
    from fastsparse.sparsity.patterns import get_pattern
    from fastsparse.core.sparsify import sparsify_model
    from fastsparse.export.convert import to_sparse_inference
    torch.manual_seed(0)
    cuda = str(dev).startswith('cuda')
    n, tokens = (64, 32) if tiny else (8192, 2048)
    dt = torch.float16 if cuda else torch.bfloat16
    lin = nn.Linear(n, n, bias=False).to(dev, dt)
    x = torch.randn(tokens, n, device=dev, dtype=dt)
    w = lin.weight.detach() * get_pattern('2:4').mask(lin.weight.detach().abs())
    fns = dict(dense=lambda: F.linear(x, w))
    r = dict(shape=(n, n), tokens=tokens, dtype=str(dt))
    if cuda:
        from torch.sparse import to_sparse_semi_structured
        ws = to_sparse_semi_structured(w)
        fns['2:4'] = lambda: F.linear(x, ws)
        r['max_abs_diff'] = float((F.linear(x, ws) - F.linear(x, w)).abs().max())
    t = _interleaved(fns, 3 if tiny else 21, _sync(dev))
    r.update({f"{k}_ms": _ms(m) for k, (m, _, _) in t.items()})
    if '2:4' in t: r['speedup'] = round(t['dense'][0] / t['2:4'][0], 3)
    model = nn.Sequential(nn.Linear(n, n), nn.ReLU(), nn.Linear(n, 16)).to(dev, dt)   # a 16-output head: left out
    sparsify_model(model, None, pattern='2:4', exclude=['2'])
    try:
        _, rep = to_sparse_inference(model, semi_structured=True)
        r['export'] = rep.to_dict('records')
    except ValueError as e: r['export'] = f"refused: {e}"
    return r

def _sparse_compute_case(dev, n, rows, dtype, sparsity, pattern, rounds):
    "A masked Linear with dense compute against its twin under compute='sparse' (the same weights and masks), forward and backward"
    import copy, torch, torch.nn as nn
    from fastsparse.core.sparsify import sparsify_model
    from fastsparse.core.compute import compute_report
    torch.manual_seed(0)
    dense = nn.Linear(n, n).to(dev, dtype); sparse = copy.deepcopy(dense)
    sparsify_model(dense, sparsity, pattern=pattern); sparsify_model(sparse, sparsity, pattern=pattern, compute='sparse')
    sparse.load_state_dict(dense.state_dict())
    x = torch.randn(rows, n, device=dev, dtype=dtype, requires_grad=True)
    def fb(m):
        def f(): m(x).float().sum().backward(); m.zero_grad(); x.grad = None
        return f
    t = _interleaved(dict(masked_dense=fb(dense), sparse=fb(sparse)), rounds, _sync(dev))
    with torch.no_grad(): diff = float((sparse(x) - dense(x)).abs().max())
    return dict(shape=(n, n), batch=rows, dtype=str(dtype), masked_dense_ms=_ms(t['masked_dense'][0]), sparse_ms=_ms(t['sparse'][0]),
                speedup=round(t['masked_dense'][0] / t['sparse'][0], 3), max_abs_diff=diff,
                report=compute_report(sparse).astype(str).to_dict('records'))

def bench_sparse_compute(dev, tiny):
    "compute='sparse' against dense compute, forward and backward: a 90% 4096x4096 float32 Linear at batch 256, and the GPU's training roads: a 2:4 bfloat16 4096x4096 Linear at 4096 tokens, and 90% block-sparse (32x32 blocks) 4096x4096 Linears in bfloat16 and float32"
    import torch
    r = {}
    for key, args in (('unstructured', ((256, 16) if tiny else (4096, 256)) + (torch.float32, 0.9, None)),
                      ('semi24', ((64, 32) if tiny else (4096, 4096)) + (torch.bfloat16, None, '2:4')),
                      ('block_bf16', ((64, 32) if tiny else (4096, 4096)) + (torch.bfloat16, 0.9 if not tiny else 0.5, 'block32x32')),
                      ('block_fp32', ((64, 32) if tiny else (4096, 4096)) + (torch.float32, 0.9 if not tiny else 0.5, 'block32x32'))):
        try: r[key] = _sparse_compute_case(dev, *args, 3 if tiny else 15)
        except Exception as e: r[key] = f"{type(e).__name__}: {e}"
    return r

def bench_condense(dev, tiny):
    "condense: a CNN with BatchNorm whose first conv lost half its channels, cut and condensed; time of condense and forward"
    import torch, torch.nn as nn
    from fastsparse.core.sparsify import sparsify_model
    from fastsparse.core.sites import masked_sites
    from fastsparse.export.condense import condense
    torch.manual_seed(0)
    w, bs = (8, 4) if tiny else (64, 256)
    model = nn.Sequential(nn.Conv2d(3, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(), nn.Conv2d(w, w, 3, padding=1),
                          nn.BatchNorm2d(w), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(w, 10)).to(dev)
    sparsify_model(model, 0.8)
    s = masked_sites(model)[0]
    with torch.no_grad():
        s.mask[: w // 2] = False; s.weight[: w // 2] = 0.; model[0].bias[: w // 2] = 0.; model[1].weight[: w // 2] = 0.; model[1].bias[: w // 2] = 0.
    model.eval()
    x = torch.randn(bs, 3, 32, 32, device=dev)
    sync = _sync(dev)
    sync(); t = time.perf_counter()
    new, rep = condense(model, batch_size=bs, example=x[:1])
    sync(); tc = time.perf_counter() - t
    with torch.no_grad():
        diff = float((new(x) - model(x)).abs().max())
        tt = _interleaved(dict(masked=lambda: model(x), condensed=lambda: new(x)), 3 if tiny else 15, sync)
    return dict(width=w, batch=bs, condense_s=round(tc, 3), max_abs_diff=diff, masked_ms=_ms(tt['masked'][0]),
                condensed_ms=_ms(tt['condensed'][0]), speedup=round(tt['masked'][0] / tt['condensed'][0], 3),
                report=rep.astype(str).to_dict('records'))

BENCHES = dict(selection=(bench_selection, 45), resnet18=(bench_resnet18, 90), resnet50_update=(bench_resnet50_update, 75),
               semi_structured=(bench_semi_structured, 60), sparse_compute=(bench_sparse_compute, 45),
               condense=(bench_condense, 45))      # name: (function, its share of the budget in seconds)

def run_step(name:str, dry:bool):
    "In a child process: one benchmark, its result printed as the last line"
    import torch
    dev = 'cpu' if dry or not torch.cuda.is_available() else 'cuda'
    r = BENCHES[name][0](dev, tiny=dry)
    print('RESULT ' + json.dumps(dict(device=dev, **r), default=str), flush=True)

def run_benches(budget:float, dry:bool) -> list:
    rows, start, names = [], time.time(), list(BENCHES)
    for i, (name, (f, share)) in enumerate(BENCHES.items()):
        left = budget - (time.time() - start)      # what earlier steps left unused goes to the later ones, by their shares
        limit = left * share / sum(BENCHES[n][1] for n in names[i:])
        row = dict(step=name, what=f.__doc__.split('\n')[0], budget_s=round(limit))
        if limit < 5: rows.append(dict(row, status='skipped', error='the part ran out of its budget')); continue
        t = time.time()
        try:
            r = subprocess.run([sys.executable, str(Path(__file__).resolve()), '--step', name, *(['--tiny'] if dry else [])],
                               capture_output=True, text=True, timeout=limit, cwd=ROOT)
            res = [l for l in r.stdout.splitlines() if l.startswith('RESULT ')]
            if r.returncode == 0 and res: row.update(status='ok', result=json.loads(res[-1][7:]))
            else: row.update(status='failed', error=(r.stderr or r.stdout)[-3000:])
        except subprocess.TimeoutExpired: row.update(status='timeout', error=f"over its {limit:.0f} s")
        row['seconds'] = round(time.time() - t, 1)
        _say(f"  {name}: {row['status']} in {row['seconds']} s")
        rows.append(row)
    return rows

# --- the parts ----------------------------------------------------------------------------------------------------
PART_BUDGET = {1: 400, 2: 300, 3: 480}
ALL_BUDGETS = {1: 180, 2: 130, 3: 260}      # `--all`: on the H100 of 2026-11-26 the parts took 127, 84 and 192 s; on
# 2026-11-27 (more notebooks, and every worker with 16 threads) parts 1 and 3 ran out with 3 and 6 notebooks unfinished

def run_part(part:int, budget:float|None, dry:bool, out:Path) -> dict:
    t = time.time()
    budget = budget or PART_BUDGET[part]
    res = dict(part=part, dry_run=dry, install=install(dry))
    res['env'] = env_info()
    _say(f"part {part} on {res['env']['device']} (torch {res['env']['torch']}), budget {budget:.0f} s")
    nbs = cuda_notebooks()
    if part == 1:
        res['tests'] = run_notebooks(nbs, 'cuda', budget - 20, 8, dry)
    elif part == 2:
        res['benchmarks'] = run_benches(budget - 10, dry)
    else:
        rest = [nb for nb in sorted((ROOT / 'nbs').glob('*.ipynb')) if not nb.name.startswith(('_', '.')) and nb not in nbs]
        res['tests'] = run_notebooks(rest, '', budget - 20, 12, dry)
    res['seconds'] = round(time.time() - t)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"gpu-part{part}.json").write_text(json.dumps(res, indent=1, default=str))
    write_report(sorted(out.glob('gpu-part*.json')), out / 'GPU.md')
    _say(f"part {part} done in {res['seconds']} s: {out / f'gpu-part{part}.json'}, {out / 'GPU.md'}")
    return res

# --- the report ---------------------------------------------------------------------------------------------------
def _table(rows:list) -> str:
    rows = [{k: v for k, v in r.items() if not isinstance(v, (list, dict))} for r in rows]
    if not rows: return ''
    cols = list(dict.fromkeys(k for r in rows for k in r))
    return '\n'.join(['| ' + ' | '.join(cols) + ' |', '|' + '---|' * len(cols)] +
                     ['| ' + ' | '.join(str(r.get(c, '')).replace('|', '/').replace('\n', ' ') for c in cols) + ' |' for r in rows])

def readme_rows(parts:dict) -> list:
    "The lines to add to the README's Speed section, from the benchmarks"
    b = {r['step']: r.get('result') for r in parts.get(2, {}).get('benchmarks', []) if r.get('status') == 'ok'}
    env = parts.get(2, {}).get('env', {})
    where = f"{env.get('device', '?')}, torch {env.get('torch', '?')}, {env.get('date', '?')[:10]}"
    out = []
    if b.get('resnet18'):
        r = {x['method']: x for x in b['resnet18']['rows']}
        sz = b['resnet18'].get('size', 32)
        out.append(f"- ResNet-18 ({sz}x{sz}) step at batch {b['resnet18']['batch']} over dense ({where}): " +
                   ', '.join(f"{k} {v['over_dense']}x ({v['spread']})" for k, v in r.items() if k != 'dense'))
    if b.get('resnet50_update'):
        r = b['resnet50_update']
        out.append(f"- One RigL update over {r['model']}'s weights: {r['update_ms']} ms, {r['update_over_step']} of a training step")
    if b.get('semi_structured') and 'speedup' in b['semi_structured']:
        r = b['semi_structured']
        out.append(f"- 2:4 {r['dtype'].replace('torch.', '')} Linear {r['shape'][0]}x{r['shape'][1]} at {r['tokens']} tokens: "
                   f"{r['speedup']}x dense")
    if b.get('sparse_compute'):
        r = b['sparse_compute']
        if isinstance(r.get('unstructured'), dict):
            q = r['unstructured']
            out.append(f"- compute='sparse', 90% {q['shape'][0]}x{q['shape'][1]} Linear at batch {q['batch']}, forward and "
                       f"backward: {q['speedup']}x dense compute")
        if isinstance(r.get('semi24'), dict):
            q = r['semi24']
            out.append(f"- compute='sparse' on a 2:4 bfloat16 Linear {q['shape'][0]}x{q['shape'][1]} at {q['batch']} tokens "
                       f"(forward by 2:4 sparse matmuls), forward and backward: {q['speedup']}x dense compute")
        for k in ('block_bf16', 'block_fp32'):
            if isinstance(r.get(k), dict):
                q = r[k]
                out.append(f"- compute='sparse' on a 90% block-sparse (32x32) {q['dtype'].replace('torch.', '')} Linear "
                           f"{q['shape'][0]}x{q['shape'][1]} at {q['batch']} tokens (forward and input gradient by BSR products), "
                           f"forward and backward: {q['speedup']}x dense compute")
    if b.get('condense'):
        out.append(f"- condense of a CNN with half its first channels cut: {b['condense']['speedup']}x the masked model's forward")
    return out

def write_report(files:list, dest:Path) -> str:
    parts = {}
    for f in files:
        d = json.loads(Path(f).read_text()); parts[d['part']] = d
    env = next((p['env'] for p in parts.values()), {})
    lines = ['# fastsparse on a GPU', '',
             f"Written by `python tools/gpu_check.py` from parts {', '.join(map(str, sorted(parts)))}"
             + (' (a dry run on the CPU, tiny sizes: not figures to quote)' if any(p.get('dry_run') for p in parts.values()) else '')
             + '.', '', _table([dict(part=k, **{x: p['env'].get(x) for x in ('device', 'torch', 'cuda', 'python', 'date', 'commit')},
                                     seconds=p.get('seconds')) for k, p in sorted(parts.items())]), '']
    names = {1: 'The notebooks with `#| cuda` cells, those cells included', 2: 'Benchmarks', 3: 'The rest of the fast suite'}
    for k, p in sorted(parts.items()):
        lines += [f"## Part {k}: {names[k]}", '']
        if 'tests' in p:
            t = p['tests']
            lines += [_table(t['notebooks']), '']
            if t.get('status') not in (None, 'ok') and t.get('log_tail'):
                lines += ['The end of the test log:', '', '```', t['log_tail'][-3000:], '```', '']
        for r in p.get('benchmarks', []):
            lines += [f"### {r['step']}: {r['what']}", '', f"{r['status']} in {r.get('seconds', 0)} s (budget {r['budget_s']} s)", '']
            res = r.get('result') or {}
            flat = {k2: v for k2, v in res.items() if not isinstance(v, (list, dict))}
            if flat: lines += [_table([flat]), '']
            for k2, v in res.items():
                if isinstance(v, list) and v and isinstance(v[0], dict): lines += [f"{k2}:", '', _table(v), '']
                elif isinstance(v, dict) and v:                       # a case of its own (sparse_compute's two)
                    lines += [f"{k2}:", '', _table([v]), '']
                    for k3, w in v.items():
                        if isinstance(w, list) and w and isinstance(w[0], dict): lines += [f"{k2}, {k3}:", '', _table(w), '']
                elif isinstance(v, str) and k2 not in flat: lines += [f"{k2}: {v}", '']
            if r.get('error'): lines += ['```', str(r['error'])[-1500:], '```', '']
    rows = readme_rows(parts)
    if rows: lines += ['## Rows for the README', '', *rows, '']
    text = '\n'.join(lines)
    Path(dest).write_text(text)
    return text

# --- the command --------------------------------------------------------------------------------------------------
def main(argv=None):
    p = argparse.ArgumentParser('tools/gpu_check.py', description=__doc__.split('\n')[0])
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument('--prepare', action='store_true', help='here: build .gpu-wheels/ for the GPU machine')
    g.add_argument('--part', type=int, choices=(1, 2, 3), help='on the GPU machine: run this part')
    g.add_argument('--all', action='store_true', help=f'on the GPU machine: parts 1, 2 and 3 in one command ({sum(ALL_BUDGETS.values())} s at most)')
    g.add_argument('--report', nargs='*', metavar='JSON', help='write bench/GPU.md from these part files (default: bench/gpu/*.json)')
    g.add_argument('--dry-run', action='store_true', help='every part on the CPU with tiny sizes, into a temporary folder')
    g.add_argument('--step', choices=list(BENCHES), help=argparse.SUPPRESS)
    p.add_argument('--tiny', action='store_true', help=argparse.SUPPRESS)
    p.add_argument('--budget', type=float, help='seconds for the part (default: 400, 300 and 480 for parts 1, 2 and 3)')
    a = p.parse_args(argv)
    if a.step: return run_step(a.step, a.tiny)
    if a.prepare: prepare(); return 0
    if a.report is not None:
        files = a.report or sorted((ROOT / 'bench' / 'gpu').glob('gpu-part*.json'))
        if not files: p.error("no part files: copy the gpu-part<N>.json files the GPU runs wrote into bench/gpu/")
        write_report(files, ROOT / 'bench' / 'GPU.md')
        _say(f"wrote {ROOT / 'bench' / 'GPU.md'}; rows for the README:")
        for l in readme_rows({json.loads(Path(f).read_text())['part']: json.loads(Path(f).read_text()) for f in files}): _say(l)
        return 0
    out = out_dir(a.dry_run)
    if a.part: run_part(a.part, a.budget, False, out); return 0
    if a.all:
        for k, b in ALL_BUDGETS.items(): run_part(k, b, False, out)
        return 0
    t = time.time()                                           # the dry run: every part, tiny, on the CPU
    prepare(dry=True)
    res = [run_part(k, a.budget or 600, True, out) for k in (1, 2, 3)]   # generous: the point is that every step runs
    bad = [r['step'] for r in res[1]['benchmarks'] if r['status'] != 'ok']
    bad += [n['notebook'] for r in (res[0], res[2]) for n in r['tests']['notebooks'] if n['status'] != 'compiles']
    _say(f"dry run in {time.time() - t:.0f} s: {'every step ran' if not bad else 'FAILED: ' + ', '.join(bad)}; report {out / 'GPU.md'}")
    return 1 if bad else 0

if __name__ == '__main__': sys.exit(main())
