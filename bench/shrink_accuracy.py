"""Accuracy alone, on more seeds than `bench_shrink.py` times: the narrow VGG-11 trained by Chase masked and shrunk.

    python bench/shrink_accuracy.py --seeds 0-8 [--out bench/SHRINK_ACCURACY.md]

The same runs as `bench_shrink.py`'s VGG-11 section (its `Run`, data, schedule and `lockstep`; Adam one-cycle, 4
epochs, updates every 5 steps, Chase at 90% and channel sparsity 0.5), only the two Chase runs, and no timing: a
seed's accuracies here are the benchmark's for that seed (one torch thread, the same batches). Each seed's line is
appended to a JSON-lines file beside the output as it finishes, so that runs on several machines or sessions add up;
the table covers every seed in that file.
"""
import argparse, json, statistics, sys
from pathlib import Path
import torch, torch.nn.functional as F
sys.path.insert(0, str(Path(__file__).parent))
import bench_shrink as B

def seeds_arg(s:str) -> list:
    out = []
    for part in s.split(','):
        a, _, b = part.partition('-')
        out += list(range(int(a), int(b) + 1)) if b else [int(a)]
    return out

def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--seeds', default='0-8', help="seeds, e.g. '0-8' or '3,4,5'")
    p.add_argument('--out', default=str(Path(__file__).parent / 'SHRINK_ACCURACY.md'))
    a = p.parse_args()
    torch.set_num_threads(1)
    xt, yt, xv, yv, name = B.images(28)
    xt, xv = (F.interpolate(x, size=(32, 32), mode='bilinear', align_corners=False) for x in (xt, xv))
    epochs, bs, every = 4, 64, 5
    total = epochs * (len(xt) // bs)
    log = Path(a.out).with_suffix('.jsonl')
    for s in seeds_arg(a.seeds):
        runs = {k: B.Run(B.vgg11_narrow, k, s, total, every) for k in ('chase masked', 'chase shrink')}
        B.lockstep(runs, (xt, yt), epochs, bs, s)
        acc = {k: r.accuracy(xv, yv) for k, r in runs.items()}
        with log.open('a') as f: f.write(json.dumps(dict(seed=s, **acc)) + '\n')
        print(s, acc, flush=True)
    rows = {}
    for l in log.read_text().splitlines():
        d = json.loads(l); rows[d['seed']] = d                    # a seed run twice: its last line
    diffs = [100 * (d['chase shrink'] - d['chase masked']) for _, d in sorted(rows.items())]
    lines = ["# Chase shrunk against masked: accuracy on more seeds", "",
             f"`python bench/shrink_accuracy.py --seeds S`, its runs so far covering seeds {', '.join(map(str, sorted(rows)))} "
             f"({name}; the VGG-11 runs of `bench_shrink.py`, without the timing; seeds 0-2 give the benchmark's "
             "accuracies exactly). Accuracy in %, and shrunk minus masked in points.", "",
             "| seed | chase masked | chase shrink | shrunk - masked |", "|---|---|---|---|"]
    lines += [f"| {s} | {100 * d['chase masked']:.2f} | {100 * d['chase shrink']:.2f} | {dd:+.2f} |"
              for (s, d), dd in zip(sorted(rows.items()), diffs)]
    sd = statistics.stdev(diffs) if len(diffs) > 1 else 0.
    lines += ["", f"Over {len(diffs)} seeds: mean {statistics.fmean(diffs):+.2f} points, median {statistics.median(diffs):+.2f}, "
              f"standard deviation {sd:.2f}, standard error of the mean {sd / len(diffs) ** .5:.2f}; within 0.5 points on "
              f"{sum(abs(x) <= 0.5 for x in diffs)} of {len(diffs)} seeds.", ""]
    Path(a.out).write_text('\n'.join(lines))
    print('\n'.join(lines))

if __name__ == '__main__': main()
