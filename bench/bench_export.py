"""Inference with sparse kernels against dense, on CPU (and 2:4 semi-structured on CUDA when there is one).

    python bench/bench_export.py [--repeats 21] [--out bench/EXPORT.md]

In one process, interleaved, medians of repeats:
- one 4096x4096 Linear at 90% sparsity: dense `F.linear` vs fastsparse's CSR `SparseLinear`, batch 1 to 256;
- a LeNet-300-100 trained on Fashion-MNIST to 95% sparsity (gradual magnitude pruning, 3 epochs): the masked
  dense model vs the model converted by `to_sparse_inference`, end to end over the 10,000 test images (batch 256),
  with the accuracy of both;
- on CUDA: an 8192x8192 half-precision Linear, dense vs 2:4 semi-structured.
"""
import argparse, statistics, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
import _machine                                          # the CPU's name and vector unit
import torch, torch.nn as nn, torch.nn.functional as F
from fastai.basics import *
from fastsparse import *
from fastsparse.train import make_learner
from _common import interleaved_runs      # bench/ is on the path when this file runs

def interleaved(fns:dict, repeats):
    "Median time of each function, called in turn (order reversed every repeat) after a warm-up"
    return {k: statistics.median(v) for k, v in interleaved_runs(fns, repeats).items()}

def bench_linear(repeats):
    torch.manual_seed(0)
    lin = nn.Linear(4096, 4096)
    prune_model(lin, 0.9, 'magnitude')
    w = lin.weight.detach().clone()
    sl = SparseLinear(w, lin.bias)
    rows = []
    with torch.no_grad():
        for bs in (1, 16, 64, 256):
            x = torch.randn(bs, 4096)
            t = interleaved(dict(dense=lambda: F.linear(x, w, lin.bias), csr=lambda: sl(x)), repeats)
            torch.testing.assert_close(sl(x), F.linear(x, w, lin.bias), rtol=1e-4, atol=1e-4)
            rows.append((bs, t['dense'], t['csr']))
    return rows

def bench_mlp(repeats, epochs=3):
    learn = make_learner('fashion-mnist', 'mlp', bs=256, seed=0)
    learn.sparsify('gmp', 0.95, every=50, end=0.7)
    with learn.no_bar(), learn.no_logging(): learn.fit_one_cycle(epochs, 3e-3)
    model = learn.model.eval()
    xs, ys = zip(*[(xb.cpu(), yb.cpu()) for xb, yb in learn.dls.valid])
    dense = model
    import copy
    conv, rep = to_sparse_inference(copy.deepcopy(model), batch_size=256)
    remove_sparse_hooks(dense)                       # inference only: time the plain dense product
    def run(m): 
        with torch.no_grad(): return [m(x) for x in xs]
    acc = lambda outs: float(torch.cat([(o.argmax(1) == y).float() for o, y in zip(outs, ys)]).mean())
    t = interleaved(dict(dense=lambda: run(dense), sparse=lambda: run(conv)), repeats)
    return t, acc(run(dense)), acc(run(conv)), rep

def bench_cuda(repeats):
    if not torch.cuda.is_available(): return None
    from torch.sparse import to_sparse_semi_structured
    torch.manual_seed(0)
    lin = nn.Linear(8192, 8192, bias=False).half().cuda()
    prune_model(lin, None, 'magnitude', pattern='2:4')
    w = lin.weight.detach().clone(); ws = to_sparse_semi_structured(w)
    x = torch.randn(8192, 8192, device='cuda', dtype=torch.half)
    def sync(f): 
        def g(): f(); torch.cuda.synchronize()
        return g
    t = interleaved(dict(dense=sync(lambda: F.linear(x, w)), semi=sync(lambda: F.linear(x, ws))), repeats)
    return torch.cuda.get_device_name(), t

def main():
    p = argparse.ArgumentParser()
    p.add_argument('--repeats', type=int, default=21)
    p.add_argument('--out', default=str(Path(__file__).parent / 'EXPORT.md'))
    a = p.parse_args()
    lines = ["# Sparse inference benchmark", "",
             f"`python bench/bench_export.py --repeats {a.repeats}` on {_machine.cpu()}, "
             f"{torch.get_num_threads()} threads, torch {torch.__version__}, {time.strftime('%Y-%m-%d')}; medians of interleaved repeats.", "",
             "## One 4096x4096 Linear at 90% sparsity (CPU)", "",
             "| batch | dense ms | CSR ms | speed-up |", "|---|---|---|---|"]
    for bs, d, s in bench_linear(a.repeats):
        lines.append(f"| {bs} | {d*1e3:.3f} | {s*1e3:.3f} | {d/s:.2f}x |")
    t, acc_d, acc_s, rep = bench_mlp(max(5, a.repeats // 3))
    lines += ["", "## LeNet-300-100 at 95% sparsity, Fashion-MNIST test set end to end (CPU, batch 256)", "",
              f"Dense (masked) model: {t['dense']*1e3:.1f} ms, accuracy {acc_d:.4f}; converted by `to_sparse_inference`: "
              f"{t['sparse']*1e3:.1f} ms, accuracy {acc_s:.4f}; speed-up {t['dense']/t['sparse']:.2f}x.", "",
              "| layer | shape | sparsity | dense ms | CSR ms | converted | why |", "|---|---|---|---|---|---|---|",
              *[f"| {r.layer} | {r.shape} | {r.sparsity} | {r.dense_ms} | {r.sparse_ms} | {r.converted} | {r.reason} |" for r in rep.itertuples()]]
    cu = bench_cuda(a.repeats)
    lines += ["", "## CUDA", ""]
    if cu is None: lines.append("No CUDA device on this machine: the 2:4 semi-structured figure was not measured.")
    else:
        name, tc = cu
        lines.append(f"{name}: 8192x8192 half Linear (batch 8192), dense {tc['dense']*1e3:.3f} ms, 2:4 semi-structured "
                     f"{tc['semi']*1e3:.3f} ms, speed-up {tc['dense']/tc['semi']:.2f}x.")
    text = "\n".join(lines) + "\n"
    print(text); Path(a.out).write_text(text)

if __name__ == '__main__': main()
