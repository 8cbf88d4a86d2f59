"""Check the documentation site that `python tools/build_docs.py` built into _site/, as a reader's browser sees it.

    python tools/check_docs.py                  # links, then every page in headless Chromium, then the screenshots
    python tools/check_docs.py --no-browser     # the link check only

1. A link check of every HTML page: each internal link (`href`, `src`) names a file of the site, and each `#anchor`
   an element of the page it points to; links to other sites are counted, not followed (this machine may be offline).
2. Every page loaded in headless Chromium (Debian's `chromium` and `chromium-driver`, driven by selenium) from a local
   `python -m http.server`: a page fails when it does not load, logs a JavaScript error (an uncaught exception or a
   `console.error`), fails to load one of the site's own files, or shows an image that did not load. The search box
   is tried on the home page. A request to another site that fails is reported, not counted as an error.
   Every public name of `fastsparse.all` has an entry in the API reference.
3. Screenshots of the home page and of one API page: docs/screenshots/home.png and docs/screenshots/api.png.

The exit status is 1 where anything failed. Needs `pip install -e ".[docs]"` and `apt-get install chromium chromium-driver`.
"""
import argparse, functools, html.parser, http.server, re, shutil, sys, threading, time
from pathlib import Path
from urllib.parse import urlsplit, unquote

root = Path(__file__).resolve().parent.parent

# ------------------------------------------------------------------------------------------------------ link check
class _Page(html.parser.HTMLParser):
    "The ids of a page and the URLs it refers to"
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids, self.refs = set(), []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get('id'): self.ids.add(a['id'])
        if tag == 'a' and a.get('name'): self.ids.add(a['name'])
        for k in ('href', 'src'):
            if a.get(k) is not None and tag in ('a', 'link', 'img', 'script', 'source', 'iframe', 'video', 'audio'):
                self.refs.append((tag, k, a[k]))

def site_prefix():
    "The path where the site is published, from site_url in mkdocs.yml: '/fastsparse/' (404.html links from there)"
    m = re.search(r'^site_url:\s*(\S+)', (root/'mkdocs.yml').read_text(), re.M)
    path = urlsplit(m[1]).path if m else '/'
    return path if path.endswith('/') else path + '/'

def link_check(site, prefix='/'):
    "(broken: [(page, url, why)], n internal links checked, n external links, n pages)"
    pages = {}
    for f in sorted(site.rglob('*.html')):
        p = _Page(); p.feed(f.read_text(errors='replace')); pages[f] = p
    broken, n_int, n_ext = [], 0, 0
    for f, p in pages.items():
        for tag, attr, url in p.refs:
            if not url or url.startswith(('data:', 'mailto:', 'javascript:', 'blob:')): continue
            u = urlsplit(url)
            if u.scheme or u.netloc: n_ext += 1; continue
            n_int += 1
            path = unquote(u.path)
            if path.startswith('/'):                   # from the root of the published site: 404.html does so
                path = str(site/path[len(prefix):]) if path.startswith(prefix) else str(site/path.lstrip('/'))
            target = f if not u.path else (f.parent/path).resolve()
            if target.is_dir(): target = target/'index.html'
            if site.resolve() not in [target, *target.parents] and target != f:
                broken.append((f, url, 'outside the site')); continue
            if not target.exists():
                broken.append((f, url, 'no such file' + (' (missing image)' if tag == 'img' else ''))); continue
            if u.fragment and target.suffix == '.html':
                tp = pages.get(target) or pages.get(Path(target))
                if tp is None: tp = _Page(); tp.feed(target.read_text(errors='replace')); pages[target] = tp
                if unquote(u.fragment) not in tp.ids: broken.append((f, url, 'no such anchor'))
    return broken, n_int, n_ext, len(pages)

def api_check(site):
    "The public names of fastsparse.all that have no entry (an element with id fastsparse.<module>.<name>) in the API pages"
    import importlib, warnings
    sys.path.insert(0, str(root))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        allmod = importlib.import_module('fastsparse.all')
    missing, n = [], 0
    for m in allmod._MODULES:
        page = site/'api'/f'{m}.html'
        ids = set()
        if page.exists(): p = _Page(); p.feed(page.read_text(errors='replace')); ids = p.ids
        for name in importlib.import_module(f'fastsparse.{m}').__all__:
            n += 1
            if f'fastsparse.{m}.{name}' not in ids: missing.append(f'{m}.{name}')
    return missing, n

# ----------------------------------------------------------------------------------------------------- the browser
def serve(site, prefix='/'):
    """A quiet `python -m http.server` for `site` on a free port of 127.0.0.1, in a thread: (server, base URL).
    The site is served from / and, as where it is published, from `prefix` too (404.html links from there)."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a): pass
        def translate_path(self, path):
            if prefix != '/' and path.startswith(prefix): path = '/' + path[len(prefix):]
            return super().translate_path(path)
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_address[1]}/"

def browser(chrome=None, driver=None, width=1280, height=860):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    chrome = chrome or shutil.which('chromium') or shutil.which('chromium-browser') or shutil.which('google-chrome')
    driver = driver or shutil.which('chromedriver')
    if not chrome or not driver:
        sys.exit("needs Chromium and its driver: apt-get install -y chromium chromium-driver")
    o = webdriver.ChromeOptions()
    o.binary_location = chrome
    for a in ('--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', f'--window-size={width},{height}',
              '--hide-scrollbars', '--force-device-scale-factor=1'):
        o.add_argument(a)
    o.set_capability('goog:loggingPrefs', {'browser': 'ALL'})
    return webdriver.Chrome(options=o, service=Service(driver))

_BROKEN_IMAGES = "return Array.from(document.images).filter(i => i.complete && i.naturalWidth === 0).map(i => i.src)"

def check_page(d, url, base):
    "Load `url`: (problems, failed requests to other sites)"
    from selenium.webdriver.support.ui import WebDriverWait
    problems, external = [], []
    try:
        d.get(url)
        WebDriverWait(d, 30).until(lambda d: d.execute_script("return document.readyState") == 'complete')
    except Exception as e:
        return [f"did not load: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"], []
    time.sleep(0.3)                                        # errors thrown just after the load event
    if not d.execute_script("return !!document.querySelector('article, .md-content')"):
        problems.append("no content: the page is not a page of the site")
    for src in d.execute_script(_BROKEN_IMAGES): problems.append(f"image did not load: {src}")
    for e in d.get_log('browser'):
        if e.get('level') != 'SEVERE': continue
        msg = e.get('message', '')
        if e.get('source') == 'network':
            m = re.match(r'(\S+)', msg)
            if m and not m[1].startswith(base): external.append(msg); continue
        problems.append(f"JavaScript error: {msg}")
    return problems, external

def try_search(d, base, query='RigL'):
    "Type `query` in the search box of the home page: the number of results shown"
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    d.get(base + 'index.html')
    WebDriverWait(d, 30).until(lambda d: d.execute_script("return document.readyState") == 'complete')
    d.find_element(By.CSS_SELECTOR, 'label.md-search__icon, .md-search__input').click()
    box = d.find_element(By.CSS_SELECTOR, 'input.md-search__input')
    box.send_keys(query)
    try:
        WebDriverWait(d, 20).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, '.md-search-result__item')) > 0)
    except Exception: return 0
    return len(d.find_elements(By.CSS_SELECTOR, '.md-search-result__item'))

def screenshot(d, url, dst):
    from selenium.webdriver.support.ui import WebDriverWait
    d.get(url)
    WebDriverWait(d, 30).until(lambda d: d.execute_script("return document.readyState") == 'complete')
    time.sleep(0.5)
    dst.parent.mkdir(parents=True, exist_ok=True)
    d.save_screenshot(str(dst))
    try:                                                   # a palette of 256 colours: a third of the size, same look
        from PIL import Image
        Image.open(dst).convert('RGB').quantize(256, method=Image.Quantize.MEDIANCUT).save(dst, optimize=True)
    except ImportError: pass

def main(argv=None):
    p = argparse.ArgumentParser('tools/check_docs.py', description="Check the built documentation site.")
    p.add_argument('--site', default=str(root/'_site'), help='the built site (default: _site)')
    p.add_argument('--no-browser', action='store_true', help='the link check only')
    p.add_argument('--screenshots', default=str(root/'docs'/'screenshots'), help='where the screenshots go')
    p.add_argument('--api-page', default='api/core.html', help='the API page to screenshot (default: api/core.html)')
    p.add_argument('--chrome', help='the browser (default: chromium on the PATH)')
    p.add_argument('--chromedriver', help='its driver, of the same version (default: chromedriver on the PATH)')
    a = p.parse_args(argv)
    site = Path(a.site).resolve()
    if not (site/'index.html').exists(): sys.exit(f"no site at {site}: run `python tools/build_docs.py` first")
    start, failed = time.time(), 0

    prefix = site_prefix()
    broken, n_int, n_ext, n_pages = link_check(site, prefix)
    for f, url, why in broken: print(f"broken link in {f.relative_to(site)}: {url} ({why})")
    print(f"link check: {n_pages} pages, {n_int} internal links and images, {len(broken)} broken; "
          f"{n_ext} links to other sites not followed", flush=True)
    failed += bool(broken)
    missing, n = api_check(site)
    print(f"API reference: {n - len(missing)} of {n} public names of fastsparse.all have an entry"
          + (f"; missing: {', '.join(missing)}" if missing else ''), flush=True)
    failed += bool(missing)
    if a.no_browser: return 1 if failed else 0

    srv, base = serve(site, prefix)
    d = browser(a.chrome, a.chromedriver)
    try:
        pages = sorted(site.rglob('*.html'))
        bad, ext = 0, []
        for f in pages:
            rel = f.relative_to(site).as_posix()
            problems, external = check_page(d, base + rel, base)
            ext += external
            if problems:
                bad += 1
                for pr in problems: print(f"{rel}: {pr}")
        print(f"browser: {len(pages) - bad} of {len(pages)} pages loaded without error in headless Chromium"
              + (f"; {len(ext)} failed requests to other sites, not counted: "
                 + ', '.join(sorted({re.sub(r'^(https?://[^/ ]+).*', r'\1', m) for m in ext})) if ext else ''), flush=True)
        failed += bool(bad)
        n = try_search(d, base)
        print(f"search: {n} results for 'RigL' on the home page", flush=True)
        failed += n == 0
        shots = Path(a.screenshots)
        screenshot(d, base + 'index.html', shots/'home.png')
        screenshot(d, base + a.api_page, shots/'api.png')
        print(f"screenshots: {shots/'home.png'}, {shots/'api.png'}")
    finally:
        d.quit(); srv.shutdown()
    print(f"{'FAILED' if failed else 'ok'} in {time.time() - start:.0f} s")
    return 1 if failed else 0

if __name__ == '__main__': sys.exit(main())
