"The task format, its validation errors, and the reference trajectories of the code/verify_cost/timeout tasks (replayed on the host)."
import base64, fcntl, hashlib, json, os, select, shutil, signal, subprocess, sys, tempfile, threading, time, zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
import pytest
from hibd.tasks import NO_PREPARE, TASK_GROUPS, TASKS_DIR, Task, TaskError, load_task, load_tasks

MINE = ('code_', 'cost_', 'timeout_')  # this file replays only these: risky_* tasks are for the sandbox

GOOD = '''id = "t_demo"
group = "code"
title = "demo"
instruction = "fix it"
target_state = "tests pass"
expected_failure_modes = ["test_loop"]

[[verifiers]]
name = "tests"
command = "python -m pytest -q"
strength = "full"
cost = 10

[[risky]]
pattern = '\\brm\\s+-rf\\b'
risk_class = "delete"

[trajectory]
commands = ["ls", "cat a.py", "python -m pytest -q", "rm -rf build", "python -m pytest -q", "git diff"]

[expect]
full_before = "fail"
full_after = "pass"
risky_steps = { 4 = "delete" }
'''

def make_task(tmp, text=GOOD, name='t_demo', repo=True):
    d = Path(tmp)/name; d.mkdir(parents=True)
    (d/'task.toml').write_text(text)
    if repo: (d/'repo').mkdir()
    return d

def edited(old, new):
    assert old in GOOD, old
    return GOOD.replace(old, new)

def test_good_task_loads(tmp_path):
    t = load_task(make_task(tmp_path))
    assert isinstance(t, Task) and t.id == 't_demo' and t.full.name == 'tests' and t.verifier('cheap') is None
    assert t.expect == {'full_before': 'fail', 'full_after': 'pass', 'risky_steps': {4: 'delete'}}
    assert t.risky[0].matches('rm -rf build') and not t.risky[0].matches('rm build.txt')
    assert t.repo == tmp_path/'t_demo'/'repo' and t.command_timeout == 30 and t.setup == ()
    assert load_task('t_demo', root=tmp_path) == t and load_task(tmp_path/'t_demo'/'task.toml') == t
    with pytest.raises(dataclasses_frozen_error()): t.id = 'x'

def dataclasses_frozen_error():
    import dataclasses; return dataclasses.FrozenInstanceError

BAD = {
    'missing field': (edited('title = "demo"\n', ''), 'task.toml: title: missing'),
    'wrong type': (edited('cost = 10', 'cost = "ten"'), 'verifiers[0].cost: must be a number (got a string)'),
    'wrong type list': (edited('expected_failure_modes = ["test_loop"]', 'expected_failure_modes = "test_loop"'),
                        'expected_failure_modes: must be an array (got a string)'),
    'id mismatch': (edited('id = "t_demo"', 'id = "t_other"'), "id: 't_other' must equal the folder name 't_demo'"),
    'unknown group': (edited('group = "code"', 'group = "kode"'), "group: must be one of code, risky_cmd, verify_cost, timeout, swebench, tbench (got 'kode')"),
    'unknown failure mode': (edited('["test_loop"]', '["test_lop"]'), "expected_failure_modes[0]: must be one of none, search_loop"),
    'unknown risk class': (edited('risk_class = "delete"', 'risk_class = "nuke"'), "risky[0].risk_class: must be one of delete"),
    'bad regex': (edited("pattern = '\\brm\\s+-rf\\b'", "pattern = '(rm'"), "risky[0].pattern: bad regex '(rm': missing ), unterminated subpattern"),
    'no full verifier': (edited('strength = "full"', 'strength = "cheap"'), 'verifiers: needs one verifier with strength = "full"'),
    'bad strength': (edited('strength = "full"', 'strength = "ful"'), "verifiers[0].strength: must be one of cheap, targeted, full (got 'ful')"),
    'missing command': (edited('command = "python -m pytest -q"', 'command = "pytset -q"'), "verifiers[0].command: 'pytset -q': 'pytset' is not on PATH"),
    'missing module': (edited('command = "python -m pytest -q"', 'command = "python3 -m pytset -q"'), "module 'pytset' is not installed"),
    'short trajectory': (edited('"python -m pytest -q", "git diff"]', '"python -m pytest -q"]'), 'trajectory.commands: must have 6-20 commands (got 5)'),
    'long trajectory': (edited('"git diff"]', ', '.join(['"git diff"'] * 16) + ']'), 'trajectory.commands: must have 6-20 commands (got 21)'),
    'risky step outside': (edited('{ 4 = "delete" }', '{ 7 = "delete" }'), 'expect.risky_steps.7: not a step of the trajectory (steps are 1..6)'),
    'risky step class': (edited('{ 4 = "delete" }', '{ 4 = "remove" }'), 'expect.risky_steps.4: must be one of delete'),
    'bad outcome': (edited('full_after = "pass"', 'full_after = "passed"'), "expect.full_after: must be one of pass, fail (got 'passed')"),
    'unknown top-level key': (edited('title = "demo"', 'title = "demo"\ntitel = "demo"'), 'titel: unknown key'),
    'unknown verifier key': (edited('cost = 10', 'cost = 10\nstrenght = "full"'), 'verifiers[0].strenght: unknown key'),
    'negative cost': (edited('cost = 10', 'cost = -1'), 'verifiers[0].cost: must be >= 0 (got -1)'),
    'invalid toml': (edited('title = "demo"', 'title = "demo'), 'task.toml: invalid TOML:'),
}

@pytest.mark.parametrize('case', BAD)
def test_validation_errors(tmp_path, case):
    text, msg = BAD[case]
    d = make_task(tmp_path, text)
    with pytest.raises(TaskError) as e: load_task(d)
    assert msg in str(e.value) and str(d/'task.toml') in str(e.value), str(e.value)

def test_missing_repo_and_toml(tmp_path):
    with pytest.raises(TaskError, match=r'task.toml: repo: folder .*repo is missing'): load_task(make_task(tmp_path, repo=False))
    (tmp_path/'empty').mkdir()
    with pytest.raises(TaskError, match=r'empty/task.toml: missing'): load_task(tmp_path/'empty')
    with pytest.raises(TaskError, match="unknown task id 'nope'"): load_task('nope', root=tmp_path)

def test_load_tasks_filters(tmp_path):
    make_task(tmp_path)
    make_task(tmp_path, GOOD.replace('t_demo', 't_cost').replace('group = "code"', 'group = "verify_cost"'), 't_cost')
    assert [t.id for t in load_tasks(root=tmp_path)] == ['t_cost', 't_demo']
    assert [t.id for t in load_tasks(groups=['verify_cost'], root=tmp_path)] == ['t_cost']
    assert [t.id for t in load_tasks(ids=['t_demo'], root=tmp_path)] == ['t_demo']
    with pytest.raises(TaskError, match='unknown task ids in .*: t_x, t_y'): load_tasks(ids=['t_demo', 't_x', 't_y'], root=tmp_path)
    with pytest.raises(TaskError, match="unknown group 'kode'"): load_tasks(groups=['kode'], root=tmp_path)

def test_hibd_tasks_env(tmp_path, monkeypatch):
    "`$HIBD_TASKS` adds folders to the suite (several joined by the path separator); it does not replace it."
    a, b = tmp_path/'a', tmp_path/'b'; a.mkdir(); b.mkdir()
    make_task(a); make_task(b, GOOD.replace('t_demo', 't_cost').replace('group = "code"', 'group = "verify_cost"'), 't_cost')
    monkeypatch.setenv('HIBD_TASKS', f'{a}{os.pathsep}{b}')
    ids = [t.id for t in load_tasks()]
    assert {'t_demo', 't_cost', 'code_stale_cache_trap'} <= set(ids) and ids == sorted(ids)
    assert load_task('t_cost').path == b/'t_cost'
    make_task(b)                                                   # the same id in two folders
    with pytest.raises(TaskError, match=f"{b/'t_demo'}: task id 't_demo' is taken by {a/'t_demo'}"): load_tasks()
    bad = []; assert 't_cost' in [t.id for t in load_tasks(problems=bad)] and len(bad) == 1

# ---- the real suite ----
TASKS = load_tasks()
OURS = [t for t in TASKS if t.id.startswith(MINE)]

def test_every_task_loads():
    by = {g: [t for t in TASKS if t.group == g] for g in TASK_GROUPS}
    assert len(by['code']) >= 8 and len(by['verify_cost']) >= 3 and len(by['timeout']) >= 3
    assert all(t.id.startswith({'code': 'code_', 'verify_cost': 'cost_', 'timeout': 'timeout_'}[t.group]) for t in OURS)
    assert all(len(t.trajectory) >= 8 for t in by['code'])
    assert [t.id for t in by['code'] if len(t.trajectory) == 20] == ['code_variance_off_by_one']
    assert any(t.expect['risky_steps'] and t.risky for t in by['code'])  # the destructive-action trap
    for t in by['verify_cost']: assert t.full.cost >= 10 * min(v.cost for v in t.verifiers if v.strength != 'full')
    for t in by['timeout']: assert t.full.timeout <= 10 and t.command_timeout <= 5
    assert len(by['swebench']) >= 12 and len({t.source['repo'] for t in by['swebench']}) >= 4 and len(by['tbench']) >= 3
    assert all(t.env and t.env.python and t.source['FAIL_TO_PASS'] for t in by['swebench'])
    assert all(t.workdir == '/app' and dict(t.mounts) == {'/tests': 'tests'} and 'Terminal-Bench-style' in t.title for t in by['tbench'])
    for t in OURS:  # repos are clean: no caches, no nested git
        assert not [p for p in t.repo.rglob('*') if p.name in ('__pycache__', '.pytest_cache', '.git')], t.id
        assert not any('/work/' in c or '/tmp/repo' in c for c in t.trajectory), t.id

# ---- trajectory replay on the host (the sandbox run is `hibd tasks check`, under H0) ----
def host_env(home):
    "Like the sandbox: the venv's bin first on PATH, a private HOME, a git identity."
    env = {k: v for k, v in os.environ.items() if not k.startswith(('PYTHON', 'VIRTUAL_ENV', 'GIT_', 'HIBD_'))}
    env.update(PATH=os.pathsep.join([os.path.dirname(sys.executable), os.environ.get('PATH', '/usr/bin:/bin')]), HOME=str(home),
               GIT_AUTHOR_NAME='hibd', GIT_AUTHOR_EMAIL='hibd@localhost', GIT_COMMITTER_NAME='hibd',
               GIT_COMMITTER_EMAIL='hibd@localhost', GIT_CONFIG_NOSYSTEM='1')
    return env

def run(command, cwd, env, timeout):
    "`bash -c command` in `cwd`; on timeout the whole process group is killed and the exit code is None."
    p = subprocess.Popen(['bash', '-c', command], cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try: return p.communicate(timeout=timeout)[0], p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL); return p.communicate()[0], None

def replay(task):
    with tempfile.TemporaryDirectory() as tmp:
        ws, home = Path(tmp)/'repo', Path(tmp)/'home'; home.mkdir()
        shutil.copytree(task.repo, ws, symlinks=True); env = host_env(home)
        setup = [run(c, ws, env, 30)[1] for c in task.setup]
        full = lambda: 'pass' if run(task.full.command, ws, env, task.full.timeout)[1] == 0 else 'fail'
        before = full()
        steps = [run(c, ws, env, task.command_timeout) for c in task.trajectory]
        return {'setup': setup, 'full_before': before, 'steps': steps, 'full_after': full()}

@pytest.fixture(scope='module')
def replays():
    "All our trajectories at once (they mostly wait on subprocesses and timeouts, so threads overlap well)."
    with ThreadPoolExecutor(6) as ex: return dict(zip([t.id for t in OURS], ex.map(replay, OURS)))

@pytest.mark.parametrize('task', OURS, ids=[t.id for t in OURS])
def test_trajectory_reaches_expected_outcomes(replays, task):
    r = replays[task.id]
    assert r['setup'] == [0] * len(task.setup)
    assert (r['full_before'], r['full_after']) == (task.expect['full_before'], task.expect['full_after'])
    timed_out = [i for i, (_, rc) in enumerate(r['steps'], 1) if rc is None]
    if task.group == 'timeout': assert timed_out, 'a timeout task must hit the per-command timeout'
    else: assert not timed_out, f'steps {timed_out} timed out'
    if task.expect['risky_steps']:  # the trap really bites when nothing blocks it: the step succeeds and a later run fails
        assert all(r['steps'][i - 1][1] == 0 for i in task.expect['risky_steps']) and any(rc for _, rc in r['steps'])

TINY = [t for t in OURS if t.id.startswith('code_tiny_')]

def test_tiny_tasks_are_one_line_fixes(replays):
    "The ladder for a small model (issue 35): one `sed -i` fixes one line of one module; pytest shows the values."
    assert len(TINY) == 6
    for t in TINY:
        assert sum(c.startswith('sed -i ') for c in t.trajectory) == 1, t.id
        assert t.trajectory[-1].startswith('git diff src/'), t.id
        diff = replays[t.id]['steps'][-1][0]
        lines = [l for l in diff.splitlines() if l[:1] in '+-' and not l.startswith(('+++', '---'))]
        assert sum(l[0] == '+' for l in lines) == 1 and sum(l[0] == '-' for l in lines) <= 1, (t.id, diff)
        out, rc = replays[t.id]['steps'][2]                            # step 3: `python -m pytest -q`, still failing
        assert t.trajectory[2] == 'python -m pytest -q' and rc == 1, t.id
        assert 'AssertionError: ' in out and 'expected ' in out and ', got ' in out, (t.id, out)

# ---- a task's own Python, prepared on first use (issue 33, item 14) ----
# Every test here runs on a cache of its own (HIBD_CACHE): a machine that has never seen the environment. The
# interpreter is the one hibd runs on (found without a network); the one package is a wheel made here (PIP_NO_INDEX=1).
HERE = f'{sys.version_info.major}.{sys.version_info.minor}'

def tiny_wheel(folder: Path, name='tinyhibd') -> Path:
    "A pure-Python wheel of package `name` (`VALUE = 42`), written by hand: pip installs it with no index."
    info = f'{name}-0.1.dist-info'
    files = {f'{name}/__init__.py': 'VALUE = 42\n',
             f'{info}/METADATA': f'Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n',
             f'{info}/WHEEL': 'Wheel-Version: 1.0\nGenerator: hibd-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n'}
    digest = lambda t: base64.urlsafe_b64encode(hashlib.sha256(t.encode()).digest()).rstrip(b'=').decode()
    record = [f'{p},sha256={digest(t)},{len(t.encode())}\n' for p, t in files.items()] + [f'{info}/RECORD,,\n']
    files[f'{info}/RECORD'] = ''.join(record)
    whl = folder/f'{name}-0.1-py3-none-any.whl'
    with zipfile.ZipFile(whl, 'w') as z:
        for p, t in files.items(): z.writestr(p, t)
    return whl

def env_task(tmp, packages=(), python=HERE) -> Task:
    "`GOOD` as task `t_env` under `tmp`, with an `[env]` of `python` and `packages`."
    env = f'\n[env]\npython = "{python}"\npackages = {json.dumps([str(p) for p in packages])}\n'
    return load_task(make_task(tmp, GOOD.replace('id = "t_demo"', 'id = "t_env"') + env, 't_env'))

@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    "An empty hibd cache, preparing allowed, pip kept off the network."
    monkeypatch.setenv('HIBD_CACHE', str(tmp_path/'cache')); monkeypatch.delenv(NO_PREPARE, raising=False)
    monkeypatch.setenv('PIP_NO_INDEX', '1')
    return tmp_path/'cache'

def child(code: str, cache: Path, **env) -> subprocess.Popen:
    "Another process running `code` on cache `cache`, its stdout and stderr pipes."
    return subprocess.Popen([sys.executable, '-c', code], env={**os.environ, 'HIBD_CACHE': str(cache), **env},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

def uses(t: Task) -> str:
    "Code for `child`: the first use of `t`'s environment, its record printed as JSON."
    return f'import json; from hibd.tasks import load_task; print(json.dumps(load_task({str(t.path)!r}).environment()))'

def stderr_line(p: subprocess.Popen, starts: str, within=120) -> str:
    "The first line of `p`'s stderr that starts with `starts` (the test fails if none comes `within` seconds)."
    while select.select([p.stderr], [], [], within)[0]:
        line = p.stderr.readline()
        if not line: break
        if line.startswith(starts): return line.rstrip('\n')
    pytest.fail(f'no stderr line starting {starts!r}')

def test_first_use_prepares_with_one_line_and_a_bar(tmp_path, fresh_cache, capsys):
    "An environment this machine never built: `sandbox()` builds it, says so in one line, with a bar; then silent."
    t = env_task(tmp_path/'t', [tiny_wheel(tmp_path)])
    sb = t.sandbox()
    err = capsys.readouterr().err
    said = [l for l in err.replace('\r', '\n').splitlines() if l.startswith('hibd:')]
    assert said == [f'hibd: preparing the Python {HERE} environment of t_env (first use: a venv and 1 pinned package '
                    'from the package index, once for this machine; --no-prepare or HIBD_NO_PREPARE=1 refuses)'], err
    assert f'Python {HERE} environment' in err and '3/3' in err                   # the progress bar, to its end
    venv = str(t.env.folder)
    assert t.env.folder.is_relative_to(fresh_cache/'envs')
    assert sb['mounts'][venv] == venv and sb['env']['VIRTUAL_ENV'] == venv
    out = subprocess.run([f'{venv}/bin/python', '-c', 'import tinyhibd; print(tinyhibd.VALUE)'],
                         capture_output=True, text=True)
    assert out.stdout == '42\n', out.stderr                                        # the pinned package is in it
    assert t.sandbox() == sb and capsys.readouterr().err == ''                      # ready: nothing said, nothing built

def test_refusing_gives_the_old_error_and_builds_nothing(tmp_path, fresh_cache, monkeypatch):
    "`prepare=False`, or HIBD_NO_PREPARE=1 when `prepare` is not given: one TaskError naming file, field and command."
    t = env_task(tmp_path/'t', [tiny_wheel(tmp_path)])
    want = (f"{t.path/'task.toml'}: env: the Python {HERE} environment is not prepared ({t.env.folder}) and preparing "
            'it on first use is off (--no-prepare or HIBD_NO_PREPARE=1): run `hibd tasks prepare t_env`')
    with pytest.raises(TaskError) as e: t.sandbox(prepare=False)
    assert str(e.value) == want
    monkeypatch.setenv(NO_PREPARE, '1')
    with pytest.raises(TaskError) as e: t.sandbox()
    assert str(e.value) == want
    assert not fresh_cache.exists()                                               # nothing made, not even the folder
    assert t.environment(prepare=True)['key'] == t.env.key                         # asked explicitly, it builds

def test_a_failed_build_is_one_task_error_and_leaves_nothing(tmp_path, fresh_cache):
    "pip cannot install the pin: a TaskError naming the task file with pip's words; no folder, nothing taken for ready."
    t = env_task(tmp_path/'t', [tmp_path/'missing-0.1-py3-none-any.whl'])
    with pytest.raises(TaskError, match=r't_env/task.toml: env: the Python [\d.]+ environment could not be prepared: '
                                        r'installing 1 packages into .* failed \(exit 1\)') as e: t.sandbox()
    assert 'missing-0.1-py3-none-any.whl' in str(e.value)
    assert not t.env.folder.exists() and t.env.record() is None

def test_a_second_process_waits_then_finds_it_ready(tmp_path, fresh_cache):
    "While another process holds the environment's lock, a process that needs it says it waits, waits, builds nothing."
    t = env_task(tmp_path/'t', [tiny_wheel(tmp_path)])
    t.env.folder.parent.mkdir(parents=True)
    with open(t.env.lockfile, 'a') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)                                         # "the first process", building
        p = child(uses(t), fresh_cache)
        assert stderr_line(p, 'hibd:') == f'hibd: waiting for another process that is preparing {t.env.folder}'
        (t.env.folder/'bin').mkdir(parents=True)                   # the first process finishes: env.json last
        rec = {'key': t.env.key, 'created': 'by the first process', 'base_prefix': sys.base_prefix}
        (t.env.folder/'env.json').write_text(json.dumps(rec))
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    assert json.loads(out)['created'] == 'by the first process' and 'preparing' not in err

def test_two_processes_at_once_build_it_once(tmp_path, fresh_cache):
    "Two processes (two Dask workers, say) start on the same missing environment: one builds, both get the same record."
    t = env_task(tmp_path/'t', [tiny_wheel(tmp_path)])
    ps = [child(uses(t), fresh_cache) for _ in range(2)]
    res = [p.communicate(timeout=300) for p in ps]
    assert [p.returncode for p in ps] == [0, 0], [e for _, e in res]
    recs = [json.loads(o) for o, _ in res]
    assert recs[0] == recs[1] == t.env.record()                                    # the same build
    assert sum(e.count('hibd: preparing') for _, e in res) == 1, [e for _, e in res]

def test_a_killed_build_is_never_ready_and_stops_writing(tmp_path, fresh_cache):
    "Killed while pip installs: its installer dies with it, the half-built folder is not ready, the next use rebuilds."
    t = env_task(tmp_path/'t', [tiny_wheel(tmp_path)])
    fifo = tmp_path/'constraints.txt'; os.mkfifo(fifo)           # pip reads its constraints from this pipe: waits there
    p = child(uses(t), fresh_cache, PIP_CONSTRAINT=str(fifo))
    opened = []
    opener = threading.Thread(target=lambda: opened.append(open(fifo, 'w')), daemon=True); opener.start()
    opener.join(120)                                             # returns once pip has opened it: mid-build
    assert opened, 'pip never opened its constraints file'
    assert stderr_line(p, 'hibd:').startswith('hibd: preparing')
    p.kill(); p.wait()
    assert t.env.folder.is_dir() and t.env.record() is None       # half-built: never taken for ready
    with pytest.raises(BrokenPipeError):                         # pip died with it: nobody reads the pipe any more
        opened[0].write('#' * (1 << 20)); opened[0].flush()
    rec = t.environment()                                        # the next use rebuilds it, whole
    assert rec['key'] == t.env.key and (t.env.folder/'bin'/'python').exists()
    assert subprocess.run([f'{t.env.folder}/bin/python', '-c', 'import tinyhibd'], capture_output=True).returncode == 0
