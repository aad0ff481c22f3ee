"""Every task in data/tasks passes `check_task`: its reference trajectory runs under H0 in the sandbox and meets its `[expect]`;
a step whose command is missing (exit 127, or hidden by a pipe) fails the check unless `expect.exit_codes` declares it.

SWE-bench instances need their own Python and take 20-60 s each: one of them (CI_INSTANCE) is prepared and checked here, the
rest by `hibd tasks prepare --group swebench && hibd tasks check --group swebench --json` (its record is committed in
data/bench/swebench_check.json and tested in test_bench.py)."""
import json
import pytest
from hibd.tasks import load_task, load_tasks
from hibd.harnesses import check_task
from hibd.tasks import NO_PREPARE, prepare
from conftest import mini_mean_task
from test_tasks import HERE, tiny_wheel

CI_INSTANCE = 'swe_pytest_7432'
TASKS = [t for t in load_tasks() if t.group != 'swebench'] + [load_task(CI_INSTANCE)]

def test_there_are_tasks():
    assert len(TASKS) >= 8

@pytest.mark.parametrize('task', TASKS, ids=[t.id for t in TASKS])
def test_check_task(task):
    prepare([task])          # a SWE-bench instance: its Python 3.9 environment, built once into the cache (from PyPI)
    r = check_task(task)
    assert r['problems'] == [] and r['ok'], '\n'.join(r['problems'])
    assert (r['full_before'], r['full_after']) == (task.expect['full_before'], task.expect['full_after'])
    assert len(r['steps']) == len(task.trajectory)
    risky = {s['step']: s['risk_class'] for s in r['steps'] if s['risk_class']}
    assert risky == task.expect['risky_steps']
    if task.group == 'swebench':   # FAIL_TO_PASS really flips: it fails before the gold patch and all of it passes after
        f2p = task.source['FAIL_TO_PASS']
        assert r['fail_to_pass']['before'].get('failed', 0) + r['fail_to_pass']['before'].get('error', 0) >= 1, r['fail_to_pass']
        assert r['fail_to_pass']['after'].get('passed') == len(f2p) and not r['fail_to_pass']['after'].get('failed'), r['fail_to_pass']


def _typo_task(tmp, exit_codes='', step='no_such_command_xyz --version'):
    "`mini_mean_task` (under `tmp`) with step 3 `step` (a missing command), and `exit_codes` appended to [expect]."
    root = tmp/'mini_mean'
    mini_mean_task(root, {})
    f = root/'task.toml'
    f.write_text(f.read_text().replace('"cat src/stats.py"', json.dumps(step)) + exit_codes)
    return load_task(root)

def test_missing_trajectory_command_is_a_problem(tmp_path):
    "A trajectory step whose command does not exist exits 127 and fails the check, naming the step and the code."
    r = check_task(_typo_task(tmp_path))
    assert not r['ok'] and r['steps'][2]['exit_code'] == 127
    assert len(r['problems']) == 1, r['problems']
    p = r['problems'][0]
    assert p.startswith('mini_mean: step 3 `no_such_command_xyz --version` exited with 127 (command not found'), p
    assert 'expect.exit_codes = { 3 = 127 }' in p

def test_declared_exit_codes_are_compared_exactly(tmp_path):
    "A declared 127 passes; a declared code that the step does not give is a problem."
    assert check_task(_typo_task(tmp_path/'a', 'exit_codes = { 3 = 127 }\n'))['problems'] == []
    r = check_task(_typo_task(tmp_path/'b', 'exit_codes = { 3 = 127, 2 = 0 }\n'))
    assert r['problems'] == ['mini_mean: step 2 `python -m pytest -q`: expected exit code 0, got 1']
    assert check_task(_typo_task(tmp_path/'c', 'exit_codes = { 3 = [1, 127] }\n'))['problems'] == []   # any of these
    r = check_task(_typo_task(tmp_path/'d', 'exit_codes = { 3 = [1, 2] }\n'))
    assert r['problems'] == ['mini_mean: step 3 `no_such_command_xyz --version`: expected exit code 1 or 2, got 127']

# ---- a command that never ran, hidden from the exit code (issue 33, item 11) ----
def test_piped_missing_command_is_a_problem(tmp_path):
    "`frobnicate_xyz --all | cat` exits 0 (the pipeline's last command), but the shell said it found no such command."
    r = check_task(_typo_task(tmp_path, step='frobnicate_xyz --all | cat'))
    assert r['steps'][2]['exit_code'] == 0
    assert r['problems'] == ['mini_mean: step 3 `frobnicate_xyz --all | cat`: frobnicate_xyz (command not found) never '
                             'ran, though the step exited with 0 (a pipe or list hides it); fix the command, or '
                             'declare expect.exit_codes = { 3 = 0 } if the step is meant to run so'], r['problems']
    assert not r['ok']

@pytest.mark.parametrize('step, gone', [
    ('typo_xyz || true', 'typo_xyz (command not found)'),
    ('x=$(typo_xyz); echo "$x"', 'typo_xyz (command not found)'),
    ('timeout 5 typo_xyz | cat', 'typo_xyz (No such file or directory)'),
    ('sh -c typo_xyz | cat', 'typo_xyz (not found)'),
    ('chmod -x tests/test_stats.py && ./tests/test_stats.py | cat', './tests/test_stats.py (Permission denied)'),
    ('./missing.sh 2>&1 >/dev/null | cat >&2', './missing.sh (No such file or directory)')])
def test_other_hidden_not_run_commands(tmp_path, step, gone):
    "A list, a substitution, a wrapper, `sh -c`, a file not executable, one missing: each hidden, each found."
    r = check_task(_typo_task(tmp_path, step=step))
    assert len(r['problems']) == 1, r['problems']
    assert f': {gone} never ran, though the step exited with ' in r['problems'][0], r['problems']

LEGIT = ['yes | head -n 2', 'grep -n nothing_here src/stats.py | head -n 40', 'cat src/stats.py | head -n 1 >/dev/null',
         'ls nodir 2>&1 | cat', 'echo hi > nodir/out.txt || true']

def test_legitimate_pipelines_and_declared_steps_pass(tmp_path):
    "A pipeline cut short, one whose first command finds nothing, a missing file or redirection target: no problem."
    for i, step in enumerate(LEGIT):
        r = check_task(_typo_task(tmp_path/str(i), step=step))
        assert r['problems'] == [], (step, r['problems'])
    r = check_task(_typo_task(tmp_path/'declared', 'exit_codes = { 3 = 0 }\n', step='frobnicate_xyz --all | cat'))
    assert r['problems'] == [], r['problems']          # declared: the author says the step is meant to run so

def test_verifier_that_passes_without_running_is_a_problem(tmp_path):
    "A full verifier whose test command is missing but piped: it 'passes' before and after; both runs are named."
    root = tmp_path/'mini_mean'; mini_mean_task(root, {})
    f = root/'task.toml'
    f.write_text(f.read_text().replace('command = "python -m pytest -q"', 'command = "cd . && pytset -q | tail -n 1"'))
    r = check_task(load_task(root))
    assert [p for p in r['problems'] if 'never ran' in p] == [
        f"mini_mean: verifier 'tests' {w} the trajectory passed, but pytset (command not found) never ran: its pass "
        'means nothing; fix its command' for w in ('before', 'after')], r['problems']

# ---- the first check on a new machine prepares the task's own Python (issue 33, item 14) ----
FULL_IN_ENV = ("python -c 'import tinyhibd, sys; sys.path.insert(0, \"src\"); from stats import mean; "
               "assert mean([1, 2, 3]) == 2'")

def _env_task(tmp):
    "`mini_mean_task` with a Python of its own holding a package made here (`tinyhibd`) that its full verifier imports."
    root = tmp/'mini_mean'; mini_mean_task(root, {})
    f = root/'task.toml'
    f.write_text(f.read_text().replace('command = "python -m pytest -q"', f'command = {json.dumps(FULL_IN_ENV)}')
                 + f'[env]\npython = "{HERE}"\npackages = [{json.dumps(str(tiny_wheel(tmp)))}]\n')
    return load_task(root)

def test_check_prepares_the_environment_on_first_use(tmp_path, monkeypatch, capsys):
    "On an empty cache, `check_task` builds the environment (one line on stderr) and the verifiers run inside it."
    monkeypatch.setenv('HIBD_CACHE', str(tmp_path/'cache')); monkeypatch.delenv(NO_PREPARE, raising=False)
    monkeypatch.setenv('PIP_NO_INDEX', '1')
    t = _env_task(tmp_path)
    r = check_task(t)
    assert r['ok'] and r['problems'] == [] and (r['full_before'], r['full_after']) == ('fail', 'pass'), r['problems']
    assert capsys.readouterr().err.count('hibd: preparing the Python') == 1
    assert t.env.record()['key'] == t.env.key

def test_check_refuses_to_prepare_when_told(tmp_path, monkeypatch):
    "`check_task(prepare=False)` (or HIBD_NO_PREPARE=1): one problem that names the command to run; nothing built."
    monkeypatch.setenv('HIBD_CACHE', str(tmp_path/'cache')); monkeypatch.delenv(NO_PREPARE, raising=False)
    t = _env_task(tmp_path)
    want = [f"mini_mean: the workspace could not be prepared: {t.path/'task.toml'}: env: the Python {HERE} environment "
            f'is not prepared ({t.env.folder}) and preparing it on first use is off (--no-prepare or '
            'HIBD_NO_PREPARE=1): run `hibd tasks prepare mini_mean`']
    assert check_task(t, prepare=False)['problems'] == want
    monkeypatch.setenv(NO_PREPARE, '1')
    assert check_task(t)['problems'] == want
    assert not (tmp_path/'cache').exists()
