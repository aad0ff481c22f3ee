"""The command line: user errors are one `hibd: ` line with exit status 2 (`--debug` adds the traceback); `hibd run` says
truly why there is no table and exits 1 when rollouts failed; `hibd sandbox exec` keeps the words after `--` as given."""
import json, shutil
import pytest
from click.testing import CliRunner
from hibd.cli import main
from hibd.runs import RunLock
from hibd.schema import example_belief

TASK = 'code_variance_off_by_one'


def hibd(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def config(tmp, name, harnesses, replies, seeds=(0,)):
    "A K=1 sweep of `TASK` over `harnesses` whose model is scripted with `replies` (raw model texts)."
    (tmp/f'{name}.json').write_text(json.dumps(replies))
    f = tmp/f'{name}.toml'
    f.write_text(f'name = "{name}"\ntasks = ["{TASK}"]\nharnesses = {json.dumps(harnesses)}\nK = [1]\nseeds = {json.dumps(list(seeds))}\n'
                 f'[model]\nspec = "scripted:{tmp/(name + ".json")}"\n')
    return f


GOOD = [json.dumps(example_belief())]
BAD = ['{"belief_state": "not a belief"}']


def user_error(r, *words):
    "`r` is a user error: status 2, one `hibd: ` line on stderr holding `words`, no traceback."
    assert r.exit_code == 2, r.output
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith('hibd: '), r.stderr
    assert 'Traceback' not in r.output, r.output
    for w in words: assert w in lines[0], lines[0]


# ---------------------------------------------------------------------------------------------------------------
# user errors: one line, exit 2

def test_bad_config_file(tmp_path):
    f = tmp_path/'bad.toml'
    f.write_text(config(tmp_path, 'bad', ['H0'], GOOD).read_text().replace('K = [1]', 'K = "one"'))
    user_error(hibd('run', f), 'bad.toml: K: ')


def test_invalid_toml(tmp_path):
    f = tmp_path/'broken.toml'; f.write_text('name = "x\n')
    user_error(hibd('run', f), 'broken.toml: not valid TOML')


def test_unknown_task_id():
    user_error(hibd('tasks', 'check', 'no_such_task'), 'unknown task ids in', 'no_such_task')
    user_error(hibd('sandbox', 'exec', 'no_such_task', '--', 'ls'), "unknown task id 'no_such_task'")


def test_unknown_harness_id():
    user_error(hibd('sandbox', 'exec', TASK, '-H', 'H9', '--', 'ls'), "unknown harness id 'H9'", 'H0, H1')


def test_unknown_harness_in_config(tmp_path):
    user_error(hibd('run', config(tmp_path, 'h9', ['H0', 'H9'], GOOD)), 'unknown harness ids')


def test_bad_model_spec(tmp_path):
    "Item 12: a bad --model spec is one line, and no run directory is created for it."
    r = hibd('run', config(tmp_path, 'spec', ['H0'], GOOD), '--out', tmp_path/'run', '--model', 'bogus')
    user_error(r, "unknown model spec 'bogus'")


def test_locked_run_dir(tmp_path):
    cfg = config(tmp_path, 'locked', ['H0'], GOOD)
    (tmp_path/'run').mkdir()
    with RunLock(tmp_path/'run'):            # another sweep is writing it
        user_error(hibd('run', cfg, '--out', tmp_path/'run'), 'is writing this run directory')


def test_debug_shows_the_traceback():
    r = hibd('--debug', 'tasks', 'check', 'no_such_task')
    assert r.exit_code == 2, r.output
    assert 'Traceback' in r.stderr and 'TaskError' in r.stderr, r.stderr
    assert r.stderr.splitlines()[-1].startswith('hibd: unknown task ids in'), r.stderr


def test_a_bug_keeps_its_traceback(monkeypatch):
    "Only hibd's user errors are shortened: anything else is a bug and escapes as it is."
    def boom(*a, **k): raise ZeroDivisionError('a bug')
    import hibd.tasks as T
    monkeypatch.setattr(T, 'load_tasks', boom)           # the command imports it when it runs
    r = hibd('tasks', 'list')
    assert isinstance(r.exception, ZeroDivisionError)


# ---------------------------------------------------------------------------------------------------------------
# hibd run: what happened, and the exit status

@pytest.fixture(scope='module')
def invalid_run(tmp_path_factory):
    "Two harnesses, every belief schema-invalid."
    tmp = tmp_path_factory.mktemp('invalid')
    cfg = config(tmp, 'two', ['H0', 'H2'], BAD)
    return tmp, cfg, hibd('run', cfg, '--out', tmp/'run')


def test_one_harness_says_so(tmp_path):
    r = hibd('run', config(tmp_path, 'one', ['H0'], GOOD), '--out', tmp_path/'run')
    assert r.exit_code == 0, r.output
    assert 'no pair to compare: the config names one harness (H0)' in r.stdout, r.output


def test_every_belief_invalid(invalid_run):
    "Two harnesses: the sentence says no belief passed validation (not 'one harness'), where the raw text is, and exit 1."
    tmp, _, r = invalid_run
    assert r.exit_code == 1, r.output
    assert 'none of the 4 beliefs passed schema validation' in r.stdout and 'one harness' not in r.output, r.output
    problems = [l for l in r.stderr.splitlines() if 'schema validation' in l]
    assert len(problems) == 1 and problems[0].startswith('hibd: 4 of 4 beliefs failed schema validation'), r.stderr
    assert str(tmp/'run'/'rollouts') in problems[0]


def test_errored_rollouts_exit_1(invalid_run, tmp_path):
    "Rollouts that raised (a replayed cache without these calls) make `hibd run` exit 1 and say how many."
    tmp, cfg, _ = invalid_run
    seed5 = tmp_path/'seed5.toml'; seed5.write_text(cfg.read_text().replace('seeds = [0]', 'seeds = [5]'))
    r = hibd('run', seed5, '--out', tmp_path/'run', '--model', f'replay:{tmp/"run"/"calls.jsonl"}')
    assert r.exit_code == 1, r.output
    assert 'hibd: 2 of 2 rollouts failed with an error and are left for a resume' in r.stderr, r.stderr
    assert 'no cached call' in r.stderr and 'Traceback' not in r.output


def test_incomplete_rollouts_exit_1(invalid_run, tmp_path):
    "Rollouts that did not finish (status.json `incomplete`: a model call timed out) are reported and make the outcome 1."
    from hibd.cli import run_outcome
    d = tmp_path/'run'; shutil.copytree(invalid_run[0]/'run', d)
    st = json.loads((d/'status.json').read_text())
    (d/'status.json').write_text(json.dumps({**st, 'errors': {}, 'incomplete': {'r1': 'CallIncomplete: timeout after 60 s'}}))
    o = run_outcome(d)
    assert o['exit_code'] == 1 and o['problems'][0].startswith('1 of 2 rollouts did not finish and are left for a resume'), o
    assert o['problems'][0].endswith('the first: r1: CallIncomplete: timeout after 60 s'), o


def test_finished_run_exit_0(tmp_path):
    "Two harnesses with valid beliefs: the table, exit 0, no problem line."
    r = hibd('run', config(tmp_path, 'ok', ['H0', 'H2'], GOOD), '--out', tmp_path/'run')
    assert r.exit_code == 0, r.output
    assert 'D_belief' in r.stdout and 'H2' in r.stdout, r.output
    assert not [l for l in r.stderr.splitlines() if l.startswith('hibd: ')], r.stderr


# ---------------------------------------------------------------------------------------------------------------
# hibd sandbox exec: the words after --

def test_exec_keeps_arguments():
    "Several words are argv: an argument with spaces and quotes stays one argument."
    r = hibd('sandbox', 'exec', TASK, '--', 'python3', '-c', 'print("a  b")')
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out['command'] == """python3 -c 'print("a  b")'"""
    assert out['observation'].splitlines()[-2:] == ['a  b', '[exit code 0]'], out['observation']


def test_exec_one_word_is_a_shell_line():
    r = hibd('sandbox', 'exec', TASK, '--', 'ls tests | wc -l')
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out['command'] == 'ls tests | wc -l'
    assert out['observation'].splitlines()[-2].strip().isdigit(), out['observation']


# ---------------------------------------------------------------------------------------------------------------
# the first screen of hibd run (issue 20)

def test_quickstart_first_screen_from_its_cache(tmp_path):
    "The shipped quickstart replayed from its calls at the default mode (auto): every key still hits, and the screen is short."
    out = tmp_path/'q'
    r = hibd('run', 'configs/quickstart.toml', '--out', out, '--model', 'replay:data/runs/quickstart/calls.jsonl')
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert len(lines) <= 25, r.stdout
    assert f'report: hibd report {out}' in lines and 'no noise reference' in r.stdout and '(seeds = [0, 1])' in r.stdout, r.stdout
    assert 'exactly 0 because both harnesses asked the same prompts' in r.stdout and (out/'summary.csv').is_file()
    man, shipped = (json.loads((d/'manifest.json').read_text()) for d in (out, __import__('pathlib').Path('data/runs/quickstart')))
    assert man['run_id'] == shipped['run_id'] and (man['model']['mode'], man['model']['mode_used']) == ('auto', ['tools'])
    assert json.loads((out/'status.json').read_text())['run_beliefs'] == 21


def test_record_code_first_screen_has_the_noise_reference():
    "A shipped run with seeds (read, not re-run): the largest pairs are set against the seed noise."
    from hibd.cli import first_screen, run_outcome
    lines = first_screen('data/runs/record_code', run_outcome('data/runs/record_code'))
    text = '\n'.join(lines)
    assert len(lines) <= 24 and 'largest excess divergences' in text and 'noise 0.' in text, text
    assert 'no noise reference' not in text and 'report: hibd report data/runs/record_code' in lines, text


def test_failed_beliefs_named_on_the_first_screen(tmp_path):
    "Beliefs that failed validation: the screen counts them and names the file with their raw text; --table as before."
    r = hibd('run', config(tmp_path, 'mixed', ['H0', 'H2'], BAD * 3 + GOOD), '--out', tmp_path/'run')
    assert r.exit_code == 0, r.output
    assert 'failed: their raw text is under raw_texts' in r.stdout and 'rollouts/' in r.stdout, r.stdout
    t = hibd('run', config(tmp_path, 'mixed', ['H0', 'H2'], BAD * 3 + GOOD), '--out', tmp_path/'run', '--table')
    assert 'floor(D_belief)' in t.stdout and 'report:' not in t.stdout, t.stdout


# ---------------------------------------------------------------------------------------------------------------
# issue 33: bad input is one clear line (exit 2), and nothing is made or half-written

def test_bad_values_are_one_line_and_make_nothing(tmp_path):
    "A binary config, `inf`, `seeds = [true]`, names leaving runs/, a model that cannot answer: one line, no directory."
    base = config(tmp_path, 'v', ['H0'], GOOD).read_text()
    binary = tmp_path/'binary.toml'; binary.write_bytes(bytes(range(256)))
    user_error(hibd('run', binary, '--out', tmp_path/'run'), 'binary.toml: not a text file (byte 128 is not UTF-8)')
    finite = 'expected a finite number, got inf'
    cases = [(base + 'call_timeout = inf\n', f'model.call_timeout: {finite}'),                 # was a ValueError
             (base.replace('K = [1]', 'K = [1]\ntemperature = inf'), f'temperature: {finite}'),   # was a JSON error
             (base.replace('seeds = [0]', 'seeds = [true]'), 'seeds[0]: expected an integer, got true'),   # was seed 1
             (base.replace('name = "v"', 'name = ""'), 'name: expected a plain folder name'),
             (base.replace('name = "v"', 'name = "../../x"'), 'name: expected a plain folder name'),
             (base.replace('name = "v"', f'name = "{tmp_path}/abs"'), 'name: expected a plain folder name')]
    for i, (text, msg) in enumerate(cases):
        f = tmp_path/f'c{i}.toml'; f.write_text(text)
        user_error(hibd('run', f, '--out', tmp_path/'run'), f'c{i}.toml: {msg}')
        user_error(hibd('run', f), f'c{i}.toml: {msg}')                        # without --out: runs/<name>, never made
    for spec, msg in [('scripted:/missing', 'cannot read /missing'),
                      ('local:/missing.gguf', 'no model file at /missing'),
                      ('replay', 'no recorded calls at')]:
        r = hibd('run', config(tmp_path, 'v', ['H0'], GOOD), '--out', tmp_path/'run', '--model', spec)
        user_error(r, f'--model): {spec}: ', msg)
    assert not (tmp_path/'run').exists() and not (tmp_path/'abs').exists() and not (tmp_path.parent/'x').exists()


def test_plan_inputs_are_one_line(tmp_path):
    "`hibd plan`: --delta, --power, --alpha, --ref, a pilot of identical beliefs: one line each (were tracebacks)."
    between = 'expected a number strictly between 0 and 1'
    for args, msg in [(('--power', '2', '--alpha', '0'), f'--power: {between}, got 2.0; --alpha: {between}, got 0.0'),
                      (('--delta', '-1'), '--delta: expected a finite number > 0, got -1.0'),
                      (('--delta', 'nan'), '--delta: expected a finite number > 0, got nan')]:
        user_error(hibd('plan', tmp_path, *args), msg)                          # checked before the run is read
    user_error(hibd('plan', 'data/runs/quickstart', '--ref', 'H9'), '--ref H9: not a harness of data/runs/quickstart',
               'H0, H1')
    cfg = config(tmp_path, 'same', ['H0', 'H2'], GOOD, seeds=(0, 1))       # one scripted reply: every belief identical
    assert hibd('run', cfg, '--out', tmp_path/'run').exit_code == 0
    user_error(hibd('plan', tmp_path/'run'), 'every pair of the family gave identical beliefs on both sides')


def test_manifest_of_the_wrong_type_is_one_line(invalid_run, tmp_path):
    "A manifest with `K = \"two\"`: `hibd report` and `hibd run` name the file and field (was a TypeError)."
    tmp, cfg, _ = invalid_run
    d = tmp_path/'run'; shutil.copytree(tmp/'run', d)
    m = json.loads((d/'manifest.json').read_text()); m['design']['K'] = 'two'
    (d/'manifest.json').write_text(json.dumps(m))
    user_error(hibd('report', d), f'{d}/manifest.json: design.K: expected a list, got "two"')
    user_error(hibd('run', cfg, '--out', d), f'{d}/manifest.json: design.K: expected a list, got "two"')


def test_damaged_status_is_named(invalid_run, tmp_path):
    "A status.json of 0 bytes (a write cut by a full disk): `hibd report` names it on one line (was a JSONDecodeError)."
    d = tmp_path/'run'; shutil.copytree(invalid_run[0]/'run', d)
    (d/'status.json').write_text('')
    user_error(hibd('report', d), f'{d}/status.json: damaged: empty; run `hibd run CONFIG --out {d}` again')


@pytest.fixture
def full_disk(tmp_path):
    "A 40 kB tmpfs (root only): a disk that fills up during a run."
    import os, subprocess
    if os.geteuid() != 0: pytest.skip('mounting a tmpfs needs root')
    mnt = tmp_path/'full'; mnt.mkdir()
    if subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=40k', 'tmpfs', str(mnt)], capture_output=True).returncode:
        pytest.skip('cannot mount a tmpfs here')
    try: yield mnt
    finally: subprocess.run(['umount', '-l', str(mnt)], check=True)


def test_full_disk_is_one_line_and_leaves_whole_files(tmp_path, full_disk):
    "`--out` on a full disk: one line naming the file, nothing half-written (was a traceback and a 0-byte status.json)."
    out = full_disk/'run'
    r = hibd('run', config(tmp_path, 'full', ['H0', 'H2'], GOOD, seeds=(0, 1)), '--out', out)
    assert r.exit_code == 2, r.output
    lines = [l for l in r.stderr.splitlines() if l.startswith('hibd: ')]
    assert len(lines) == 1 and 'cannot write it (No space left on device)' in lines[0], r.output
    assert 'Traceback' not in r.output, r.output
    files = [p for p in out.rglob('*') if p.is_file()]
    assert not [p for p in files if p.name.endswith('.tmp')], files                  # no temporary file left behind
    assert not [p for p in files if p.stat().st_size == 0 and p.name != '.lock'], files   # nothing cut to 0 bytes
    from hibd.runs import read_rollouts, read_status
    json.loads((out/'manifest.json').read_text()); read_status(out); read_rollouts(out)  # what is there is whole
    r = hibd('report', out)
    assert r.exit_code in (0, 2) and 'Traceback' not in r.output, r.output
    if r.exit_code == 2: user_error(r, f'{out}/report: cannot write the report (No space left on device')
