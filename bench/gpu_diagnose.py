"""Where a sparse training step loses time on a GPU, and what the 2:4 matmuls cost there: the questions the first
GPU session's figures (bench/GPU.md) raised, answered in one short run.

    python bench/gpu_diagnose.py [--out diag.json] [--tiny]

- `syncs`: every host sync (`torch.cuda.set_sync_debug_mode('warn')`) in one training step of torchvision's ResNet-18
  at 90% ERK, masks and hooks alone (`static`) and under RigL's wrapper, with the line that made it;
- `launch`: each variant's step time with the host waiting at the end (`total`) and the time the host takes to issue
  it (`host`): where `host` is close to `total`, the step is bound by the Python and the launches, not by the GPU;
- `profile`: the host's busiest operations in one `static` step (torch.profiler);
- `pyprofile`: Python's own profile of ten steps of each variant: the host time spent in fastsparse's code, and the
  busiest functions (what the operator profiler cannot see);
- `semi24`: a 2:4 half Linear against dense through cuSPARSELt (its default algorithm, and the one its search picks)
  and CUTLASS, at three shapes, both dtypes.

CI runs `python bench/gpu_diagnose.py --tiny` so that the script keeps working between GPUs.

On a CPU (`--tiny`, or no GPU) every section runs with tiny sizes, to check the script itself.
"""
import argparse, copy, json, statistics, sys, time, traceback, warnings
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # the checkout's fastsparse: a GPU machine has it uninstalled
import torch, torch.nn as nn, torch.nn.functional as F

def _model(dev, tiny):
    if tiny: return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
                                  nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 10)).to(dev)
    import torchvision
    return torchvision.models.resnet18(num_classes=10).to(dev)

def _variants(dev, tiny):
    from fastsparse.core.sparsify import sparsify_model
    from fastsparse.loop.optim import sparse_optimizer
    torch.manual_seed(0)
    base = _model(dev, tiny)
    out = {}
    for v in ('dense', 'static', 'rigl'):
        m = copy.deepcopy(base)
        opt = torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
        if v == 'static': sparsify_model(m, 0.9, 'erk')
        elif v == 'rigl': opt = sparse_optimizer('rigl', m, opt, 0.9, distribution='erk', total_steps=10**6, every=10**6)
        out[v] = (m, opt)
    return out

def _data(dev, tiny):
    bs, size = (4, 16) if tiny else (256, 32)
    return torch.randn(bs, 3, size, size, device=dev), torch.randint(0, 10, (bs,), device=dev)

def _step(m, opt, x, y): F.cross_entropy(m(x), y).backward(); opt.step(); opt.zero_grad()

def syncs(dev, tiny):
    cuda = dev.type == 'cuda'
    runs, (x, y) = _variants(dev, tiny), _data(dev, tiny)
    res = {}
    for v, (m, opt) in runs.items():
        for _ in range(3): _step(m, opt, x, y)
        if cuda: torch.cuda.synchronize()
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter('always')
            if cuda: torch.cuda.set_sync_debug_mode('warn')
            try: _step(m, opt, x, y)
            finally:
                if cuda: torch.cuda.set_sync_debug_mode(0)
        res[v] = sorted({f"{w.filename.split('site-packages/')[-1]}:{w.lineno}: {str(w.message)[:80]}" for w in ws})
    return res

def launch(dev, tiny, repeats=7, steps=10):
    cuda = dev.type == 'cuda'
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    runs, (x, y) = _variants(dev, tiny), _data(dev, tiny)
    if tiny: repeats, steps = 2, 2
    ts = {v: dict(host=[], total=[]) for v in runs}
    for v, (m, opt) in runs.items():
        for _ in range(3): _step(m, opt, x, y)
    for r in range(repeats):
        for v in (list(runs) if r % 2 == 0 else list(runs)[::-1]):
            m, opt = runs[v]
            sync(); t = time.perf_counter()
            for _ in range(steps): _step(m, opt, x, y)
            h = time.perf_counter() - t; sync(); tt = time.perf_counter() - t
            ts[v]['host'].append(h / steps); ts[v]['total'].append(tt / steps)
    d = statistics.median(ts['dense']['total'])
    return {v: dict(total_ms=round(statistics.median(t['total']) * 1e3, 3), host_ms=round(statistics.median(t['host']) * 1e3, 3),
                    over_dense=round(statistics.median(t['total']) / d, 3)) for v, t in ts.items()}

def profile(dev, tiny):
    from torch.profiler import profile as prof, ProfilerActivity
    runs, (x, y) = _variants(dev, tiny), _data(dev, tiny)
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if dev.type == 'cuda' else [])
    res = {}
    for v in ('dense', 'static'):
        m, opt = runs[v]
        for _ in range(3): _step(m, opt, x, y)
        with prof(activities=acts) as p:
            for _ in range(3): _step(m, opt, x, y)
            if dev.type == 'cuda': torch.cuda.synchronize()
        ka = p.key_averages()
        res[v] = dict(table=ka.table(sort_by='self_cpu_time_total', row_limit=14, max_name_column_width=48),
                      n_ops=sum(e.count for e in ka) // 3)
    return res

def pyprofile(dev, tiny, steps=10):
    "Python's own profile (cProfile) of `steps` steps of each sparse variant: where the host's time goes outside PyTorch's operators"
    import cProfile, io, pstats
    cuda = dev.type == 'cuda'
    runs, (x, y) = _variants(dev, tiny), _data(dev, tiny)
    res = {}
    for v in ('dense', 'static', 'rigl'):
        m, opt = runs[v]
        for _ in range(3): _step(m, opt, x, y)
        if cuda: torch.cuda.synchronize()
        pr = cProfile.Profile(); pr.enable()
        for _ in range(steps): _step(m, opt, x, y)
        if cuda: torch.cuda.synchronize()
        pr.disable()
        st = pstats.Stats(pr)
        total = sum(t[2] for t in st.stats.values()) / steps          # the sum of own times: the profiled host time a step
        ours = sum(t[2] for k, t in st.stats.items() if 'fastsparse' in k[0]) / steps
        out = io.StringIO(); st.stream = out; st.sort_stats('tottime').print_stats(15)
        res[v] = dict(host_ms_profiled=round(total * 1e3, 3), fastsparse_own_ms=round(ours * 1e3, 3),
                      top=out.getvalue()[-4000:])
    return res

def semi24(dev, tiny):
    if dev.type != 'cuda': return 'no GPU: nothing to time'
    from torch.sparse import to_sparse_semi_structured, SparseSemiStructuredTensor
    from fastsparse.sparsity.patterns import get_pattern
    sync = torch.cuda.synchronize
    res = dict(cusparselt=torch.backends.cusparselt.is_available(),
               cusparselt_version=torch.backends.cusparselt.version() if torch.backends.cusparselt.is_available() else None, rows=[])
    def timed(f, n=30):
        for _ in range(3): f()
        sync(); ts = []
        for _ in range(n):
            t = time.perf_counter(); f(); sync(); ts.append(time.perf_counter() - t)
        return statistics.median(ts)
    for dt in (torch.float16, torch.bfloat16):
        for n, tokens in ((8192, 2048), (8192, 8192), (4096, 4096)):
            torch.manual_seed(0)
            w = torch.randn(n, n, device=dev, dtype=dt)
            w = w * get_pattern('2:4').mask(w.abs())
            x = torch.randn(tokens, n, device=dev, dtype=dt)
            row = dict(dtype=str(dt).split('.')[-1], n=n, tokens=tokens, dense_ms=round(timed(lambda: F.linear(x, w)) * 1e3, 3))
            for backend, force in (('cusparselt', False), ('cutlass', True)):
                old = SparseSemiStructuredTensor._FORCE_CUTLASS
                try:
                    SparseSemiStructuredTensor._FORCE_CUTLASS = force
                    ws = to_sparse_semi_structured(w)
                    row[f'{backend}_ms'] = round(timed(lambda: F.linear(x, ws)) * 1e3, 3)
                    xt = x.t().contiguous()
                    row[f'{backend}_wx_ms'] = round(timed(lambda: torch.mm(ws, xt)) * 1e3, 3)    # W x^T: no transposes
                    row[f'{backend}_err'] = round(float((F.linear(x, ws) - F.linear(x, w)).abs().max()), 4)
                    if backend == 'cusparselt' and hasattr(torch, '_cslt_sparse_mm_search'):   # the best of cuSPARSELt's algorithms
                        alg = torch._cslt_sparse_mm_search(ws.packed, xt)
                        row['cusparselt_alg'] = alg
                        row['cusparselt_searched_ms'] = round(timed(lambda: torch._cslt_sparse_mm(ws.packed, xt, alg_id=alg)) * 1e3, 3)
                except Exception as e: row[f'{backend}_error'] = f"{type(e).__name__}: {str(e)[:120]}"
                finally: SparseSemiStructuredTensor._FORCE_CUTLASS = old
            res['rows'].append(row)
            del w, x
    return res

def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--out', default=None); p.add_argument('--tiny', action='store_true')
    p.add_argument('--sections', default='syncs,launch,profile,pyprofile,semi24')
    a = p.parse_args()
    dev = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
    tiny = a.tiny or dev.type != 'cuda'
    if dev.type == 'cuda': torch.backends.cudnn.benchmark = True
    res = dict(device=torch.cuda.get_device_name(0) if dev.type == 'cuda' else 'cpu', torch=torch.__version__)
    for s in a.sections.split(','):
        t = time.time()
        try: res[s] = globals()[s](dev, tiny)
        except Exception: res[s] = 'failed: ' + traceback.format_exc()[-1500:]
        print(f"== {s} ({time.time() - t:.1f} s)", flush=True)
        r = res[s]
        if s == 'profile' and isinstance(r, dict):
            for v, x in r.items(): print(f"-- {v}: {x['n_ops']} operations a step\n{x['table']}")
        elif s == 'pyprofile' and isinstance(r, dict):
            for v, x in r.items(): print(f"-- {v}: {x['host_ms_profiled']} ms a step profiled, {x['fastsparse_own_ms']} ms in fastsparse's own code\n{x['top']}")
        else: print(json.dumps(r, indent=1, default=str))
    if a.out:
        with open(a.out, 'w') as f: json.dump(res, f, indent=1, default=str)

if __name__ == '__main__': main()
