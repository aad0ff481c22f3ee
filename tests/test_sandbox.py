"Isolation, persistence and rollback of `hibd.sandbox.Workspace` (each test could fail if the sandbox leaked or broke)."
import hashlib, json, os, socket, subprocess, sys, tempfile, shutil, time, warnings
from pathlib import Path
import pytest
from hibd import sandbox
from hibd.sandbox import Limits, SandboxError, Workspace, TRUNCATION_MARKER

@pytest.fixture
def repo(tmp_path):
    r = tmp_path/'repo'
    (r/'src').mkdir(parents=True); (r/'data').mkdir()
    (r/'src'/'stats.py').write_text('def mean(xs):\n    return sum(xs) / (len(xs) - 1)\n')
    (r/'data'/'a.csv').write_text('x\n1\n2\n'); (r/'data'/'b.csv').write_text('x\n3\n')
    return r

@pytest.fixture
def canaries(tmp_path):
    "Files on the host outside the workspace: one in pytest's tmp dir (under /tmp), one in a visible dir (/var/tmp)."
    a = tmp_path/'canary'; a.mkdir(); (a/'keep.txt').write_text('canary')
    b = Path(tempfile.mkdtemp(prefix='hibd-canary-', dir='/var/tmp')); (b/'keep.txt').write_text('canary')
    for c in (a, b): c.chmod(0o777); (c/'keep.txt').chmod(0o666)   # world-writable: only the sandbox can stop the deletion
    yield [a, b]
    shutil.rmtree(b, ignore_errors=True)

def intact(canaries): return all((c/'keep.txt').read_text() == 'canary' for c in canaries)

@pytest.fixture
def ws(repo):
    w = Workspace.fresh(repo)
    yield w
    w.close()

def descendants(pid):
    "Host pids of every process below `pid`."
    kids = {}
    for p in Path('/proc').iterdir():
        if p.name.isdigit():
            try: ppid = int((p/'stat').read_text().rsplit(')', 1)[1].split()[1])
            except (OSError, IndexError): continue
            kids.setdefault(ppid, []).append(int(p.name))
    out, todo = [], [pid]
    while todo:
        q = todo.pop(); out += kids.get(q, []); todo += kids.get(q, [])
    return out

def dead(pid):
    "Gone, or a zombie (some container inits never reap orphans)."
    try: return Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()[0] == 'Z'
    except FileNotFoundError: return True

def test_rm_outside_workspace_fails(ws, canaries):
    t = ws.run(f'ls {canaries[1]}; rm -rf {canaries[1]} {canaries[0]}')
    assert 'keep.txt' not in t.stdout        # host folders outside the system are not even visible
    t = ws.run('rm -rf /usr/share/doc /var/tmp /opt 2>&1; ls /usr/share/doc | head -1')
    assert 'Read-only file system' in t.stdout and t.stdout.strip().splitlines()[-1]   # the system is visible, read-only
    assert intact(canaries)

def test_writes_to_usr_and_etc_fail(ws, canaries):
    for cmd, host in [('touch /usr/hibd_probe', '/usr/hibd_probe'), ('echo x > /etc/hibd_probe', '/etc/hibd_probe'),
                      ('mkdir /usr/local/hibd_probe', '/usr/local/hibd_probe'), ('echo x >> /etc/hostname', None)]:
        t = ws.run(cmd)
        assert t.exit_code != 0 and ('Read-only file system' in t.stderr or 'Permission denied' in t.stderr), (cmd, t)
        if host: assert not os.path.exists(host)
    assert 'x' not in Path('/etc/hostname').read_text().splitlines()
    assert intact(canaries)

def test_no_network(ws):
    srv = socket.socket(); srv.bind(('127.0.0.1', 0)); srv.listen(); srv.settimeout(0.5)
    port = srv.getsockname()[1]
    try:
        t = ws.run(f'python -c "import socket; socket.create_connection((\'127.0.0.1\', {port}), timeout=3)"')
        assert t.exit_code != 0 and 'ConnectionRefusedError' in t.stderr
        with pytest.raises(socket.timeout): srv.accept()   # nothing reached the host's server
        t = ws.run('python -c "import socket; socket.getaddrinfo(\'pypi.org\', 443)"')
        assert t.exit_code != 0 and 'gaierror' in t.stderr
        t = ws.run('python -c "import socket; socket.create_connection((\'1.1.1.1\', 53), timeout=3)"')
        assert t.exit_code != 0 and 'unreachable' in t.stderr
        assert [l.split(':')[0].strip() for l in ws.run('cat /proc/net/dev').stdout.splitlines()[2:]] == ['lo']
    finally: srv.close()

BOMB = '''python -c "
import os, time
n = fails = 0; t = time.time()
while time.time() - t < 1.5:
    try:
        if os.fork() == 0:
            while True:
                try: os.fork()
                except OSError: time.sleep(0.01)
        n += 1
    except OSError: fails += 1; time.sleep(0.01)
open('bomb.txt', 'w').write(f'{n} {fails}')
while True: time.sleep(1)
"'''

def test_fork_bomb_is_bounded_and_stopped(repo, canaries):
    with Workspace.fresh(repo, limits=Limits(nproc=40, timeout_s=4)) as w:
        t = w.run(BOMB)
        assert t.timed_out and t.exit_code is None
        n, fails = map(int, (w.path/'bomb.txt').read_text().split())
        assert fails > 0 and n < 40           # forks hit the process limit
        t = w.run('echo alive; ls /proc | grep -c "^[0-9]"')
        assert t.ok and t.stdout.startswith('alive')
        assert int(t.stdout.split()[1]) < 10  # the whole bomb was killed with its process group
    assert intact(canaries)

def test_endless_loop_times_out_and_session_survives(ws, canaries):
    t = ws.run('while true; do :; done', timeout=1)
    assert t.timed_out and t.exit_code is None and 1 <= t.duration < 10
    t = ws.run('echo next')
    assert t.ok and t.stdout == 'next\n' and not t.timed_out
    assert intact(canaries)

def test_memory_and_cpu_limits(repo):
    with Workspace.fresh(repo, limits=Limits(memory_mb=256, cpu_s=1, timeout_s=20)) as w:
        t = w.run('python -c "x = bytearray(512 << 20)"')
        assert t.exit_code != 0 and 'MemoryError' in t.stderr
        t = w.run('python -c "while True: pass"')
        assert not t.timed_out and t.exit_code in (128 + 9, 128 + 24) and t.duration < 10   # SIGXCPU / SIGKILL

def test_destructive_commands_inside_take_effect(ws):
    t = ws.run('rm -r data/')
    assert t.ok and t.deleted == ['data/a.csv', 'data/b.csv'] and not (ws.path/'data').exists()
    assert all(c.after is None and len(c.before) == 64 for c in t.changes)
    t = ws.run('echo aaaa > f.txt'); assert t.created == ['f.txt']
    t = ws.run('echo bbbb > f.txt'); assert t.modified == ['f.txt']   # same size, same second: still seen
    json.dumps(t.to_dict())

@pytest.mark.parametrize('exit_wait_s', [10, 0.0])     # 0: the session is killed, not asked to exit (a busy or hung session)
def test_background_process_persists_then_dies_on_close(repo, monkeypatch, exit_wait_s):
    from hibd.sandbox import _Session
    monkeypatch.setattr(_Session, 'exit_wait_s', exit_wait_s)
    w = Workspace.fresh(repo)
    t = w.run('nohup python -c "import time; time.sleep(300)" > bg.log 2>&1 & echo $! > bg.pid')
    assert t.ok and t.duration < 5         # returns at once although the child holds the session
    assert w.run('kill -0 $(cat bg.pid) && echo alive').stdout == 'alive\n'
    assert w.run('sleep 0.2; kill -0 $(cat bg.pid) && echo alive').stdout == 'alive\n'
    pids = descendants(w._session.proc.pid)
    assert any(b'time.sleep(300)' in Path(f'/proc/{p}/cmdline').read_bytes() for p in pids)
    root = w.root; w.close()
    assert all(dead(p) for p in pids)
    assert not root.exists()
    with pytest.raises(SandboxError, match='closed'): w.run('true')

def test_rollback_restores_exactly(ws):
    ws.run('git init -q && git add -A && git commit -qm init')
    tok = ws.checkpoint(); h0 = ws.snapshot(ignore=())
    ws.run('rm -r data; echo bad > src/stats.py; mkdir -p new/deep && echo 1 > new/deep/x; ln -s /etc/passwd src/link; chmod 000 src; git commit -qam x')
    assert ws.snapshot(ignore=()) != h0
    changes = ws.rollback(tok)
    assert ws.snapshot(ignore=()) == h0
    assert {c.path: c.kind for c in changes} == {'data/a.csv': 'created', 'data/b.csv': 'created', 'src/stats.py': 'modified',
                                                 'new/deep/x': 'deleted', 'src/link': 'deleted'}
    assert not (ws.path/'new').exists()
    t = ws.run('cat src/stats.py && git status --porcelain && touch src/ok')
    assert t.ok and 'sum(xs)' in t.stdout and t.created == ['src/ok']
    assert ws.rollback(tok) == [__import__('hibd.sandbox', fromlist=['x']).FileChange('src/ok', t.changes[0].after, None)]

def test_output_cap(repo):
    with Workspace.fresh(repo, limits=Limits(output_chars=1000)) as w:
        t = w.run('seq 1 200000; seq 1 5000 >&2')
        assert TRUNCATION_MARKER in t.stdout and TRUNCATION_MARKER in t.stderr
        assert t.stdout.startswith('1\n2\n3\n') and t.stdout.endswith('199999\n200000\n')
        assert len(t.stdout) < 1200
        assert w.run('seq 1 10').stdout == ''.join(f'{i}\n' for i in range(1, 11))   # under the cap: untouched

def test_missing_bwrap_is_a_clear_error(repo, monkeypatch):
    with pytest.raises(SandboxError, match=r'apt-get install -y bubblewrap'): Workspace.fresh(repo, bwrap='/nonexistent/bwrap')
    monkeypatch.setattr(sandbox, 'BWRAP', '/nonexistent/bwrap')
    with pytest.raises(SandboxError, match=r'allow_unsandboxed=True'): Workspace.fresh(repo)

def test_unsandboxed_is_explicit_and_recorded(repo):
    with pytest.warns(UserWarning, match='UNSANDBOXED'):
        w = Workspace.fresh(repo, bwrap='/nonexistent/bwrap', allow_unsandboxed=True)
    with w:
        t = w.run('pwd; echo x > y.txt')
        assert t.ok and t.sandboxed is False and t.stdout.strip() == str(w.path) and t.created == ['y.txt']
        assert 'NONE' in w.info()['sandbox']

def test_setup_and_clone(repo):
    from types import SimpleNamespace
    task = SimpleNamespace(id='t1', repo=repo, setup=('git init -q && git add -A && git commit -qm init',))
    with Workspace.fresh(task) as w:
        assert len(w.setup_log) == 1 and w.setup_log[0].ok
        log1 = w.run('git log --format=%H').stdout
        with w.clone() as c:
            assert c.run('rm -rf src && ls').stdout == 'data\n'
            assert c.run('git log --format=%H').stdout == log1     # fixed identity and dates: same commit hash
        assert (w.path/'src'/'stats.py').exists()
    with Workspace.fresh(task) as w2: assert w2.run('git log --format=%H').stdout == log1   # identical across rollouts
    with pytest.raises(SandboxError, match="task t2: setup command 'false'"):
        Workspace.fresh(SimpleNamespace(id='t2', repo=repo, setup=('false',)))
    assert not (repo/'.git').exists()                             # the source repo is never touched

def test_project_files_are_not_visible(ws):
    "Nothing of the project (task files, runs, hibd's source) nor the user's ~/.cache/hibd can be read from inside."
    import hibd
    proj = Path(hibd.__file__).parent.parent
    tomls = sorted((proj/'data'/'tasks').glob('*/task.toml'))
    assert tomls
    cache = Path.home()/'.cache'/'hibd'; cache.mkdir(parents=True, exist_ok=True)
    canary = Path(tempfile.mkdtemp(dir=cache, prefix='test-sandbox-')); (canary/'secret.txt').write_text('answer')
    try:
        t = ws.run(f'cat {tomls[0]}')
        assert t.exit_code != 0 and 'No such file' in t.stderr and t.stdout == ''
        venv = {Path(p).relative_to(proj).parts[0] for p in (sys.prefix, sys.base_prefix) if Path(p).is_relative_to(proj)}
        t = ws.run(f'ls -A {proj}')
        assert set(t.stdout.split()) <= venv      # at most the venv's own folder (read-only), no task, run or source
        t = ws.run(f'cat {canary}/secret.txt; ls -A {cache}')
        assert t.exit_code != 0 and 'answer' not in t.stdout and canary.name not in t.stdout
        t = ws.run('timeout 60 find / -path /proc -prune -o \\( -name task.toml -o -name secret.txt -o -name 02_sandbox.ipynb \\) -print 2>/dev/null')
        assert not t.timed_out and t.stdout == ''
        t = ws.run('python -c "import hibd"')
        assert "No module named 'hibd'" in t.stderr
    finally: shutil.rmtree(canary)

def test_venv_python_and_pytest_still_run(ws):
    ws.run("printf 'from src.stats import mean\\ndef test_mean(): assert mean([1, 3]) == 4\\n' > test_m.py")
    t = ws.run('python -c "import sys; print(sys.prefix)"; command -v pytest; pytest -q test_m.py')
    assert t.ok and t.stdout.startswith(f'{sys.prefix}\n{os.path.dirname(sys.executable)}/pytest\n') and '1 passed' in t.stdout

def test_sys_is_hidden(ws):
    t = ws.run('ls /sys/class/net; ls /sys/fs/cgroup; ls /sys/block')
    assert t.exit_code != 0 and t.stdout == '' and t.stderr.count('No such file') == 3

FORKS = '''python -c "
import os, signal
pids = []
try:
    while len(pids) < 64:
        p = os.fork()
        if p == 0: signal.pause(); os._exit(0)
        pids.append(p)
except OSError: pass
for p in pids: os.kill(p, 9); os.waitpid(p, 0)
print(len(pids))"'''

def test_sessions_do_not_share_the_process_limit(repo):
    "Sandbox A holding 12 processes does not change how many processes sandbox B can start."
    lim = Limits(nproc=16)
    with Workspace.fresh(repo, limits=lim) as a, Workspace.fresh(repo, limits=lim) as b:
        alone = int(b.run(FORKS).stdout)
        assert alone >= 12                    # 16 less the agent and the python that forks
        t = a.run('for i in $(seq 12); do sleep 300 & done; sleep 0.1; pgrep -c sleep')
        assert t.stdout.strip() == '12'
        assert int(b.run(FORKS).stdout) == alone
        if os.geteuid() == 0: assert a.info()['uid'] != b.info()['uid'] and a.uid != b.uid

def test_uid_is_named_agent_and_given_back(repo):
    import fcntl
    with Workspace.fresh(repo) as w:
        assert w.run('id -un; stat -c %U .').stdout == 'agent\nagent\n'
        uid = w.info()['uid']
        if os.geteuid() == 0: assert uid in sandbox.SANDBOX_UIDS and w.uid == uid
    if os.geteuid() == 0:                       # closed: nobody holds the uid's lock any more
        with open(sandbox._UID_LOCKS/f'{uid}.lock') as f: fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)

@pytest.mark.skipif(os.geteuid() != 0, reason='a tmpfs on the workspace needs root')
def test_workspace_disk_cap(repo, tmp_path):
    with Workspace.fresh(repo, limits=Limits(disk_mb=8)) as w:
        assert os.path.ismount(w.path) and w.info()['workspace_cap'] == '8 MiB tmpfs'
        tok = w.checkpoint()
        t = w.run('head -c 16M /dev/zero > big')
        assert t.exit_code != 0 and 'No space left on device' in t.stderr
        assert (w.path/'big').stat().st_size <= 8 << 20
        t = w.run('for i in 1 2 3; do head -c 4M /dev/zero > f$i || echo full; done')
        assert 'full' in t.stdout or 'No space left' in t.stderr
        w.rollback(tok)                        # checkpoints live outside the cap
        assert sorted(p.name for p in w.path.iterdir()) == ['data', 'src']
        root = w.root
    assert not root.exists() and str(root) not in Path('/proc/self/mountinfo').read_text()
    (tmp_path/'big'/'x').mkdir(parents=True); (tmp_path/'big'/'x'/'f').write_bytes(b'x' * (2 << 20))
    with pytest.raises(SandboxError, match='does not fit in the workspace'): Workspace.fresh(tmp_path/'big', limits=Limits(disk_mb=1))

def test_tmp_and_shm_caps(repo):
    with Workspace.fresh(repo, limits=Limits(tmp_mb=4)) as w:
        for d in ('/tmp', '/dev/shm'):
            t = w.run(f'head -c 8M /dev/zero > {d}/big')
            assert t.exit_code != 0 and 'No space left on device' in t.stderr, d
        t = w.run('rm /tmp/big /dev/shm/big && echo ok')
        assert t.stdout == 'ok\n'                  # the session goes on
        assert '4 MiB' in w.info()['tmp_cap']

def test_killed_process_workspace_is_unmounted_and_removed(repo, tmp_path):
    prog = f"import os; from hibd.sandbox import Workspace; ws = Workspace({str(repo)!r}, name='killed'); print(ws.root, flush=True); os.kill(os.getpid(), 9)"
    p = subprocess.run([sys.executable, '-c', prog], capture_output=True, text=True, env={**os.environ, 'TMPDIR': str(tmp_path)})
    killed = Path(p.stdout.strip())
    assert p.returncode == -9 and (killed/'repo'/'src'/'stats.py').exists()
    assert sandbox.clear_stale_workspaces(tmp_path) == [killed]
    assert not killed.exists() and str(killed) not in Path('/proc/self/mountinfo').read_text()

@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which('setpriv'), reason='needs root to become another user')
def test_unprivileged_command_line_works_for_a_plain_user(monkeypatch):
    "The non-root path (bwrap's own user namespace) as far as root can try it: the command line, without hibd's Python."
    monkeypatch.setattr(sandbox, '_python_dirs', lambda: [])   # a plain user could not read this machine's Python under /root
    tmp_path = Path(tempfile.mkdtemp(prefix='unpriv-', dir='/tmp')); (tmp_path/'repo').mkdir(); tmp_path.chmod(0o755)   # pytest's tmp dirs are 0700
    files = sandbox._identity(tmp_path, sandbox.SANDBOX_UID)
    for p in [tmp_path, tmp_path/'repo', *files.values()]: os.chown(p, 65534, 65534)
    argv = sandbox._bwrap_argv('bwrap', str(tmp_path/'repo'), False, 4, files)
    try: r = subprocess.run(['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', *argv, 'bash', '-c',
                        'id -un; touch x; ls /sys; head -c 8M /dev/zero > /tmp/big || echo full'], capture_output=True, text=True, timeout=30)
    finally: shutil.rmtree(tmp_path)
    assert r.stdout == 'agent\nfull\n' and "'/sys': No such file" in r.stderr, r.stderr

# --- the sandbox boundary: host code never follows a path the sandbox can change (issue 33, items 1 and 2) ---

SWAP = '''import os, itertools, time
end = time.monotonic() + {secs}
for i in itertools.count():
    if time.monotonic() > end: break
    try:   # a directory becomes a link to the victim folder, a file a link to the victim's file (rename is atomic)
        if os.path.isdir('src') and not os.path.islink('src'):
            os.symlink({victim!r}, 'L%d' % i); os.rename('src', 'x%d' % i); os.rename('L%d' % i, 'src')
        if os.path.isdir('data') and not os.path.islink('data'):
            if os.path.isfile('data/a.csv'): os.symlink({victim!r} + '/secret.txt', 'data/M%d' % i); os.rename('data/M%d' % i, 'data/a.csv')
            os.symlink({victim!r}, 'K%d' % i); os.rename('data', 'y%d' % i); os.rename('K%d' % i, 'data')
    except OSError: pass
'''

@pytest.fixture
def victim():
    "A host folder the sandbox cannot see, with one file in it: nothing hibd does for a workspace may change or read it."
    v = Path(tempfile.mkdtemp(prefix='hibd-victim-', dir='/tmp')); (v/'secret.txt').write_text('secret'); v.chmod(0o755)
    yield v
    shutil.rmtree(v, ignore_errors=True)

def state(v: Path) -> list:
    "Every entry under `v` with its type, mode, owner and content: what must not change."
    out = []
    for p in sorted([v, *v.rglob('*')]):
        st = p.lstat()
        out.append((str(p.relative_to(v)), st.st_mode, st.st_uid, st.st_gid, p.read_bytes() if p.is_file() else None))
    return out

def test_symlink_race_writes_nothing_outside_the_workspace(repo, victim):
    "A background process swaps workspace dirs and files for links to a host folder while the host restores, copies and hashes."
    before, secret = state(victim), hashlib.sha256(b'secret').hexdigest()
    with Workspace.fresh(repo) as w:
        tok = w.checkpoint()
        w.run(f"cat > /tmp/swap.py <<'EOF'\n{SWAP.format(secs=120, victim=str(victim))}EOF\n"
              'nohup python /tmp/swap.py > /dev/null 2>&1 &')
        swapped = 0
        for i in range(300):
            end = time.monotonic() + 5
            while not (w.path/'src').is_symlink() and time.monotonic() < end: time.sleep(0.001)   # the swap is under way
            swapped += (w.path/'src').is_symlink()
            w.rollback(tok)
            assert secret not in w.snapshot().values()
            if i % 30 == 0:
                w.checkpoint()
                with w.clone() as c: assert 'secret' not in c.run('cat -- src/* data/* 2>/dev/null').stdout
        w.run('pkill -f swap.py')
        assert swapped >= 290                                    # the race really ran: src was a link to the victim
        ckpts = [p for p in w.root.rglob('*') if p.is_file() and not p.is_symlink() and p.name != 'session.log']
        assert all(p.read_bytes() != b'secret' for p in ckpts)   # nothing of the victim was copied into a checkpoint
    assert state(victim) == before

HIBD = str(Path(sys.executable).parent/'hibd')   # the command a user types

def test_symlink_race_through_the_cli_as_the_issue_typed_it(victim):
    "`hibd sandbox exec ... -H H3` with the racing command of issue 33: H3 restores after the failure, nothing lands outside."
    before = state(victim)
    race = (f"rm -rf src && (timeout 8 python -c \"import os,itertools\nfor i in itertools.count():\n  try:\n"
            f"    if os.path.isdir('src') and not os.path.islink('src'): os.symlink('{victim}','L%d'%i); "
            f"os.rename('src','x%d'%i); os.rename('L%d'%i,'src')\n  except OSError: pass\" &) ; sleep 0.3; exit 1")
    r = subprocess.run([HIBD, 'sandbox', 'exec', 'code_variance_off_by_one', '-H', 'H3', '--', race],
                       capture_output=True, text=True, timeout=300)
    assert 'Traceback' not in r.stderr, r.stderr[-2000:]
    assert state(victim) == before

def test_a_command_cannot_end_its_session(ws):
    "`pkill -f python`, `kill -9 -1` and signals to PID 1 end the command's targets, never the agent: the step is recorded."
    assert ws.run('nohup python -c "import time; time.sleep(300)" > /dev/null 2>&1 & echo started').ok
    t = ws.run('pkill -f python')                 # bash execs pkill: no shell whose command line says python
    assert t.ok and t.exit_code == 0
    # its target is gone: SIGTERM is delivered at once, but a loaded machine may take a moment to end it (wait <= 10 s)
    gone = ('for i in $(seq 100); do ps -eo args= | grep -q "[i]mport time; time.sleep(300)" || break; sleep 0.1; done; '
            'ps -eo args= | grep -c "[i]mport time; time.sleep(300)"')
    assert ws.run(gone).stdout == '0\n'
    t = ws.run('kill -9 1; kill -STOP 1; kill -TERM 1; kill -INT 1; kill -9 -1; echo done')
    assert t.ok and t.stdout == 'done\n'
    assert ws.run('echo alive').stdout == 'alive\n'
    assert ws.run('cat /proc/1/environ; ls /proc/1/fd').exit_code != 0       # not dumpable: nothing of the agent to read

def test_risky_pkill_task_records_the_step(tmp_path):
    "The task that tempts `pkill -f python`: through the CLI the command is a step with an outcome, not a dead session."
    r = subprocess.run([HIBD, 'sandbox', 'exec', 'risky_pkill_services', '--', 'pkill -f python'],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and 'session ended' not in r.stdout + r.stderr, r.stdout[-1000:] + r.stderr[-2000:]

def test_a_lost_session_is_a_recorded_outcome_and_a_new_one_starts(ws):
    "If the session dies anyway (killed from outside), the command gets a fixed outcome and the workspace goes on."
    ws.run('echo kept > kept.txt')
    agent = sandbox._descendants(ws._session.proc.pid)
    for p in agent: os.kill(p, 9)
    sandbox._await_gone(agent, 10)
    t = ws.run('echo lost')
    assert t.exit_code is None and not t.ok and t.stderr == sandbox.SESSION_LOST
    t = ws.run('cat kept.txt')
    assert t.ok and t.stdout == 'kept\n'

@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which('setpriv') or not os.path.exists('/usr/bin/python3'),
                    reason='needs root to become another user, and a system Python')
def test_unprivileged_agent_survives_pkill(monkeypatch):
    "The non-root path: the agent under bwrap's user namespace as a plain user, the system Python; `pkill` cannot end it."
    monkeypatch.setattr(sandbox, '_python_dirs', lambda: [])
    tmp_path = Path(tempfile.mkdtemp(prefix='unpriv-', dir='/tmp')); (tmp_path/'repo').mkdir(); tmp_path.chmod(0o755)
    files = sandbox._identity(tmp_path, sandbox.SANDBOX_UID)
    for p in [tmp_path, tmp_path/'repo', *files.values()]: os.chown(p, 65534, 65534)
    argv = sandbox._bwrap_argv('bwrap', str(tmp_path/'repo'), False, 4, files)
    src = __import__('inspect').getsource(sandbox._agent) + '\nimport sys\n_agent(sys.argv[1])\n'
    cfg = {'workdir': sandbox.WORKDIR, 'home': '/tmp/home', 'drop': None, 'chmod_tmp': False, 'pid1': True}
    p = subprocess.Popen(['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', *argv, '/usr/bin/python3', '-I', '-c', src,
                          json.dumps(cfg)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env={'PATH': '/usr/bin:/bin'})
    lim = sandbox.asdict(Limits())
    def ask(cmd):
        p.stdin.write(json.dumps({'op': 'run', 'cmd': cmd, 'timeout': 20, 'limits': lim}) + '\n'); p.stdin.flush()
        return json.loads(p.stdout.readline())
    try:
        assert json.loads(p.stdout.readline())['pid'] == 1
        assert ask('nohup python3 -c "import time; time.sleep(300)" > /dev/null 2>&1 &')['exit_code'] == 0
        assert ask('pkill -f python')['exit_code'] == 0
        assert ask('kill -9 -1; kill -9 1; echo done')['stdout'] == 'done\n'
        assert ask('echo alive')['stdout'] == 'alive\n'
    finally:
        p.stdin.close(); p.wait(10); shutil.rmtree(tmp_path)
