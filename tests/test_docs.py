"""The documentation site: build it from the notebooks (`tools/build_docs.py`, what `make docs` runs) into a temporary
folder, then open it in headless Chromium with every host but the local test server unresolvable and check that it
rendered: the title, the navigation in data-flow order, search, show_doc API entries and an altair chart.

Screenshots of the last run are written to `_screenshots/` (home page: `_screenshots/home.png`)."""
import base64, functools, html, http.server, json, os, re, shutil, subprocess, sys, tempfile, threading, time
from pathlib import Path
from urllib.parse import urlparse
import pytest

ROOT = Path(__file__).parent.parent
SHOTS = ROOT/'_screenshots'
NBS = Path(os.environ.get('HIBD_DOCS_NBS', ROOT/'nbs')).resolve()   # another notebook folder, to test the tests
sys.path.insert(0, str(ROOT/'tools'))
import build_docs  # noqa: E402

CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-default-apps',
    '--disable-extensions', '--disable-domain-reliability', '--disable-client-side-phishing-detection', '--no-pings',
    '--disable-breakpad', '--disable-features=NetworkTimeServiceQuerying,AutofillServerCommunication,OptimizationHints,Translate,MediaRouter',
    '--hide-scrollbars', '--virtual-time-budget=5000',
    '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1']   # nothing but the local test server resolves

def chromium() -> str:
    exe = shutil.which('chromium') or shutil.which('chromium-browser')
    if not exe: pytest.fail('Chromium is needed to check the docs site in a real browser and was not found: install it with '
                            '`apt-get install -y chromium` (Debian; .ci/run installs it when missing)')
    return exe

# ---------------------------------------------------------------------------------------------------------------
# the site, served locally (search fetches its index, which a file:// page may not)

@pytest.fixture(scope='module')
def site(tmp_path_factory):
    "Build the site with the real build command (`make docs` runs it) into a temp folder; return the site folder."
    tmp = tmp_path_factory.mktemp('docs')
    notebooks_in_site.cache_clear(); exported_names.cache_clear()   # read the notebooks as the build will see them
    for rel, *_ in notebooks_in_site(): exported_names(rel)         # (authors may be editing them meanwhile)
    r = subprocess.run([sys.executable, str(ROOT/'tools'/'build_docs.py'), '--out', str(tmp/'site'), '--work', str(tmp/'work'), '--nbs', str(NBS)],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, f'docs build failed:\n{r.stdout}\n{r.stderr}'
    print(r.stdout.strip())
    return tmp/'site'

@pytest.fixture(scope='module')
def server(site):
    "Serve the site on 127.0.0.1; yields (base url, list of (status, path) it answered)."
    seen = []
    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a): pass
        def log_request(self, code='-', size='-'): seen.append((int(code), self.path))
        def do_GET(self):
            if self.path != '/_wait': return super().do_GET()
            time.sleep(0.1); self.send_response(204); self.end_headers()
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), functools.partial(Handler, directory=str(site)))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f'http://127.0.0.1:{srv.server_address[1]}', seen
    srv.shutdown()

def browse(url, tmp, *, shot=None, size=(1280, 1600)) -> tuple[str, list]:
    "Open `url` in headless Chromium: return the DOM after scripts ran and the URLs the page itself requested."
    netlog = tmp/f'net{time.monotonic_ns()}.json'
    args = [chromium(), *CHROMIUM_FLAGS, f'--user-data-dir={tempfile.mkdtemp(dir=tmp)}', f'--window-size={size[0]},{size[1]}', f'--log-net-log={netlog}']
    r = subprocess.run(args + ([f'--screenshot={shot}'] if shot else ['--dump-dom']) + [url], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f'chromium failed on {url}:\n{r.stderr[-2000:]}'
    if shot: assert Path(shot).exists(), f'chromium wrote no screenshot for {url}:\n{r.stderr[-2000:]}'
    return r.stdout, page_requests(netlog)

def page_requests(netlog: Path) -> list:
    "URLs requested on behalf of a page of the test server (Chromium's own background requests are not the site's)."
    d = json.loads(netlog.read_text())
    start = d['constants']['logEventTypes']['URL_REQUEST_START_JOB']
    ev = [e.get('params', {}) for e in d['events'] if e['type'] == start]
    return [p['url'] for p in ev if '127.0.0.1' in str(p.get('network_isolation_key', '')) + str(p.get('initiator', ''))]

# A probe appended to a copy of a page: once the page's scripts have run it records what rendered as JSON in
# `body[data-check]`, optionally types a search query, and finds where the first chart is on the page
# (with SHIFT, moves the page up so that the chart is near the top of the screenshot).
PROBE = """<script>
addEventListener('load', () => setTimeout(async () => {
  const $$ = s => [...document.querySelectorAll(s)], txt = e => e.textContent.replace(/\u00b6/g, '').trim();
  const r = {h1: $$('.md-content h1').map(txt), nav: $$('.md-nav--primary a.md-nav__link[href]').filter(a => !a.getAttribute('href').includes('#')).map(txt),
             api: $$('.md-content h3[id]').map(e => e.id),
             sig: $$('[data-mime-type="text/markdown"] pre').map(txt)};
  // virtual time does not wait for the search worker: wait in real time with a request the test server holds 100 ms
  const until = async f => { for (let k = 0; k < 100 && !f(); k++) await fetch('/_wait'); return f(); };
  const meta = () => (document.querySelector('.md-search-result__meta') || {}).textContent || '';
  const q = QUERY;
  if (q) { r.search_ready = await until(() => meta() && !/initializ/i.test(meta()));
           const i = document.querySelector('[data-md-component=search-query]'); i.focus(); i.value = q;
           i.dispatchEvent(new Event('input', {bubbles: true})); i.dispatchEvent(new KeyboardEvent('keyup', {bubbles: true}));
           await until(() => document.querySelector('.md-search-result__item') || /no matching/i.test(meta()));
           r.results = $$('.md-search-result__item > a').map(a => a.getAttribute('href')); }
  const c = document.querySelector('[data-mime-type="image/svg+xml"] img, [data-mime-type="image/svg+xml"] svg');
  if (c) { const b = c.getBoundingClientRect();   // in page coordinates (headless screenshots ignore scrolling)
           r.chart = {tag: c.tagName, src: c.getAttribute('src') || c.outerHTML, decoded: c.tagName != 'IMG' || (c.complete && c.naturalWidth > 0),
                      x: b.x + scrollX, y: b.y + scrollY, w: b.width, h: b.height, dpr: devicePixelRatio};
           // headless screenshots show the top of the page whatever the scroll: for the shot, shift the page up instead
           if (SHIFT) document.body.style.transform = `translateY(${-Math.max(0, r.chart.y - 100)}px)`; }
  document.body.setAttribute('data-check', JSON.stringify(r));
}, 500));
</script>"""

def probe(site, server, page, tmp, query='', shot=None) -> dict:
    "Open a probed copy of `page` (same folder, so relative links work); return what the probe saw."
    def url(shift):
        src = site/page
        probed = src.with_name(f'_probe{int(shift)}_{src.name}')
        js = PROBE.replace('QUERY', json.dumps(query)).replace('SHIFT', json.dumps(shift))
        probed.write_text(src.read_text(encoding='utf-8').replace('</body>', js + '</body>'), encoding='utf-8')
        return f'{server[0]}/{probed.relative_to(site).as_posix()}'
    dom, reqs = browse(url(False), tmp, size=(1280, 1000))
    m = re.search(r'data-check="([^"]*)"', dom)
    assert m, f'the probe did not run on {page}: the page scripts failed or took too long'
    seen = json.loads(html.unescape(m[1]))
    if shot:   # same width, so the same layout; the chart shifted to 100px from the top (see PROBE)
        c = seen.get('chart')
        if c: c['y'] -= max(0, c['y'] - 100)
        browse(url(True), tmp, shot=shot, size=(1280, max(1000, int(c['y'] + c['h'] + 100)) if c else 1000))
    return seen, reqs

@functools.cache
def notebooks_in_site():
    "(notebook, page, title) for every notebook, in the order the build puts them in the nav."
    out = []
    for rel in build_docs.notebooks(NBS):
        m = next((re.match(r'#\s+(.+)', s) for t, s in cells(rel) if t == 'markdown' and s.startswith('# ')), None)
        out.append((rel, build_docs.page_of(rel).as_posix(), m[1].strip() if m else rel.stem))
    return out

def anchor(name: str) -> str:
    "The heading id a show_doc entry gets: `Workspace.run` -> `workspacerun`."
    return re.sub(r'[^\w-]', '', name.lower())

def cells(rel) -> list:
    "(cell type, source) of each cell of notebook `rel`."
    nb = json.loads((NBS/rel).read_text(encoding='utf-8'))
    return [(c['cell_type'], ''.join(c['source'])) for c in nb['cells']]

@functools.cache
def exported_names(rel) -> list:
    "Public functions and classes defined in the `#| export`/`#| exports` cells of notebook `rel`."
    import ast
    names = []
    for t, s in cells(rel):
        if t != 'code' or not re.search(r'^#\|\s*exports?\s*$', s, re.M): continue
        src = '\n'.join(l for l in s.splitlines() if not l.lstrip().startswith(('%', '!')))
        for n in ast.parse(src).body:
            if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or n.name.startswith('_'): continue
            if is_cli_command(n): continue  # documented by its `--help` text, checked in test_cli_commands_show_their_help
            patched = any('patch' in ast.unparse(d) for d in n.decorator_list) and n.args.args and n.args.args[0].annotation
            # fastcore's @patch adds `name` to the class of `self`: nbdev documents it as `Class.name`
            names.append(re.sub(r'\W', '', ast.unparse(n.args.args[0].annotation)) + '.' + n.name if patched else n.name)
    return names

def is_cli_command(n) -> bool:
    "Is the ast node `n` a click command or group (a `@main.command()`-style decorator)?"
    import ast
    return any(re.search(r'(^|\.)(command|group)\b', ast.unparse(d)) for d in getattr(n, 'decorator_list', []))

def cli_commands(rel) -> list:
    "Names of the click commands defined in the exported cells of notebook `rel`."
    import ast
    return [n.name for t, s in cells(rel) if t == 'code' and re.search(r'^#\|\s*exports?\s*$', s, re.M)
            for n in ast.parse(s).body if isinstance(n, ast.FunctionDef) and is_cli_command(n)]

# ---------------------------------------------------------------------------------------------------------------
# static checks on the built files

def test_every_notebook_is_a_page_with_its_api(site):
    "Each notebook becomes a page; each public exported function or class has a show_doc entry (an h3 anchor) on it."
    missing = []
    for rel, page, title in notebooks_in_site():
        html = (site/page).read_text(encoding='utf-8')
        assert f'>{title}<' in html.replace('&para;', ''), f'{page} (from nbs/{rel}) lacks its title {title!r}'
        missing += [f'{page}: {n}' for n in exported_names(rel) if not re.search(f'<h3 id="{anchor(n)}(_\\d+)?"', html)]
    assert not missing, 'exported names without a show_doc entry:\n' + '\n'.join(missing)

def test_cli_commands_show_their_help(site):
    "A page defining click commands shows each command's `--help` output (its API documentation)."
    for rel, page, title in notebooks_in_site():
        cmds = cli_commands(rel)
        if not cmds: continue
        html = (site/page).read_text(encoding='utf-8')
        assert html.count('Usage: hibd') >= len(cmds), f'{page} defines {len(cmds)} commands but shows {html.count("Usage: hibd")} help texts'

def test_no_remote_resources(site):
    "No page loads a script, stylesheet, font or image from off-site (the site must render offline)."
    bad = [f'{p.relative_to(site)}: {t[:100]}' for p in site.rglob('*.html')
           for t in re.findall(r'<(?:script|link|img|iframe|source)\b[^>]*>', p.read_text(encoding='utf-8'))
           if re.search(r'''(?:src|href)\s*=\s*["']?(?:https?:)?//''', t)]
    assert not bad, 'remote resources:\n' + '\n'.join(bad)

def test_internal_links_resolve(site):
    "Every link between or within pages (nbdev's symbol links, the TOC, README-style `nbs/x.ipynb` links) hits an id."
    ids = {p: set(re.findall(r'\bid="([^"]+)"', p.read_text(encoding='utf-8'))) for p in site.rglob('*.html')}
    bad = []
    for p in ids:
        if p.name == '404.html': continue          # mkdocs writes it with root-absolute links, for the server
        for h in re.findall(r'<a\b[^>]*\bhref="([^"]+)"', p.read_text(encoding='utf-8')):
            if re.match(r'[a-z]+:|//', h): continue
            path, _, frag = h.partition('#')
            target = (p.parent/path).resolve() if path else p
            if target.is_dir(): target = target/'index.html'
            if target not in ids or (frag and frag not in ids[target]): bad.append(f'{p.relative_to(site)}: {h}')
    assert not bad, 'broken links:\n' + '\n'.join(sorted(set(bad)))

# ---------------------------------------------------------------------------------------------------------------
# in the browser

def test_home_page_in_browser(site, server, tmp_path):
    "The home page renders its title, the full navigation in data-flow order and working search; screenshot saved."
    pages = notebooks_in_site()
    SHOTS.mkdir(exist_ok=True)
    dom, reqs = browse(f'{server[0]}/index.html', tmp_path, shot=SHOTS/'home.png')
    assert_not_blank(SHOTS/'home.png', None)
    print(f'home page screenshot: {SHOTS/"home.png"}')
    seen, reqs = probe(site, server, 'index.html', tmp_path, query=exported_names(pages[1][0])[0] if len(pages) > 1 else 'hibd')
    assert seen['h1'][:1] == [pages[0][2]], seen['h1']
    want = [t for _, _, t in pages]
    assert seen['nav'] == want, f'navigation {seen["nav"]} should list {want} in this order'
    assert any(urlparse(h).path == f'/{pages[1][1]}' for h in seen.get('results', [])), \
        f'searching {exported_names(pages[1][0])[0]!r} should find {pages[1][1]}, got {seen.get("results")}'
    assert_local_only(reqs, server)

def chart_pages(site) -> list:
    "Pages of the real project with an altair chart among their saved outputs (vega marks inside an svg output)."
    out = []
    for _, page, _ in notebooks_in_site():
        for m in re.finditer(r'data-mime-type="image/svg\+xml"[^>]*>\s*(<img[^>]*src="data:image/svg\+xml;base64,([^"]+)"|<svg.*?</svg>)',
                             (site/page).read_text(encoding='utf-8'), re.S):
            svg = base64.b64decode(m[2]).decode() if m[2] else m[1]
            if 'class="mark-' in svg: out.append(page); break
    return out

def test_chart_page_in_browser(site, server, tmp_path):
    "A project page with an altair chart: the chart decodes in the browser and its region has coloured marks."
    pages = chart_pages(site)
    assert pages, ('no page shows an altair chart: the notebooks with charts (nbs/10_metrics, nbs/11_stats) must be saved '
                   "with outputs (`nbdev-test --save`) and enable alt.renderers.enable('svg') in a hidden cell")
    page = pages[0]
    SHOTS.mkdir(exist_ok=True)
    shot = SHOTS/f'{Path(page).stem}-chart.png'
    seen, reqs = probe(site, server, page, tmp_path, shot=tmp_path/'page.png')
    c = seen.get('chart')
    assert c and c['decoded'] and c['w'] > 100 and c['h'] > 50, f'chart on {page} did not render: {c}'
    assert_not_blank(tmp_path/'page.png', c)
    from PIL import Image
    Image.open(tmp_path/'page.png').crop((int(c['x']) - 40, int(c['y']) - 60, int(c['x'] + c['w']) + 40, int(c['y'] + c['h']) + 40)).save(shot)
    print(f'chart page {page}: screenshot of its first chart {shot}')
    assert 'class="mark-' in (base64.b64decode(c['src'].split(',', 1)[1]).decode() if c['src'].startswith('data:') else c['src'])
    assert seen['api'], f'{page} shows no show_doc entries'
    assert any('(' in s for s in seen['sig']), f'{page} shows no function signature: {seen["sig"][:3]}'
    assert_local_only(reqs, server)

def test_show_doc_renders_readably(site, server, tmp_path):
    "On the first API page each show_doc entry has its name as a heading and a signature block."
    rel, page, _ = next(p for p in notebooks_in_site() if exported_names(p[0]))
    seen, _ = probe(site, server, page, tmp_path)
    names = exported_names(rel)
    assert any(re.fullmatch(f'{anchor(names[0])}(_\\d+)?', a) for a in seen['api']), f'{page}: no show_doc heading for {names[0]} in {seen["api"]}'
    short = names[0].split('.')[-1]
    assert any(re.match(rf'(def|class|async def)\s+{short}\b', s) for s in seen['sig']), \
        f'{page}: no rendered signature for {names[0]} among {seen["sig"][:5]}'

# ---------------------------------------------------------------------------------------------------------------

def assert_local_only(reqs, server):
    off = [u for u in reqs if not u.startswith(server[0])]
    assert not off, f'the page requested off-site resources: {off}'
    missing = [p for code, p in server[1] if code >= 400]
    assert not missing, f'the site links resources it does not contain: {missing}'

def assert_not_blank(png: Path, box):
    "The screenshot (or `box` of it, in CSS pixels) has ink, and for a chart saturated colour (the marks)."
    import numpy as np
    from PIL import Image
    im = Image.open(png).convert('RGB')
    if box:
        s = box['dpr']; im = im.crop((int(box['x']*s), int(max(box['y'], 0)*s), int((box['x']+box['w'])*s), int((box['y']+box['h'])*s)))
    px = np.asarray(im).reshape(-1, 3).astype(int)
    ink = (px.min(1) < 200).mean()
    assert ink > 0.01, f'{png}: {"chart region" if box else "page"} is blank ({ink:.1%} ink)'
    if box:
        colour = int((px.max(1) - px.min(1) > 60).sum())
        assert colour > 50, f'{png}: the chart region has no coloured marks ({colour} coloured pixels)'
