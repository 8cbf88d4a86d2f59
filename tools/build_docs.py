"""Build the documentation site into _site/: every notebook in nbs/ a page (prose, code, outputs and plots), an API
reference generated from the docstrings of every public symbol of `fastsparse.all`, navigation and search.

    python tools/build_docs.py               # execute the notebooks (2 at a time) and build _site/
    python tools/build_docs.py --reuse       # don't execute again a notebook whose notebook and package are unchanged
    python tools/build_docs.py nbs/04e_export.checkpoint.ipynb   # execute this notebook only, the others' pages from the last build
    python tools/build_docs.py --pages-only  # execute nothing: remake the site from the last executed notebooks
    python -m http.server -d _site           # then browse http://localhost:8000
    python tools/check_docs.py               # check the built site in headless Chromium

Why MkDocs: mkdocs-material, mkdocs-jupyter and mkdocstrings all install from PyPI and give, from one YAML file
(mkdocs.yml), a page per notebook, an API reference from the docstrings, navigation and a client-side search that
works on any static host, GitHub Pages included.

The notebooks are stored without outputs, so each one is executed from a copy (with nbclient, in a scratch folder,
so nothing in nbs/ changes), as `tools/test.py` runs them: the cells flagged by `tst_flags` in pyproject.toml
(`#| slow`, `#| cuda`, ...) and `#| eval: false` are shown without being run. Then the pages are made as nbdev makes
them: `#| hide` and `#| include: false` cells are dropped (after they have run), the `#|` directive lines are removed,
`show_doc` cells show their output only, and a backquoted public name in the prose links to its API entry.
Scratch files go to _docs_build/; the site to _site/ (both ignored by git). The exit status is 1 where a notebook
failed to execute (its page is still built, with the error shown where it stopped).
"""
import argparse, hashlib, json, os, re, shutil, subprocess, sys, time, importlib
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

root = Path(__file__).resolve().parent.parent
scratch, site = root/'_docs_build', root/'_site'
EXEC_VERSION = '1'          # bump to invalidate the cache of executed notebooks when execution changes here

def _flags(src):
    "The nbdev directives of a cell: {'hide': '', 'eval': 'false', 'export': '', ...}"
    out = {}
    for l in src.splitlines():
        if not l.startswith('#|'): continue
        d = l[2:].strip()
        k, _, v = d.partition(':') if ':' in d.split(' ')[0] else d.partition(' ')
        if k: out[k.strip()] = v.strip()
    return out

def _strip_directives(src): return '\n'.join(l for l in src.splitlines() if not l.startswith('#|')).strip('\n')

def _slug(nb_path):
    "core.sites for 02a_core.sites.ipynb, as nbdev names the pages"
    return re.sub(r'^\d+[a-z]?_', '', nb_path.stem) or nb_path.stem

def _title(nb):
    for c in nb.cells:
        if c.cell_type == 'markdown':
            m = re.search(r'^#\s+(.+?)\s*$', c.source, re.M)
            if m: return m.group(1)
    return None

def _package_hash():
    h = hashlib.sha256()
    for f in sorted((root/'fastsparse').rglob('*.py')): h.update(f.name.encode()); h.update(f.read_bytes())
    return h.hexdigest()

# ---------------------------------------------------------------------------------------------- executing the notebooks
def execute(src, dst, workdir, skip_flags, cell_timeout, key):
    "Execute notebook `src` into `dst` from `workdir`, skipping flagged cells; return (error or None, seconds)"
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError
    start = time.time()
    nb = nbformat.read(src, as_version=4)
    skipped = []
    for i, c in enumerate(nb.cells):
        if c.cell_type != 'code': continue
        fl = _flags(c.source)
        if any(f in fl for f in skip_flags) or fl.get('eval', '').lower() == 'false':
            c.cell_type = 'raw'; skipped.append(i)                       # nbclient runs code cells only
            c.pop('outputs', None); c.pop('execution_count', None)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), os.environ.get('PYTHONPATH', '')]).rstrip(os.pathsep))
    # warnings that dependencies print when they are imported are not the page's content: fastai's use of
    # `torch.jit.script`, and tqdm's note (via transformers) that the kernel has no ipywidgets
    env['PYTHONWARNINGS'] = ','.join(filter(None, [os.environ.get('PYTHONWARNINGS'), 'ignore:`torch.jit.script` is deprecated:FutureWarning',
                                                   'ignore:IProgress not found']))
    client = NotebookClient(nb, timeout=cell_timeout or None, kernel_name='python3', allow_errors=False,
                            resources={'metadata': {'path': str(workdir)}})
    err = None
    try: client.execute(env=env, stderr=subprocess.DEVNULL)      # errors come back as outputs; the kernel's log is noise
    except CellExecutionError as e: err = _short_error(e)
    except Exception as e: err = f"{type(e).__name__}: {e}"
    for i in skipped:
        c = nb.cells[i]; c.cell_type = 'code'; c.outputs = []; c.execution_count = None
    nb.metadata['fastsparse_docs'] = {'key': key, 'error': err}
    nbformat.write(nb, dst)
    return err, time.time() - start

def _short_error(e):
    "The exception's line of a cell's traceback"
    lines = [l.strip() for l in re.sub(r'\x1b\[[0-9;]*m', '', str(e)).splitlines() if l.strip()]
    exc = [l for l in lines if re.match(r'^[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit|Warning)\b', l)]
    return (exc[-1] if exc else ' '.join(lines[-2:]))[:500]

# ------------------------------------------------------------------------------------------------- making the pages
def _symbols():
    "{name: (module, anchor)} for every public symbol of fastsparse.all, and the module list"
    sys.path.insert(0, str(root))
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        allmod = importlib.import_module('fastsparse.all')
    mods = list(allmod._MODULES)
    out = {}
    for m in mods:
        mod = importlib.import_module(f'fastsparse.{m}')
        for n in mod.__all__: out.setdefault(n, (m, f'fastsparse.{m}.{n}'))
    for n in [n for n in allmod.__all__ if n not in out]:       # a name `fastsparse.all` adds from elsewhere (`main`)
        m = getattr(getattr(allmod, n), '__module__', '') or ''
        if m.startswith('fastsparse.'):
            out[n] = (m[len('fastsparse.'):], f'{m}.{n}')
            if m[len('fastsparse.'):] not in mods: mods.append(m[len('fastsparse.'):])
    missing = [n for n in allmod.__all__ if n not in out]
    if missing: raise SystemExit(f"public names not found in any module's __all__: {missing}")
    return out, mods

_CODE = re.compile(r'(?<![\[`])`([A-Za-z_][A-Za-z0-9_]*)`(?![`\]])')
_LINK = re.compile(r'(!?)\[([^\]]*)\]\(([^)\s]+)((?:\s+"[^"]*")?)\)')

def _link_md(text, symbols, slugs, assets):
    "Link backquoted public names to the API reference, and rewrite links to notebooks and to repository files"
    def link(m):
        bang, label, url, title = m.groups()
        if re.match(r'^[a-z][a-z0-9+.-]*:|^#|^//', url): return m.group(0)
        path, _, frag = url.partition('#')
        p = Path(path)
        if p.suffix == '.ipynb' and p.stem in slugs:           # another notebook: its page
            return f"{bang}[{label}]({slugs[p.stem]}.html{'#' + frag if frag else ''}{title})"
        for base in (root, root/'nbs'):                        # a file of the repository, as the README links it
            f = (base/path).resolve()
            if f.is_file() and root in f.parents:
                rel = f.relative_to(root).as_posix()
                if bang or f.suffix.lower() in ('.png', '.jpg', '.jpeg', '.gif', '.svg', '.webp'):
                    assets.add(rel); return f"{bang}[{label}]({rel}{'#' + frag if frag else ''}{title})"
                return f"{bang}[{label}](https://github.com/fastsparse/fastsparse/blob/main/{rel}{title})"
        return m.group(0)
    # the code spans of fenced blocks are left alone
    parts = re.split(r'(```.*?```)', text, flags=re.S)
    for i in range(0, len(parts), 2):
        s = _LINK.sub(link, parts[i])
        # link `name` outside links: split on the links so their labels are left alone
        # (nor in headings, whose anchors would change)
        segs = re.split(r'(\[[^\]]*\]\([^)]*\)|^#.*$)', s, flags=re.M)
        for j in range(0, len(segs), 2):
            segs[j] = _CODE.sub(lambda m: f"[`{m[1]}`](api/{symbols[m[1]][0]}.html#{symbols[m[1]][1]})"
                                if m[1] in symbols else m.group(0), segs[j])
        parts[i] = ''.join(segs)
    return ''.join(parts)

_ATTR_LINK = re.compile(r'\[([^\]]+)\]\(([^)\s]+)\)\{([^}]*)\}')

def _attr_link(m):
    import html as H
    attrs = ''.join(f' {k}="{H.escape(v)}"' for k, v in re.findall(r'([\w-]+)="([^"]*)"', m[3]))
    return f'<a href="{H.escape(m[2])}"{attrs}>{m[1]}</a>'

def make_page(executed, dst, symbols, slugs, assets):
    """The page of an executed notebook, as nbdev shows it: no `#| hide` cell, no source for the cells nbdev hides
    (`#| export`, `show_doc(...)`, `#| echo: false`), no directive comment"""
    import nbformat
    nb = nbformat.read(executed, as_version=4)
    cells = []
    for c in nb.cells:
        if c.cell_type == 'code':
            fl = _flags(c.source)
            if 'hide' in fl or fl.get('include', '').lower() == 'false': continue
            src = _strip_directives(c.source)
            if not src and not c.get('outputs'): continue              # `#| default_exp core`
            c.source = src
            tags = set(c.metadata.get('tags', []))
            if (fl.keys() & {'export', 'exporti', 'default_exp'} or fl.get('echo', '').lower() == 'false'
                or (src and all(l.startswith('show_doc(') for l in src.splitlines()))): tags.add('hide_input')
            if 'hide_input' in tags and not c.get('outputs'): continue
            if fl.get('output', '').lower() == 'false': c.outputs = []
            c.metadata['tags'] = sorted(tags)
            for o in c.get('outputs', []):                         # show_doc's links: Quarto's {attributes} as HTML
                md = o.get('data', {}).get('text/markdown')
                if md: o['data']['text/markdown'] = _ATTR_LINK.sub(_attr_link, md)
        elif c.cell_type == 'markdown':
            src = c.source.strip()
            if src.startswith('#') and src.endswith(' -'): continue   # a heading nbdev hides
            c.source = _link_md(c.source, symbols, slugs, assets)
        elif c.cell_type == 'raw': continue
        cells.append(c)
    nb.cells = cells
    nb.metadata.pop('fastsparse_docs', None)
    nbformat.write(nb, dst)

def api_pages(docs, symbols, mods):
    "api/index.md (every public name, with its summary) and a page for each module"
    import warnings
    (docs/'api').mkdir(exist_ok=True)
    nav = [{'Index': 'api/index.md'}]
    rows = []
    for m in mods:
        mod = importlib.import_module(f'fastsparse.{m}')
        names = list(mod.__all__)
        members = '\n'.join(f'        - {n}' for n in names)
        (docs/'api'/f'{m}.md').write_text(f"# fastsparse.{m}\n\n::: fastsparse.{m}\n    options:\n      members:\n{members}\n")
        nav.append({m: f'api/{m}.md'})
        for n in names:
            obj = getattr(mod, n, None)
            d = (getattr(obj, '__doc__', None) or '') if callable(obj) or isinstance(obj, type) else ''
            first = d.strip().split('\n\n')[0].replace('\n', ' ').replace('|', '\\|')
            rows.append((n.lower(), f"| [`{n}`]({m}.md#fastsparse.{m}.{n}) | [{m}]({m}.md) | {first} |"))
    (docs/'api'/'index.md').write_text(
        "# API reference\n\nEvery public name of `fastsparse.all` (`from fastsparse.all import *`), with the module that "
        "defines it. Each module's page has the signatures, docstrings and source.\n\n| name | module | summary |\n"
        "| --- | --- | --- |\n" + '\n'.join(r for _, r in sorted(rows)) + '\n')
    return nav

# ----------------------------------------------------------------------------------------- a hook of the mkdocs build
_HEADING = re.compile(r'<h([1-3])\b[^>]*\bid="([^"]+)"[^>]*>(.*?)</h\1>', re.S)

def on_page_content(html, page, config, files):
    """The table of contents and the title of a notebook page, from its headings as rendered (mkdocs-jupyter's own
    lose the inline code of a heading: "Training with `fullgraph=True`" becomes "Training with", whose anchor is not
    on the page)"""
    if not page.file.src_path.endswith('.ipynb'): return html
    import html as H
    from mkdocs.structure.toc import get_toc
    tokens, stack, seen = [], [], set()
    for level, id_, inner in _HEADING.findall(html):
        if id_ in seen: continue
        seen.add(id_)
        inner = re.sub(r'<a[^>]*class="anchor-link".*?</a>', '', inner, flags=re.S)
        name = H.escape(re.sub(r'\s+', ' ', H.unescape(re.sub(r'<[^>]+>', '', inner))).strip())
        tok = {'level': int(level), 'id': id_, 'name': name, 'children': []}
        while stack and stack[-1]['level'] >= tok['level']: stack.pop()
        (stack[-1]['children'] if stack else tokens).append(tok)
        stack.append(tok)
    page.toc = get_toc(tokens)
    h1 = [t for t in tokens if t['level'] == 1]
    if h1: page.title = H.unescape(h1[0]['name'])              # the notebook's H1, its code included
    return html

# ------------------------------------------------------------------------------------------------------------ main
def main(argv=None):
    p = argparse.ArgumentParser('tools/build_docs.py', description="Build the documentation site into _site/.")
    p.add_argument('--reuse', action='store_true', help="don't execute again a notebook whose notebook and package are unchanged")
    p.add_argument('--n-workers', type=int, default=2, help='notebooks executed at once (default: 2)')
    p.add_argument('--cell-timeout', type=int, default=600, help='seconds a cell may take (0: no limit; default: 600)')
    p.add_argument('notebooks', nargs='*', help='execute these notebooks only; the pages of the others come from the last build')
    p.add_argument('--pages-only', action='store_true', help="don't execute: make the site from the last executed notebooks")
    p.add_argument('--nbs', default=str(root/'nbs'), help=argparse.SUPPRESS)  # another notebook folder, for testing
    a = p.parse_args(argv)
    import nbformat
    from nbdev.config import get_config
    start = time.time()
    skip = get_config(root).tst_flags
    skip = skip.split() if isinstance(skip, str) else list(skip)
    nbs_dir = Path(a.nbs).resolve()
    files = sorted(f for f in nbs_dir.glob('*.ipynb') if not f.name.startswith(('_', '.')))
    index = [f for f in files if f.stem == 'index']
    files = index + [f for f in files if f.stem != 'index']
    slugs = {}
    for f in files:
        s = 'index' if f.stem == 'index' else _slug(f)
        if s in slugs.values() or s == '404': s = f.stem
        slugs[f.stem] = s

    # 1. execute, 2 notebooks at a time, into _docs_build/executed
    exe, work = scratch/'executed', scratch/'run'
    exe.mkdir(parents=True, exist_ok=True)
    if work.exists(): shutil.rmtree(work)
    work.mkdir(parents=True)
    pkg = _package_hash()
    jobs, errors = {}, {}
    print(f"{len(files)} notebooks, executed {a.n_workers} at a time (cells flagged {', '.join(skip)} are shown, not run)",
          flush=True)
    only = {Path(n).resolve() for n in a.notebooks}
    missing = [str(n) for n in only if n not in files]
    if missing: p.error(f"not a notebook of {nbs_dir}: {', '.join(missing)}")
    with ProcessPoolExecutor(a.n_workers) as ex:
        todo = []
        for f in files:
            if only and f not in only:
                a_pages_only = True
            else: a_pages_only = a.pages_only
            key = hashlib.sha256((EXEC_VERSION + pkg + ' '.join(skip)).encode() + f.read_bytes()).hexdigest()
            out = exe/f.name
            if (a.reuse or a_pages_only) and out.exists():
                try: meta = nbformat.read(out, as_version=4).metadata.get('fastsparse_docs', {})
                except Exception: meta = {}
                if a_pages_only or meta.get('key') == key:
                    if meta.get('error'): errors[f.name] = meta['error'] + ' (in the last build)'
                    continue
            if a_pages_only: continue
            todo.append(f)
            jobs[ex.submit(execute, f, out, work, skip, a.cell_timeout, key)] = f
        if len(todo) < len(files): print(f"{len(files) - len(todo)} notebooks not executed again (--reuse, --pages-only)", flush=True)
        for i, job in enumerate(as_completed(jobs), 1):
            f = jobs[job]
            try: err, secs = job.result()
            except Exception as e: err, secs = f"{type(e).__name__}: {e}", 0.
            if err: errors[f.name] = err
            print(f"[{i:2d}/{len(todo)}] {'FAILED' if err else 'ok    '}  {f.name:28s} {secs:5.0f} s   "
                  f"({time.time() - start:.0f} s so far)" + (f"\n        {err}" if err else ''), flush=True)
    for f in files:                                            # not executed (--pages-only) nor written
        if not (exe/f.name).exists():
            nb = nbformat.read(f, as_version=4); nbformat.write(nb, exe/f.name)

    # 2. the pages: notebooks as nbdev shows them, the API reference, the navigation
    docs = scratch/'docs'
    if docs.exists(): shutil.rmtree(docs)
    docs.mkdir()
    symbols, mods = _symbols()
    assets, nav_nbs = set(), []
    for f in files:
        make_page(exe/f.name, docs/f"{slugs[f.stem]}.ipynb", symbols, slugs, assets)
        title = (_title(nbformat.read(f, as_version=4)) or f.stem).replace('`', '')
        nav_nbs.append({('Home' if f.stem == 'index' else title): f"{slugs[f.stem]}.ipynb"})
    for rel in sorted(assets):
        (docs/rel).parent.mkdir(parents=True, exist_ok=True); shutil.copy2(root/rel, docs/rel)
    api_nav = api_pages(docs, symbols, mods)
    nav = nav_nbs[:1] + [{'Guide': nav_nbs[1:]}, {'API reference': api_nav}]
    cfg = {'INHERIT': str(root/'mkdocs.yml'), 'docs_dir': str(docs), 'site_dir': str(site), 'nav': nav,
           'hooks': [str(Path(__file__).resolve())]}
    (scratch/'mkdocs.yml').write_text(json.dumps(cfg, indent=1))   # JSON is YAML

    # 3. mkdocs
    print("building the site with mkdocs", flush=True)
    r = subprocess.run([sys.executable, '-m', 'mkdocs', 'build', '--clean', '-q', '-f', str(scratch/'mkdocs.yml')],
                       cwd=scratch, env=dict(os.environ, NO_MKDOCS_2_WARNING='1'))
    if r.returncode: sys.exit(f"mkdocs build failed ({r.returncode})")
    _postprocess(site, docs)
    n_pages = len(list(site.rglob('*.html')))
    print(f"wrote {os.path.relpath(site)}/: {n_pages} pages in {time.time() - start:.0f} s" +
          (f"; {len(errors)} notebooks failed to execute: {', '.join(errors)}" if errors else ''), flush=True)
    return 1 if errors else 0

_MATH = re.compile(r'\$[^$\n]+\$|\\\(|\\\[|\$\$')
_MATHJAX = re.compile(r'<!-- Load mathjax -->\s*<script src="[^"]*mathjax[^"]*">\s*</script>', re.I)

def _postprocess(site, docs):
    """Notebook pages without math don't load MathJax from a CDN (so a page works offline); each page has a Markdown
    twin, core.html.md, as nbdev publishes them (the package's docstrings link to them)"""
    import nbformat
    from nbconvert import MarkdownExporter
    for nbf in docs.glob('*.ipynb'):
        page = site/f"{nbf.stem}.html"
        if not page.exists(): continue
        nb = nbformat.read(nbf, as_version=4)
        md = nbformat.from_dict(nb)
        for c in md.cells:
            if c.cell_type != 'code': continue
            if 'hide_input' in c.metadata.get('tags', []): c.source = ''
            for o in c.get('outputs', []):
                if 'data' in o: o['data'] = {k: v for k, v in o['data'].items() if not k.startswith('image/')}
        body, _ = MarkdownExporter().from_notebook_node(md)
        (site/f"{nbf.stem}.html.md").write_text(body)
        if any(c.cell_type == 'markdown' and _MATH.search(c.source) for c in nb.cells): continue
        html = page.read_text()
        new = _MATHJAX.sub('', html)
        if new != html: page.write_text(new)

if __name__ == '__main__': sys.exit(main())
