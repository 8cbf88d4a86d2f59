"""One-shot pruning of a small GPT-2 trained here, then sparse fine-tuning: magnitude, Wanda and SparseGPT at 50%
unstructured, 2:4 and 4:8. Writes bench/llm/RESULTS.md.

    python bench/llm/run.py                  # the full run (17 minutes on one core of a busy machine; the dense model is cached)
    python bench/llm/run.py --quick          # a smoke test of the whole pipeline (a minute)

The corpus is the source of the Python standard library of the interpreter that runs it (no download): its `.py`
files outside `test`, `tests`, `idlelib` and `site-packages`, split by file into train (90%) and validation (10%) by
a hash of the file's path. Tokens are bytes (a vocabulary of 256).
"""
import argparse, hashlib, json, math, os, resource, sys, sysconfig, time
from pathlib import Path
import torch, torch.nn.functional as F

here = Path(__file__).resolve().parent

def corpus() -> tuple:
    "(train bytes, validation bytes) of the standard library's sources, split by file"
    root = Path(sysconfig.get_paths()['stdlib'])
    skip = {'test', 'tests', 'idlelib', 'site-packages', '__pycache__'}
    files = sorted(f for f in root.rglob('*.py') if not skip & set(f.relative_to(root).parts))
    tr, va = bytearray(), bytearray()
    for f in files:
        rel = str(f.relative_to(root))
        (va if hashlib.md5(rel.encode()).digest()[0] < 26 else tr).extend(f.read_bytes() + b'\n\n')   # ~10% validation
    return torch.frombuffer(bytes(tr), dtype=torch.uint8).long(), torch.frombuffer(bytes(va), dtype=torch.uint8).long(), len(files)

def windows(ids, n, seq, g) -> torch.Tensor:
    "`n` random windows of `seq` tokens from `ids`"
    i = torch.randint(0, len(ids) - seq - 1, (n,), generator=g)
    return torch.stack([ids[j:j + seq] for j in i.tolist()])

def build(a):
    import transformers as T
    T.logging.set_verbosity_error()
    cfg = T.GPT2Config(vocab_size=256, n_positions=a.seq, n_embd=a.width, n_layer=a.layers, n_head=a.width // 64,
                       bos_token_id=0, eos_token_id=0, resid_pdrop=0., embd_pdrop=0., attn_pdrop=0.)
    return T.GPT2LMHeadModel(cfg)

@torch.no_grad()
def perplexity(model, val) -> float:
    model.eval()
    tot, n = 0., 0
    for x in val.split(32):
        logits = model(x).logits[:, :-1]
        tot += F.cross_entropy(logits.reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1), reduction='sum').item()
        n += x[:, 1:].numel()
    return math.exp(tot / n)

def train(model, tr, steps, lr, bs, seq, g, wrap=None, sched=True):
    "AdamW for `steps` on random windows (one-cycle when `sched`); `wrap` makes the fastsparse wrapper of the optimizer"
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.1, betas=(0.9, 0.95))
    lrs = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=steps, pct_start=0.1) if sched else None
    step = wrap(model, opt) if wrap else opt
    model.train(); t0 = time.time()
    for i in range(steps):
        x = windows(tr, bs, seq, g)
        loss = model(x, labels=x).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.)
        step.step(); step.zero_grad()
        if lrs: lrs.step()
        if wrap is None and (i + 1) % 50 == 0: print(f"  step {i + 1}/{steps}: loss {loss.item():.3f} ({time.time() - t0:.0f} s)", flush=True)
    if wrap: step.close()
    return model

def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument('--quick', action='store_true', help='a tiny model, a few steps: checks the pipeline')
    p.add_argument('--threads', type=int, default=2)
    p.add_argument('--layers', type=int, default=4); p.add_argument('--width', type=int, default=128)
    p.add_argument('--seq', type=int, default=128); p.add_argument('--steps', type=int, default=1500)
    p.add_argument('--bs', type=int, default=16); p.add_argument('--lr', type=float, default=3e-3)
    p.add_argument('--ft-steps', type=int, default=100); p.add_argument('--ft-lr', type=float, default=3e-4)
    p.add_argument('--n-cal', type=int, default=64, help='calibration windows'); p.add_argument('--n-val', type=int, default=64)
    p.add_argument('--out', default=None, help='the report (default bench/llm/RESULTS.md; with --quick, none)')
    a = p.parse_args(argv)
    if a.quick: a.layers, a.width, a.seq, a.bs, a.steps, a.ft_steps, a.n_cal, a.n_val = 2, 64, 32, 8, 20, 3, 8, 16
    if a.out is None: a.out = os.devnull if a.quick else str(here / 'RESULTS.md')
    torch.set_num_threads(a.threads)
    from fastsparse.all import prune_model, masked_sites, sparse_optimizer, oneshot_report, n_ones
    t_all = time.time()
    tr, va, n_files = corpus()
    g = torch.Generator().manual_seed(0)
    val = torch.stack([va[i:i + a.seq] for i in range(0, len(va) - a.seq, len(va) // a.n_val)][:a.n_val])
    cal = windows(tr, a.n_cal, a.seq, torch.Generator().manual_seed(1)).split(8)
    print(f"corpus: {n_files} files, {len(tr)/1e6:.1f}M train bytes, {len(va)/1e6:.2f}M validation bytes", flush=True)
    key = hashlib.md5(json.dumps([a.layers, a.width, a.seq, a.steps, a.bs, a.lr, len(tr)]).encode()).hexdigest()[:10]
    cache = here / 'cache' / f'dense-{key}.pt'
    torch.manual_seed(0)
    dense = build(a)
    t0 = time.time()
    cached = cache.exists() and not a.quick
    if cached:
        dense.load_state_dict(torch.load(cache))
        t_train = json.loads(cache.with_suffix('.json').read_text())['seconds'] if cache.with_suffix('.json').exists() else None
    else:
        print(f"training the dense model: {a.steps} steps of {a.bs} x {a.seq} bytes", flush=True)
        train(dense, tr, a.steps, a.lr, a.bs, a.seq, g)
        t_train = time.time() - t0
        if not a.quick:
            cache.parent.mkdir(exist_ok=True); torch.save(dense.state_dict(), cache)
            cache.with_suffix('.json').write_text(json.dumps(dict(seconds=t_train)))
    state = {k: v.clone() for k, v in dense.state_dict().items()}
    ppl_dense = perplexity(dense, val)
    print(f"dense: validation perplexity {ppl_dense:.3f}", flush=True)
    # the control: the dense model trained as long again, as the sparse ones are fine-tuned
    ctl = build(a); ctl.load_state_dict(state)
    train(ctl, tr, a.ft_steps, a.ft_lr, a.bs, a.seq, torch.Generator().manual_seed(3), sched=False)
    ppl_ctl = perplexity(ctl, val)
    rows, rss0 = [], resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for pattern in ('unstructured', '2:4', '4:8'):
        for method in ('magnitude', 'wanda', 'sparsegpt'):
            model = build(a); model.load_state_dict(state)
            t0 = time.time()
            hooks = prune_model(model, 0.5, score=method, pattern=pattern, calibration=list(cal), progress=False)
            secs = time.time() - t0
            rep = oneshot_report(model)
            ppl_one = perplexity(model, val)
            sites = masked_sites(model)
            exact = all(int(s.mask.count_nonzero()) == n_ones(s.weight.numel(), 0.5) for s in sites)
            train(model, tr, a.ft_steps, a.ft_lr, a.bs, a.seq, torch.Generator().manual_seed(3), sched=False,
                  wrap=lambda m, o: sparse_optimizer('static_sparse', m, o, total_steps=a.ft_steps))
            zeros = all(int(s.weight[~s.mask].count_nonzero()) == 0 for s in sites)
            ppl_ft = perplexity(model, val)
            rec = (ppl_one - ppl_ft) / (ppl_one - ppl_dense) if ppl_one > ppl_dense else float('nan')
            rows.append(dict(pattern=pattern, method=method, oneshot=ppl_one, finetuned=ppl_ft, recovered=rec,
                             s_per_block=float(rep.seconds.mean()), held_MB=float(rep.held_MB.max()), exact=exact, zeros=zeros))
            print(f"{pattern:12s} {method:9s}: one-shot {ppl_one:.3f}, fine-tuned {ppl_ft:.3f} (recovered {rec:.0%}), "
                  f"{rows[-1]['s_per_block']:.2f} s/block, {rows[-1]['held_MB']:.1f} MB held, exact counts {exact}, "
                  f"masked weights zero {zeros}", flush=True)
            hooks.remove()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    n_params = sum(p.numel() for p in dense.parameters())
    total = time.time() - t_all
    args = list(sys.argv[1:] if argv is None else argv)
    if '--out' in args: i = args.index('--out'); del args[i:i + 2]
    cmd = ' '.join(['python bench/llm/run.py', *args])
    lines = ["# One-shot pruning of a small GPT-2, then sparse fine-tuning", "",
             f"`{cmd}` (torch {torch.__version__}, {a.threads} thread{'s' if a.threads > 1 else ''}, "
             f"dense model {'loaded from bench/llm/cache, ' if cached else ''}trained in "
             f"{t_train / 60 if t_train else float('nan'):.1f} min; this run {total / 60:.1f} min; on a machine "
             f"shared with other jobs, so times are upper bounds).", "",
             f"- Model: GPT-2 architecture, {a.layers} layers, width {a.width}, {a.width // 64} heads, context {a.seq}, byte tokens "
             f"(vocabulary 256), {n_params / 1e6:.2f}M parameters; trained from scratch for {a.steps} steps of {a.bs} x {a.seq} "
             f"bytes (AdamW, one-cycle, peak lr {a.lr:g}).",
             f"- Corpus: the `.py` files of this interpreter's standard library ({n_files} files outside test, tests, idlelib, "
             f"site-packages), split by file: {len(tr) / 1e6:.1f}M bytes to train on, {len(va) / 1e6:.2f}M to validate on. "
             f"Perplexity is per byte, on {len(val)} validation windows of {a.seq} bytes.",
             f"- Pruning: 50% of every Linear/Conv1D weight of the blocks (the tied embedding and LM head stay dense); "
             f"calibration: {a.n_cal} random training windows of {a.seq} bytes; SparseGPT block size 128, 1% dampening.",
             f"- Fine-tune: {a.ft_steps} AdamW steps of {a.bs} x {a.seq} bytes at lr {a.ft_lr:g}, masks kept "
             f"(`sparse_optimizer('static_sparse', ...)` in a plain PyTorch loop). The dense model trained as long again "
             f"reaches {ppl_ctl:.3f} (a control: " + ("it does not improve, so what the fine-tune recovers is what pruning lost, "
             "not training the dense model had not finished)." if ppl_ctl >= ppl_dense else
             "part of what fine-tuning recovers is training the dense model had not finished)."),
             f"- Recovered: (one-shot - fine-tuned) / (one-shot - dense {ppl_dense:.3f}).", "",
             f"Dense validation perplexity: **{ppl_dense:.3f}**", "",
             "| pattern | method | one-shot ppl | fine-tuned ppl | recovered | s / block | held MB |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['pattern']} | {r['method']} | {r['oneshot']:.3f} | {r['finetuned']:.3f} | {r['recovered']:.0%} | "
                     f"{r['s_per_block']:.2f} | {r['held_MB']:.1f} |")
    ok = all(r['exact'] and r['zeros'] for r in rows)
    lines += ["", f"Every mask held exactly its share and every masked weight was exactly zero after fine-tuning: {ok}.",
              f"`held MB`: the most the driver held at once besides the model (one block's inputs for all calibration "
              f"batches and its layers' statistics: SparseGPT's Hessians). Peak resident memory of the whole process: "
              f"{rss / 1024:.0f} MB ({rss0 / 1024:.0f} MB before pruning)."]
    Path(a.out).write_text('\n'.join(lines) + '\n')
    print('\n'.join(lines))

if __name__ == '__main__': main()
