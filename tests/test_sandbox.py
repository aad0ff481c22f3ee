"Isolation, persistence and rollback of `hibd.sandbox.Workspace` (each test could fail if the sandbox leaked or broke)."
import json, os, socket, tempfile, shutil, time, warnings
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
    vis = canaries[1]
    t = ws.run(f'ls {vis} && rm -rf {vis} {canaries[0]}')
    assert 'keep.txt' in t.stdout            # the sandbox sees the host dir ...
    assert t.exit_code != 0 and 'Read-only file system' in t.stderr   # ... but cannot delete it
    t = ws.run('rm -rf /var/tmp /opt /usr/share/doc 2>&1; ls /usr/share/doc | head -1')
    assert t.stdout.strip()                  # still there
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
