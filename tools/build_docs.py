"""Build the documentation site from the notebooks, offline, into `_docs/` (`make docs`).

Quarto cannot be installed offline, so nbdev's own `nbdev-docs` is not used. Instead:
1. nbdev's docs processors (`nbdev.processors.FilterDefaults`, what `nbdev-proc-nbs` runs) turn each notebook
   into its docs form: a show_doc cell after every exported function/class, export and `#| hide` cells dropped,
   `# Title` / `> subtitle` turned into front matter, backticked names linked. Only export and show_doc cells and
   import statements run; every other output is the one committed in the notebook (nothing is re-executed, and a
   notebook saved without outputs still shows its code).
2. `clean` turns that back into a plain Jupyter notebook (front matter -> title cell, quarto directives -> tags,
   nbdev's absolute doc links and README-style `nbs/x.ipynb` links -> relative page links).
3. mkdocs-material + mkdocs-jupyter render the pages with navigation (every notebook in nbs/, index first, then
   numeric prefix = data-flow order, then each subfolder such as tutorials/), search and a table of contents.
4. The pages are made self-contained (the template's CDN scripts for MathJax/mermaid dropped, the inlined notebook
   stylesheet shared) and checked: a page that would still load anything from the network fails the build, naming
   its notebook. Heading ids are made unique and the table of contents and nbdev's symbol links are repaired.

Processed notebooks are cached under the work folder by content hash, so a rebuild re-processes only what changed.

Usage: python tools/build_docs.py [--out _docs] [--work _proc/docs] [--jobs N] [--force]
"""
import argparse, concurrent.futures as cf, hashlib, multiprocessing, os, re, shutil, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NBS = ROOT/'nbs'
_num = re.compile(r'^(\d+)')

def _show(p: Path) -> str:
    "`p` relative to the repo when inside it (error messages name `nbs/03_x.ipynb`)."
    try: return p.resolve().relative_to(ROOT).as_posix()
    except ValueError: return str(p)

class DocsError(RuntimeError):
    "The docs build failed; the message names the notebook or page at fault."

def _order(p: Path):
    m = _num.match(p.stem)
    return (p.stem != 'index', int(m[1]) if m else float('inf'), p.stem)

def notebooks(nbs: Path = NBS) -> list[Path]:
    "Every notebook under `nbs` (relative paths): top level first (index, then numeric prefix), then each subfolder."
    found = [p.relative_to(nbs) for p in nbs.rglob('*.ipynb')
             if not any(s.startswith(('_', '.')) for s in p.relative_to(nbs).parts)]
    return sorted(found, key=lambda r: (len(r.parts) > 1, r.parent.as_posix(), *_order(r)))

def page_of(rel: Path) -> Path:
    "The site page for notebook `rel`, as nbdev names it (numeric prefix stripped): `00_schema.ipynb` -> `schema.html`."
    from nbdev.config import nbpath2html
    return nbpath2html(rel)

# ---------------------------------------------------------------------------------------------------------------
# 1. nbdev processing, in worker processes (nbdev executes the import, export and show_doc cells of each notebook)

def _process(src: str, dst: str):
    "Run nbdev's docs processors on notebook `src`, write the result to `dst`."
    os.chdir(ROOT)                                   # nbdev finds pyproject.toml from the working directory
    os.environ['IN_TEST'] = '1'                      # as nbdev-proc-nbs does: notebooks may skip slow work
    import ast, warnings
    from fastcore.nbio import read_nb, write_nb
    from nbdev import processors as P
    warnings.filterwarnings('ignore', message='Found cells containing imports')   # handled below, no need to shout

    class exec_show_docs(P.exec_show_docs):
        """nbdev's, except for a cell it would run only because it imports something: there only the cell's top-level
        import statements run, and its saved outputs are kept. nbdev would run the whole cell (a test cell that also
        imports), which re-executes work, replaces outputs and fails on names from cells it does not run."""
        def __call__(self, cell):
            if not self.nb.has_docs_ or not hasattr(self, 'k') or not P._do_eval(cell): return
            trees = cell.parsed_() or []
            if cell.directives_.keys() & {'export', 'exports', 'exporti', 'exec_doc'} or P._show_docs(trees):
                return super().__call__(cell)
            imports = [t for t in trees if isinstance(t, (ast.Import, ast.ImportFrom))]
            if imports: self.k.run(ast.unparse(ast.Module(imports, type_ignores=[])))
            if self.k.exc: raise Exception(f'import failed in cell {cell.idx_}:\n{cell.source}\n{type(self.k.exc).__name__}: {self.k.exc}')

    class Filter(P.FilterDefaults):
        def base_procs(self): return [exec_show_docs if p is P.exec_show_docs else p for p in super().base_procs()]

    nb = read_nb(src)
    Filter()(nb)
    Path(dst).parent.mkdir(parents=True, exist_ok=True)
    write_nb(nb, dst)

def _process_batch(pairs: list) -> dict:
    "`_process` each (src, dst) in turn in this worker (imports paid once); return {src: error message} for failures."
    errors = {}
    for src, dst in pairs:
        try: _process(src, dst)
        except Exception as e: errors[src] = f'{type(e).__name__}: {e}'
    return errors

def _key(src: Path) -> str:
    "Cache key: the notebook, this script, nbdev's version, the project config and the symbol index used for links."
    import nbdev
    h = hashlib.sha256(src.read_bytes())
    for p in (Path(__file__), ROOT/'pyproject.toml', ROOT/'hibd'/'_modidx.py'):
        if p.exists(): h.update(p.read_bytes())
    h.update(nbdev.__version__.encode())
    return h.hexdigest()

def process_all(rels: list[Path], proc_dir: Path, jobs: int, force: bool = False, log=print, nbs: Path = NBS) -> dict:
    "nbdev-process each notebook into `proc_dir` (cached by content); raise `DocsError` naming every failing notebook."
    todo = []
    for rel in rels:
        dst, stamp = proc_dir/rel, proc_dir/(rel.as_posix() + '.sha256')
        key = _key(nbs/rel)
        if force or not dst.exists() or not stamp.exists() or stamp.read_text() != key: todo.append((rel, dst, stamp, key))
    if not todo: return {}
    t0, errors, jobs = time.time(), {}, max(1, min(jobs, len(todo)))
    batches = [todo[i::jobs] for i in range(jobs)]             # one batch per fresh worker process
    with cf.ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context('spawn'), max_tasks_per_child=1) as ex:
        futs = {ex.submit(_process_batch, [(str(nbs/rel), str(dst)) for rel, dst, *_ in b]): b for b in batches}
        for f in cf.as_completed(futs):
            try: errs = f.result()
            except Exception as e: errs = {str(nbs/rel): f'{type(e).__name__}: {e}' for rel, *_ in futs[f]}   # worker died
            for rel, dst, stamp, key in futs[f]:
                if str(nbs/rel) in errs:
                    errors[rel] = errs[str(nbs/rel)]; dst.unlink(missing_ok=True); stamp.unlink(missing_ok=True)
                else: stamp.write_text(key)
    if errors:
        msg = '\n\n'.join(f'{_show(nbs/r)}: nbdev processing failed:\n{e}' for r, e in sorted(errors.items()))
        raise DocsError(f'{msg}\n\n(fix the notebook, or if another author is still writing it, rerun `make docs`)')
    log(f'nbdev-processed {len(todo)} notebook(s) in {time.time()-t0:.1f}s')
    return {rel: dst for rel, dst, *_ in todo}

# ---------------------------------------------------------------------------------------------------------------
# 2. nbdev/quarto notebook -> plain Jupyter notebook for mkdocs-jupyter

_STD = {'code': {'id', 'cell_type', 'metadata', 'source', 'outputs', 'execution_count'},
        'markdown': {'id', 'cell_type', 'metadata', 'source', 'attachments'},
        'raw': {'id', 'cell_type', 'metadata', 'source', 'attachments'}}
_directive = re.compile(r'^#\|\s*([\w-]+)\s*:?\s*(.*)$')
_pandoc_attr = re.compile(r'\)\{[^}]*\}')                          # `[source](...){target="_blank" ...}`
_bad_source = re.compile(r'\[source\]\(/[^)]*\)\s*')               # source link without a git_url: would be broken
_md_link = re.compile(r'(\]\()([^)\s]+)(\))')
_WARNING = '<!-- WARNING: THIS FILE WAS AUTOGENERATED! DO NOT EDIT! -->'

def _relink(md: str, rel: Path, pages: dict, nbs: Path = NBS) -> str:
    "Make links in markdown `md` of notebook `rel` work in the site: `/x.html#a` and `nbs/00_x.ipynb` -> relative pages."
    up = '../' * (len(rel.parts) - 1)
    def fix(m):
        target = m[2]; path, _, anchor = target.partition('#'); anchor = '#' + anchor if anchor else ''
        if path.startswith('/') and path.endswith('.html'): return f'{m[1]}{up}{path[1:]}{anchor}{m[3]}'
        if path.endswith('.ipynb') and '://' not in path:
            for base in (nbs/rel.parent, ROOT):      # relative to the notebook, or to the repo root (README links)
                try: r = (base/path).resolve().relative_to(nbs)
                except ValueError: continue
                if r in pages: return f'{m[1]}{up}{pages[r].as_posix()}{anchor}{m[3]}'
        return m[0]
    return _md_link.sub(fix, md)

def clean(nb, rel: Path, pages: dict, nbs: Path = NBS):
    "Turn nbdev-processed notebook `nb` (of source `rel`) into a plain notebook; return it and its title."
    import nbformat, yaml
    fm, cells = {}, []
    for cell in nb.cells:
        for k in list(cell):
            if k not in _STD[cell.cell_type]: del cell[k]        # nbdev-only keys such as has_sd
        cell.metadata = {k: v for k, v in cell.metadata.items() if k == 'tags'}
        if 'source' not in cell: continue
        if cell.cell_type == 'raw' and cell.source.lstrip().startswith('---'):
            fm = yaml.safe_load(cell.source.strip().strip('-')) or {}; continue
        if cell.cell_type == 'markdown':
            if cell.source.strip() == _WARNING: continue
            cell.source = _relink(cell.source, rel, pages, nbs)
        if cell.cell_type == 'code':
            lines, opts = cell.source.splitlines(), {}
            while lines and (m := _directive.match(lines[0])): opts[m[1]] = m[2].strip().strip('"'); lines.pop(0)
            cell.source = '\n'.join(lines)
            if opts.get('echo') == 'false': cell.metadata.setdefault('tags', []).append('remove_input')
            for o in cell.get('outputs', []):
                md = o.get('data', {}).get('text/markdown')
                if md is not None:
                    md = ''.join(md) if isinstance(md, list) else md
                    o['data']['text/markdown'] = _relink(_bad_source.sub('', _pandoc_attr.sub(')', md)), rel, pages, nbs)
        cells.append(cell)
    title = fm.get('title') or rel.stem
    head = f"# {title}" + (f"\n\n> {fm['description']}" if fm.get('description') else '')
    cells.insert(0, nbformat.v4.new_markdown_cell(head))
    nb.cells = cells
    for c in nb.cells: c.pop('id', None)                                # ids are optional and nbdev's may repeat
    nb.nbformat, nb.nbformat_minor = 4, 4
    nb.metadata = {k: v for k, v in nb.metadata.items() if k in ('kernelspec', 'language_info')}
    nb.metadata.setdefault('language_info', {'name': 'python'})
    return nb, title

def stage(rels, proc_dir: Path, src_dir: Path, nbs: Path = NBS) -> list:
    "Clean every processed notebook into `src_dir`; return the nav as a list of (section, title, page)."
    import nbformat
    if src_dir.exists(): shutil.rmtree(src_dir)
    src_dir.mkdir(parents=True)
    pages = {rel: page_of(rel) for rel in rels}
    clash = [f'{_show(nbs/r)} and {_show(nbs/o)} -> {pg}' for i, (r, pg) in enumerate(pages.items()) for o in list(pages)[:i] if pages[o] == pg]
    if clash: raise DocsError('two notebooks would make the same page:\n' + '\n'.join(clash))
    nav = []
    for rel in rels:
        try:
            nb = nbformat.read(proc_dir/rel, as_version=4)
            nb, title = clean(nb, rel, pages, nbs)
            out = src_dir/pages[rel].with_suffix('.ipynb')
            out.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, out)
        except Exception as e: raise DocsError(f'{_show(nbs/rel)}: could not prepare the page: {type(e).__name__}: {e}') from e
        nav.append((rel.parent.as_posix() if len(rel.parts) > 1 else '', title, pages[rel].with_suffix('.ipynb').as_posix()))
    if (nbs/'styles.css').exists(): shutil.copy(nbs/'styles.css', src_dir/'styles.css')
    return nav

# ---------------------------------------------------------------------------------------------------------------
# 3. mkdocs, 4. offline check

def mkdocs_config(nav, src_dir: Path, out: Path, work: Path) -> Path:
    "Write the full mkdocs config (static settings from mkdocs.yml + folders + nav) into `work`; return its path."
    import yaml
    cfg = yaml.safe_load((ROOT/'mkdocs.yml').read_text())
    cfg.update(docs_dir=str(src_dir), site_dir=str(out))
    if not (src_dir/'styles.css').exists(): cfg.pop('extra_css', None)
    items, sections = [], {}
    for section, title, page in nav:
        entry = {title: page}
        if not section: items.append(entry)
        else:
            if section not in sections:
                sections[section] = []; items.append({section.replace('_', ' ').title(): sections[section]})
            sections[section].append(entry)
    cfg['nav'] = items
    for p in cfg.get('plugins', []):
        if isinstance(p, dict) and 'mkdocs-jupyter' in p: p['mkdocs-jupyter']['cache_dir'] = str(work/'mkdocs-jupyter-cache')
    path = work/'mkdocs.yml'
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path

_script = re.compile(r'<script\b([^>]*)>(.*?)</script>', re.S | re.I)
_style = re.compile(r'<style[^>]*>(.*?)</style>', re.S)
_url = re.compile(r'(?<![\w.])(?:https?:)?//(?!www\.w3\.org/)[\w.-]+\.[a-z]{2,}[^\s"\'<>)]*', re.I)   # not svg namespaces
_empty_src = re.compile(r'\bsrc\s*=\s*(""|\'\')')
_DROP = '\0'

def _template_script(attrs: str, body: str) -> bool:
    "Scripts mkdocs-jupyter's template adds that would load code from a CDN (MathJax, mermaid) and are not needed."
    return bool(_empty_src.search(attrs) or 'x-mathjax-config' in attrs or 'mathjax' in attrs.lower()
                or ('jp-Mermaid' in body and 'mermaid' in ''.join(_url.findall(body))))

_heading = re.compile(r'<h[1-6] id="([^"]+)"[^>]*>(.*?)</h[1-6]>', re.S)
_toc_link = re.compile(r'(<a href="#)([^"]+)(" class="md-nav__link">\s*<span class="md-ellipsis">\s*)(.*?)(\s*</span>)', re.S)

def fix_toc(html: str) -> str:
    """Make heading ids unique, and repair the table of contents: mkdocs-jupyter builds it from heading text with its
    `code` dropped, so a heading such as "Why `pyproject.toml` ..." gets a wrong anchor and label there."""
    from markdown.extensions.toc import slugify
    seen = {}
    def dedupe(m):   # nbconvert repeats ids (`# Harness`, `## Harness`, show_doc `### Harness`): number the repeats
        n = seen[m[1]] = seen.get(m[1], -1) + 1
        return m[0] if not n else m[0].replace(f'"{m[1]}"', f'"{m[1]}_{n}"').replace(f'"#{m[1]}"', f'"#{m[1]}_{n}"')
    html = _heading.sub(dedupe, html)
    ids, by_slug = set(), {}
    for m in _heading.finditer(html):
        ids.add(m[1])
        label = re.sub(r'<a class="anchor-link".*?</a>|<[^>]+>', '', m[2]).strip()
        by_slug.setdefault(slugify(re.sub(r'<[^>]+>', '', re.sub(r'<code>.*?</code>|<a class="anchor-link".*?</a>', '', m[2])), '-'), (m[1], label))
    def fix(m):
        if m[2] in ids or m[2] not in by_slug: return m[0]
        real, label = by_slug[m[2]]
        return f'{m[1]}{real}{m[3]}{label}{m[5]}'
    return _toc_link.sub(fix, html)

def offline(site: Path, sources: dict = {}) -> int:
    """Make every page self-contained: drop the template's CDN scripts (MathJax, mermaid) and move the large stylesheet
    that mkdocs-jupyter inlines into every page into one shared file. Raise `DocsError` naming the notebook when a page
    still needs the network: a script, stylesheet, image or frame from another host (e.g. an altair chart saved with
    the default html renderer, which loads vega from a CDN)."""
    import hashlib
    dropped, left, shared = 0, [], {}
    for p in sorted(site.rglob('*.html')):
        html = p.read_text(encoding='utf-8')
        new = _script.sub(lambda m: _DROP if _template_script(m[1], m[2]) else m[0], html)
        dropped += new.count(_DROP); new = new.replace(_DROP, '')
        up = '../' * (len(p.relative_to(site).parts) - 1)
        def share(m):
            if len(m[1]) < 8000: return m[0]
            name = f'assets/stylesheets/notebook-{hashlib.sha256(m[1].encode()).hexdigest()[:10]}.css'
            shared[name] = m[1]
            return f'<link rel="stylesheet" href="{up}{name}">'
        new = fix_toc(_style.sub(share, new))
        if new != html: p.write_text(new, encoding='utf-8')
        rel = p.relative_to(site).as_posix()
        where = f'{rel} (from {sources[rel]})' if rel in sources else rel
        bad = [t for t in re.findall(r'<(?:script|link|img|iframe|source|embed)\b[^>]*>', new, re.I)
               if re.search(r'\b(?:src|href)\s*=\s*["\']?(?:https?:)?//', t, re.I) and not t.lower().startswith('<link rel="canonical"')]
        bad += [f'script using {", ".join(sorted(set(_url.findall(m[2]))))[:200]}' for m in _script.finditer(new) if _url.search(m[2])]
        left += [f'{where}: {b[:240]}' for b in bad]
    for name, css in shared.items(): (site/name).write_text(css, encoding='utf-8')
    if left: raise DocsError('pages need the network to render (the site must work offline; for altair charts put '
                             "`alt.renderers.enable('svg')` in a `#| hide` cell and re-save the outputs):\n" + '\n'.join(left))
    return dropped

_a_href = re.compile(r'<a\b([^>]*?)\bhref="([^"#:]*\.html)?#([^"]*)"([^>]*)>(.*?)</a>', re.S)

def fix_links(site: Path) -> int:
    """Repair links into the site's pages: nbdev links `Class.method` as `#class.method` where the heading id is
    `classmethod`, and links private names (`_x`) that have no show_doc entry: re-aim the first, unlink the second."""
    pages = {p: set(re.findall(r'\bid="([^"]+)"', p.read_text(encoding='utf-8'))) for p in site.rglob('*.html')}
    n = 0
    for p, _ in pages.items():
        if p.name == '404.html': continue
        def fix(m):
            nonlocal n
            target = (p.parent/m[2]).resolve() if m[2] else p
            if target not in pages or m[3] in pages[target]: return m[0]
            n += 1
            frag = re.sub(r'[^\w-]', '', m[3].lower())
            if frag in pages[target]: return f'<a{m[1]}href="{m[2] or ""}#{frag}"{m[4]}>{m[5]}</a>'
            return m[5]
        html = p.read_text(encoding='utf-8')
        new = _a_href.sub(fix, html)
        if new != html: p.write_text(new, encoding='utf-8')
    return n

def build(out: Path = ROOT/'_docs', work: Path = ROOT/'_proc'/'docs', jobs: int = 2, force: bool = False, log=print,
          nbs: Path = NBS) -> list:
    "Build the site into `out` (staging and cache in `work`); return the nav."
    t0 = time.time()
    out, work, nbs = Path(out).resolve(), Path(work).resolve(), Path(nbs).resolve()
    rels = notebooks(nbs)
    if not rels: raise DocsError(f'no notebooks found in {nbs}')
    process_all(rels, work/'proc', jobs, force, log, nbs)
    nav = stage(rels, work/'proc', work/'docs_src', nbs)
    cfg_path = mkdocs_config(nav, work/'docs_src', out, work)
    os.environ.setdefault('NO_MKDOCS_2_WARNING', '1')
    from mkdocs.commands.build import build as mk_build
    from mkdocs.config import load_config
    import logging
    logging.getLogger('mkdocs').setLevel(logging.WARNING)
    try: mk_build(load_config(str(cfg_path)))
    except Exception as e: raise DocsError(f'mkdocs failed: {type(e).__name__}: {e}') from e
    n = offline(out, {page_of(r).as_posix(): _show(nbs/r) for r in rels})
    fix_links(out)
    log(f'built {len(nav)} pages into {out} in {time.time()-t0:.1f}s ({n} off-site scripts removed)')
    return nav

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--out', default=str(ROOT/'_docs'), help='site folder (default _docs/)')
    ap.add_argument('--work', default=str(ROOT/'_proc'/'docs'), help='staging and cache folder (default _proc/docs/)')
    ap.add_argument('--jobs', type=int, default=min(2, os.cpu_count() or 1), help='notebooks processed in parallel')
    ap.add_argument('--nbs', default=str(NBS), help='notebook folder (default nbs/)')
    ap.add_argument('--force', action='store_true', help='re-process every notebook (ignore the cache)')
    a = ap.parse_args()
    try: build(Path(a.out), Path(a.work), a.jobs, a.force, nbs=Path(a.nbs))
    except DocsError as e: sys.exit(f'make docs: {e}')
