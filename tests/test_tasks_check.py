"""Every task in data/tasks passes `check_task`: its reference trajectory runs under H0 in the sandbox and meets its `[expect]`;
a step whose command is missing (exit 127) fails the check unless `expect.exit_codes` declares it.

SWE-bench instances need their own Python and take 20-60 s each: one of them (CI_INSTANCE) is prepared and checked here, the
rest by `hibd tasks prepare --group swebench && hibd tasks check --group swebench --json` (its record is committed in
data/bench/swebench_check.json and tested in test_bench.py)."""
import pytest
from hibd.tasks import load_task, load_tasks
from hibd.harnesses import check_task
from hibd.bench import prepare
from conftest import mini_mean_task

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


def _typo_task(tmp, exit_codes=''):
    "`mini_mean_task` (under `tmp`) with step 3 a command that does not exist, and `exit_codes` appended to [expect]."
    root = tmp/'mini_mean'
    mini_mean_task(root, {})
    f = root/'task.toml'
    f.write_text(f.read_text().replace('"cat src/stats.py"', '"no_such_command_xyz --version"') + exit_codes)
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
