"""Sparse training step time under DistributedDataParallel and FSDP2 (fully_shard), against the same dense step, and the
memory each process holds for masks and method state when sharded.

    python bench/bench_distributed.py [--repeats 7] [--steps 20] [--width 256] [--blocks 4] [--quick]

Two CPU processes (gloo), started by this script with torchrun. The model is a stack of pre-norm transformer blocks
(attention through four Linears, then an MLP). Six setups are built once, with the same initial weights:
{DDP, FSDP2} x {dense, static sparse, RigL}, the sparse ones at 90% (ERK) through `sparse_optimizer` (RigL updates
the masks every `--every` steps). Each repeat times `--steps` optimizer steps (forward, backward, step) of every
setup in turn, the order reversed every repeat, after a warm-up; the table gives the median step time over all
timed steps, its spread (the 10th and 90th percentiles), and the ratio to the dense step of the same wrapper.
Memory: the bytes each process holds for masks and per-layer method state (RigL's summed gradients) under FSDP2,
against what one unsharded process holds.

Writes bench/DISTRIBUTED.md and bench/distributed.json (with --quick: in a temporary folder, so that a smoke run
does not replace the measured figures)."""
import argparse, datetime, json, os, statistics, subprocess, sys, tempfile, time
from pathlib import Path
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _machine                                          # the CPU's name and vector unit
SETUPS = [(w, m) for w in ('ddp', 'fsdp') for m in ('dense', 'static_sparse', 'rigl')]

def parse(argv=None):
    p = argparse.ArgumentParser('bench_distributed.py', description=__doc__.split('\n\n')[0])
    p.add_argument('--repeats', type=int, default=7); p.add_argument('--steps', type=int, default=20)
    p.add_argument('--warmup', type=int, default=5); p.add_argument('--every', type=int, default=10)
    p.add_argument('--width', type=int, default=256); p.add_argument('--blocks', type=int, default=4)
    p.add_argument('--batch', type=int, default=8); p.add_argument('--seq', type=int, default=64)
    p.add_argument('--sparsity', type=float, default=0.9); p.add_argument('--threads', type=int, default=1)
    p.add_argument('--quick', action='store_true', help='tiny sizes, one repeat: a smoke check, written to a temporary folder')
    p.add_argument('--out', default=None, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.quick: a.repeats, a.steps, a.warmup, a.width, a.blocks, a.seq, a.every = 1, 2, 1, 16, 1, 8, 2
    return a

def launch(a):
    "Run this script as two gloo processes under torchrun and write the report"
    out = Path(tempfile.mkdtemp()) if a.quick else HERE
    raw = Path(tempfile.mkdtemp()) / 'ranks'
    env = {**os.environ, 'OMP_NUM_THREADS': str(a.threads), 'CUDA_VISIBLE_DEVICES': '', 'FASTSPARSE_BENCH_WORKER': '1'}
    cmd = [sys.executable, '-m', 'torch.distributed.run', '--standalone', '--nproc_per_node=2', __file__, *sys.argv[1:],
           '--out', str(raw)]
    subprocess.run(cmd, check=True, env=env)
    ranks = [json.loads((raw / f'rank{i}.json').read_text()) for i in range(2)]
    report(a, ranks, out)

def worker(a):
    import numpy as np, torch, torch.nn as nn, torch.nn.functional as F, torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.distributed.fsdp import fully_shard
    from fastsparse.core.distributed import is_sharded
    from fastsparse.core.sparsify import sparsify_model
    from fastsparse.loop.optim import sparse_optimizer
    torch.set_num_threads(a.threads)
    dist.init_process_group('gloo'); rank = dist.get_rank()

    class Block(nn.Module):
        def __init__(self, d, h=4):
            super().__init__()
            self.h, self.ln1, self.ln2 = h, nn.LayerNorm(d), nn.LayerNorm(d)
            self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        def forward(self, x):
            b, t, d = x.shape
            y = self.ln1(x)
            q, k, v = (f(y).view(b, t, self.h, -1).transpose(1, 2) for f in (self.q, self.k, self.v))
            x = x + self.o(F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, d))
            return x + self.mlp(self.ln2(x))

    def build(wrap, method):
        torch.manual_seed(0)
        blocks = nn.Sequential(*[Block(a.width) for _ in range(a.blocks)])
        if wrap == 'fsdp':
            for b in blocks: fully_shard(b)
            fully_shard(blocks); model = run = blocks
        else:
            model = blocks
            if method != 'dense': sparsify_model(model, a.sparsity, 'erk')   # before DDP: its masks are process 0's
            run = DDP(model)
        opt = torch.optim.AdamW(run.parameters(), lr=1e-3)
        if method != 'dense':
            total = a.warmup + a.repeats * a.steps + 1
            opt = sparse_optimizer(method, run, opt, a.sparsity if wrap == 'fsdp' else None,
                                   distribution='erk' if wrap == 'fsdp' else None, total_steps=total, every=a.every, end=1.0)
        return model, run, opt

    g = torch.Generator().manual_seed(rank)
    x, y = torch.randn(a.batch, a.seq, a.width, generator=g), torch.randn(a.batch, a.seq, a.width, generator=g)
    def step(run, opt):
        opt.zero_grad(); F.mse_loss(run(x), y).backward(); opt.step()

    setups = {s: build(*s) for s in SETUPS}
    for s, (_, run, opt) in setups.items():
        for _ in range(a.warmup): step(run, opt)
    times = {f'{w}:{m}': [] for w, m in SETUPS}
    for r in range(a.repeats):
        order = SETUPS if r % 2 == 0 else SETUPS[::-1]
        for s in order:
            _, run, opt = setups[s]
            for _ in range(a.steps):
                dist.barrier(); t0 = time.perf_counter(); step(run, opt); times[f'{s[0]}:{s[1]}'].append(time.perf_counter() - t0)

    def held(opt):
        "Bytes this process holds for masks and per-layer method state, and what the same would take unsharded"
        up = opt.updater
        here = whole = 0
        for l in up.layers:
            m = l.site.mask_buffer
            loc = m.to_local() if is_sharded(m) else m
            here += loc.numel() * loc.element_size(); whole += m.numel() * m.element_size()
            for t in (v for k, v in vars(l).items() if k != 'site' and isinstance(v, torch.Tensor)):
                lt = t.to_local() if is_sharded(t) else t
                here += lt.numel() * lt.element_size(); whole += t.numel() * t.element_size()
        return here, whole
    mem = {m: held(setups[('fsdp', m)][2]) for m in ('static_sparse', 'rigl')}
    res = dict(times=times, memory=mem, world=dist.get_world_size(), torch=torch.__version__,
               updates={m: setups[(w, m)][2].n_updates for w, m in SETUPS if m != 'dense'})
    Path(a.out).mkdir(parents=True, exist_ok=True)
    (Path(a.out) / f'rank{rank}.json').write_text(json.dumps(res))
    dist.barrier(); dist.destroy_process_group()

def report(a, ranks, out:Path):
    import numpy as np
    r0 = ranks[0]
    def stats(k):
        t = np.array(r0['times'][k]) * 1e3
        return float(np.median(t)), float(np.percentile(t, 10)), float(np.percentile(t, 90))
    rows = []
    for w, m in SETUPS:
        med, lo, hi = stats(f'{w}:{m}')
        dense = stats(f'{w}:dense')[0]
        rows.append(f"| {w.upper() if w == 'ddp' else 'FSDP2'} | {m} | {med:.2f} | {lo:.2f} to {hi:.2f} | {med / dense:.2f} |")
    mem_rows = []
    for m in ('static_sparse', 'rigl'):
        per = [r['memory'][m][0] for r in ranks]
        whole = ranks[0]['memory'][m][1]
        mem_rows.append(f"| {m} | {' / '.join(f'{b / 1024:.1f}' for b in per)} | {whole / 1024:.1f} | {max(per) / whole:.2f} |")
    md = f"""# Sparse training under DDP and FSDP2

Written by `python bench/bench_distributed.py{' --quick' if a.quick else ''}` on {datetime.date.today()}, {_machine.cpu()},
torch {r0['torch']}: {r0['world']} CPU processes (gloo, {a.threads} thread each), a stack of {a.blocks} transformer blocks of
width {a.width}, batches of {a.batch} x {a.seq} per process, sparse setups at {a.sparsity:g} (ERK) through
`sparse_optimizer` (RigL: a mask update every {a.every} steps, included in the step times; updates made: {r0['updates']}).
{a.repeats} repeats of {a.steps} steps per setup, interleaved (order reversed every repeat), after {a.warmup} warm-up steps.
Times are process 0's.

| wrapper | method | median ms/step | 10th to 90th percentile | ratio to dense (same wrapper) |
|---|---|---|---|---|
""" + '\n'.join(rows) + f"""

## Memory held for masks and method state under FSDP2

Each process holds the shard of every mask that covers its shard of the weight (bool, one byte per weight) and
its shard of the method's per-layer tensors (RigL's gradients summed between updates); an unsharded process
holds the whole of both.

| method | KiB per process (process 0 / 1) | KiB unsharded | largest share |
|---|---|---|---|
""" + '\n'.join(mem_rows) + '\n'
    out.mkdir(parents=True, exist_ok=True)
    (out / 'DISTRIBUTED.md').write_text(md)
    (out / 'distributed.json').write_text(json.dumps(dict(args=vars(a), ranks=ranks)))
    print(md); print(f"written to {out / 'DISTRIBUTED.md'}")

if __name__ == '__main__':
    args = parse()
    if os.environ.get('FASTSPARSE_BENCH_WORKER'): worker(args)
    else: launch(args)
