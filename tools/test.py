"""Run the notebooks in nbs/ as tests, as `nbdev-test` does, with a line for each notebook as it finishes and a
summary at the end (nbdev-test prints nothing until every notebook is done).

    python tools/test.py                     # the fast suite: cells flagged slow or cuda are skipped
    python tools/test.py --flags slow        # the slow cells too (`--flags "slow cuda"` on a machine with a GPU)
    python tools/test.py nbs/04e_export.checkpoint.ipynb     # some notebooks only
"""
import argparse, sys, time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

root = Path(__file__).resolve().parent.parent

def main(argv=None):
    p = argparse.ArgumentParser('tools/test.py', description="Run the notebooks as tests, in parallel, with progress.")
    p.add_argument('notebooks', nargs='*', help='notebooks to run (default: every notebook in nbs/)')
    p.add_argument('--flags', default='', help='space-separated flags of cells to run too, e.g. "slow cuda"')
    p.add_argument('--n-workers', type=int, default=2, help='notebooks run at once (default: 2)')
    p.add_argument('--cell-timeout', type=int, default=600, help='seconds a cell may take (0: no limit; default: 600)')
    a = p.parse_args(argv)
    if a.n_workers < 1: p.error(f"--n-workers must be at least 1; got {a.n_workers}")
    from nbdev.config import get_config
    from nbdev.test import test_nb    # sent to the workers by name: a notebook's shell replaces a worker's __main__
    skip = get_config(root).tst_flags
    skip = skip.split() if isinstance(skip, str) else list(skip)
    files = [Path(f).resolve() for f in a.notebooks] or sorted(f for f in (root/'nbs').glob('*.ipynb')
                                                                if not f.name.startswith(('_', '.')))
    missing = [str(f) for f in files if not f.exists()]
    if missing: p.error(f"no such notebook: {', '.join(missing)}")
    print(f"testing {len(files)} notebooks on {a.n_workers} workers" +
          (f", with the cells flagged {a.flags}" if a.flags else f" (cells flagged {' or '.join(skip[1:])} skipped)"), flush=True)
    start, failed = time.time(), []
    with ProcessPoolExecutor(a.n_workers) as ex:
        jobs = {ex.submit(test_nb, f, skip_flags=skip, force_flags=a.flags.split(), basepath=str(root),
                          cell_timeout=a.cell_timeout or None): f for f in files}
        for i, job in enumerate(as_completed(jobs), 1):
            f = jobs[job]
            try: ok, secs = job.result()
            except Exception as e: ok, secs = False, 0.; print(f"{f.name}: {type(e).__name__}: {e}", file=sys.stderr)
            if not ok: failed.append(f.name)
            print(f"[{i:2d}/{len(files)}] {'passed' if ok else 'FAILED'}  {f.name:28s} {secs:5.0f} s   "
                  f"({time.time() - start:.0f} s so far)", flush=True)
    print(f"{len(files) - len(failed)} passed, {len(failed)} failed in {time.time() - start:.0f} s" +
          (f": {', '.join(failed)}" if failed else ''), flush=True)
    return 1 if failed else 0

if __name__ == '__main__': sys.exit(main())
