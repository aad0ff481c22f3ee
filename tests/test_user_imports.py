"""Your code from a file, seen from outside the package: a user file adds a harness (two places: the file and the
config), `hibd run` (a real process, scripted model) records the file's path, hash and source in the manifest,
`hibd report` loads it again, and refuses (exit 2, one line) once the file has changed or is gone."""
import hashlib, json, shutil, subprocess, sys
from pathlib import Path
import pytest
from hibd.schema import example_belief

ROOT = Path(__file__).resolve().parent.parent
USER_FILE = ROOT/'nbs'/'tutorials'/'my_harnesses.py'      # the tutorial's example, copied: the test edits its copy
TASK = 'code_variance_off_by_one'


def hibd(*args):
    "Run the `hibd` command in its own process (nothing registered here leaks into other tests)."
    exe = Path(sys.executable).parent/'hibd'
    return subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True, cwd=ROOT, timeout=600)


def config(d: Path, imports=('my_harnesses.py',), harnesses=('H0', 'H6')) -> Path:
    "A K = 1 sweep of `TASK` over `harnesses`, scripted model, importing `imports` (relative to the config)."
    (d/'replies.json').write_text(json.dumps([json.dumps(example_belief())]))
    f = d/'h6.toml'
    f.write_text(f'name = "h6"\nimports = {json.dumps(list(imports))}\ntasks = ["{TASK}"]\n'
                 f'harnesses = {json.dumps(list(harnesses))}\nK = [1]\nseeds = [0]\n'
                 f'[model]\nspec = "scripted:{d/"replies.json"}"\nmax_retries = 0\n')
    return f


def one_line_error(r, *words):
    "`r` is a user error: exit 2, one `hibd: ` line on stderr holding `words`, no traceback."
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith('hibd: ') and 'Traceback' not in r.stderr, r.stderr
    for w in words: assert w in lines[0], (w, lines[0])


@pytest.fixture(scope='module')
def run(tmp_path_factory):
    "The run of H0 and H6 (H6 from the user file), made once for the tests below."
    d = tmp_path_factory.mktemp('user')
    shutil.copy(USER_FILE, d/'my_harnesses.py')
    r = hibd('run', config(d), '--out', d/'run')
    assert r.returncode == 0, (r.stdout, r.stderr)
    return d


def test_run_records_the_file(run):
    man = json.loads((run/'run'/'manifest.json').read_text())
    src = (run/'my_harnesses.py').read_text()
    sha = hashlib.sha256(src.encode()).hexdigest()
    assert man['imports'] == [{'path': str(run/'my_harnesses.py'), 'sha256': sha, 'source': src}]
    assert man['config']['imports'] == ['my_harnesses.py'] and man['design']['harnesses'] == ['H0', 'H6']
    card = man['harness_cards']['H6']
    trimmed = {'policy': 'TrimmedObservation', 'head': 0, 'tail': 200}
    assert (card['name'], card['policies']['observe']) == ('tail-200', trimmed)
    assert 'last 200 characters' in card['slots']['observe']
    assert card['policies']['gate'] == man['harness_cards']['H0']['policies']['gate']     # H0 but for the observe slot
    assert (run/'run'/'rollouts'/f'{TASK}__H6__s0__K1.jsonl').is_file()


def test_report_reloads_the_file(run):
    r = hibd('report', run/'run', '--out', run/'report')
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert (run/'report'/'report.html').is_file()


def test_unknown_without_the_import(tmp_path):
    r = hibd('run', config(tmp_path, imports=()), '--out', tmp_path/'run')
    one_line_error(r, "unknown harness ids ['H6']", 'imports')
    assert not (tmp_path/'run').exists()


def test_import_flag(tmp_path):
    "`hibd run --import FILE` (relative to the working directory) does what the config key does."
    shutil.copy(USER_FILE, tmp_path/'mine.py')
    r = hibd('run', config(tmp_path, imports=()), '--out', tmp_path/'run', '--import', tmp_path/'mine.py')
    assert r.returncode == 0, (r.stdout, r.stderr)
    man = json.loads((tmp_path/'run'/'manifest.json').read_text())
    assert [x['path'] for x in man['imports']] == [str(tmp_path/'mine.py')]


def test_bad_imports_make_nothing(tmp_path):
    f = tmp_path/'my_harnesses.py'
    run = lambda *imports: hibd('run', config(tmp_path, *imports), '--out', tmp_path/'run')
    f.write_text('from hibd.harnesses import H0\nH6 = variant(H0, "H6",\n')
    one_line_error(run(), 'h6.toml: imports: ', str(f), 'SyntaxError')
    f.write_text('from hibd.harnesses import H0\nH6 = variant(H0, "H6", "x")\n')
    one_line_error(run(), f'{f}:2: importing it raised NameError')
    f.unlink()
    one_line_error(run(), f'{f}: no such file to import')
    (tmp_path/'taken.py').write_text(USER_FILE.read_text().replace("'H6'", "'H2'"))
    one_line_error(run(('taken.py',)), "harness id 'H2' is taken by")
    shutil.copy(USER_FILE, f)
    r = hibd('run', config(tmp_path), '--out', tmp_path/'run', '--scheduler', 'tcp://127.0.0.1:9')
    one_line_error(r, 'imports are loaded in this process only, not on Dask workers')
    assert not (tmp_path/'run').exists()


def test_changed_file_refused(run):
    "After an edit, a resume and the report are refused, naming the file and both hashes (last: it edits the file)."
    f = run/'my_harnesses.py'
    old = hashlib.sha256(f.read_bytes()).hexdigest()
    f.write_text(f.read_text().replace('tail=200', 'tail=100'))
    new = hashlib.sha256(f.read_bytes()).hexdigest()
    one_line_error(hibd('report', run/'run', '--out', run/'report2'), str(f), f'sha256 {old[:12]} then, {new[:12]} now')
    assert not (run/'report2').exists()
    one_line_error(hibd('run', run/'h6.toml', '--out', run/'run'), 'the run was recorded with other imports', str(f))
    f.unlink()
    one_line_error(hibd('report', run/'run', '--out', run/'report2'),
                   f'the run imported {f} (sha256 {old[:12]}), which cannot be read')


SECTION_FILE = '''"""A report section of my own: the share of steps whose command exited 0, per harness."""
from hibd.report import report_section

@report_section('exit_zero', 'Commands that exited 0', after='header')
def exit_zero(d, s):
    t = d.run.assign(zero=d.run.observation.str.contains(r'\\[exit code 0\\]')).groupby('harness').zero.mean()
    s.text('The share of steps whose observation ends with exit code 0.')
    s.table('exit_zero', t.rename('share').reset_index())
'''


def test_a_report_section_from_a_file(tmp_path):
    "A section of one's own: the file (one decorator) and the config's `imports`; `hibd report` numbers it in place."
    shutil.copy(USER_FILE, tmp_path/'my_harnesses.py')
    (tmp_path/'my_section.py').write_text(SECTION_FILE)
    r = hibd('run', config(tmp_path, imports=('my_harnesses.py', 'my_section.py')), '--out', tmp_path/'run')
    assert r.returncode == 0, (r.stdout, r.stderr)
    r = hibd('report', tmp_path/'run', '--out', tmp_path/'rep')
    assert r.returncode == 0, (r.stdout, r.stderr)
    idx = json.loads((tmp_path/'rep'/'index.json').read_text())
    keys = [s['key'] for s in idx['sections']]
    assert keys[:3] == ['headline', 'header', 'exit_zero'], keys
    mine = idx['sections'][2]
    assert mine['status'] == 'ok', mine
    md = (tmp_path/'rep'/'report.md').read_text()
    assert '## 2. Commands that exited 0' in md and '## 3. Coverage' in md, md[:2000]
