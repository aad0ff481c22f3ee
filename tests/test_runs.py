"Sweeps: config errors, resume after SIGKILL, a clean stop on SIGTERM, the lock, zero calls on a finished rerun, limits, the pairs table (`hibd.pairs`), Dask."
import json, math, os, re, shutil, signal, subprocess, sys, threading, time, warnings
from pathlib import Path
import pytest
from hibd.models import ModelError, ScriptedBackend
from hibd.runs import (run_sweep, load_config, load_run, ConfigError, RunError, RunLocked, RunLock, read_rollouts)
from hibd.pairs import pairs, summary
from hibd.schema import example_belief
from stub_server import serve_stub
from hibd.stats import PAIR_KEYS

TASK = 'code_variance_off_by_one'
GOOD = json.dumps(example_belief(**{'next_action_recommendation.action': 'python -m pytest -q'}))
KEYS = ('rollout_id', 'step', 'observation', 'action', 'belief', 'ok', 'proposal', 'commands_shown', 'terminal')
_TIMES = re.compile(r'\b\d+\.\d+s\b|"duration": [0-9.e-]+')   # pytest's own timings and measured durations vary run to run


def write_config(tmp_path, name='t', replies=(GOOD,), **over):
    rp = tmp_path/f'{name}_replies.json'
    rp.write_text(json.dumps(list(replies)))
    cfg = {'name': name, 'tasks': [TASK], 'harnesses': ['H0', 'H2'], 'K': [1, 3], 'seeds': [0, 1], 'concurrency': 1,
           'model': {'spec': f'scripted:{rp}', 'max_retries': 0}, **over}
    lines = []
    for k, v in cfg.items():
        if isinstance(v, dict): continue
        lines.append(f'{k} = {json.dumps(v)}')
    for k, v in cfg.items():
        if isinstance(v, dict): lines += [f'[{k}]'] + [f'{a} = {json.dumps(b)}' for a, b in v.items()]
    p = tmp_path/f'{name}.toml'
    p.write_text('\n'.join(lines) + '\n')
    return p


def keyed(run_dir):
    "The records of a run on the fields that must reproduce (timings masked)."
    return sorted(tuple(_TIMES.sub('T', json.dumps(r[k], sort_keys=True)) for k in KEYS) for r in read_rollouts(run_dir))


def test_config_errors_name_the_field(tmp_path):
    p = tmp_path/'bad.toml'
    p.write_text('tasks = ["code_variance_off_by_one"]\nK = [1]\nseed = [0]\n[limits]\ntotal_tokens = -5\n')
    with pytest.raises(ConfigError) as e: load_config(p)
    msg = str(e.value)
    assert f'{p}: seed: Extra inputs are not permitted' in msg and f'{p}: limits.total_tokens: Input should be greater than 0' in msg
    p.write_text('tasks = ["code_variance_off_by_one"\nK = [1]\n')
    with pytest.raises(ConfigError, match='not valid TOML'): load_config(p)
    p.write_text('tasks = ["code_variance_off_by_one"]\nK = [99]\n')
    with pytest.raises(ConfigError, match=r'K: replay needs every K <= the trajectory length'): run_sweep(p, out=tmp_path/'r', progress=False)


def test_sweep_writes_manifest_and_complete_files(tmp_path):
    d = run_sweep(write_config(tmp_path), out=tmp_path/'run', progress=False)
    man = json.loads((d/'manifest.json').read_text())
    assert set(man) >= {'config', 'versions', 'git', 'model', 'harness_cards', 'task_hashes', 'design', 'run_id'}
    assert man['model']['scripted'] is True and man['model']['id'].startswith('scripted')
    assert set(man['harness_cards']) == {'H0', 'H2'} and len(man['task_hashes'][TASK]) == 64
    files = sorted(p.name for p in (d/'rollouts').iterdir())
    assert files == sorted(f'{TASK}__{h}__s{s}__K3.jsonl' for h in ('H0', 'H2') for s in (0, 1))   # one rollout to K_max each
    for f in (d/'rollouts').iterdir():
        lines = [json.loads(x) for x in f.read_text().splitlines()]
        assert [r['step'] for r in lines[:-1]] == [0, 1, 2, 3] and lines[-1]['kind'] == 'end' and lines[-1]['status'] == 'complete'
    df = load_run(d)
    assert sorted(df.K.unique()) == [1, 3] and len(df) == 4 * (2 + 4)      # K=1 is the prefix of every K=3 rollout
    k1 = df[df.K == 1].set_index(['harness', 'seed', 'step']).prompt_hash
    k3 = df[df.K == 3].set_index(['harness', 'seed', 'step']).prompt_hash
    assert (k1 == k3.loc[k1.index]).all()


def test_rerun_of_finished_sweep_makes_zero_calls(tmp_path):
    cfg = write_config(tmp_path)
    be = ScriptedBackend([GOOD])
    d = run_sweep(cfg, out=tmp_path/'run', backend=be, progress=False)
    assert be.hits > 0
    before = keyed(d)
    be2 = ScriptedBackend([GOOD])
    run_sweep(cfg, out=d, backend=be2, progress=False)
    assert be2.hits == 0
    st = json.loads((d/'status.json').read_text())
    assert st['skipped'] == 4 and st['done'] == 0 and st['calls'] == 0
    assert keyed(d) == before
    (tmp_path/'t_replies.json').unlink()             # the spec's backend cannot even be built now: none is needed
    run_sweep(cfg, out=d, progress=False)
    assert json.loads((d/'status.json').read_text())['skipped'] == 4


def test_reuse_answers_from_an_earlier_run(tmp_path):
    "A sweep adding a harness to a recorded run pays only for prompts that run never asked, and keeps its own copy."
    a = run_sweep(write_config(tmp_path, name='a'), out=tmp_path/'a', backend=(be_a := ScriptedBackend([GOOD])), progress=False)
    keys_a = {json.loads(l)['key'] for l in (a/'calls.jsonl').read_text().splitlines()}
    c = run_sweep(write_config(tmp_path, name='c', harnesses=['H3']), out=tmp_path/'c', backend=(be_c := ScriptedBackend([GOOD])), progress=False)
    new_h3 = {r['call_key'] for r in read_rollouts(c)} - keys_a
    b = run_sweep(write_config(tmp_path, name='b', harnesses=['H0', 'H2', 'H3'], reuse=['a']), out=tmp_path/'b',
                  backend=(be_b := ScriptedBackend([GOOD])), progress=False)
    recs = read_rollouts(b)
    assert be_b.hits == len(new_h3) > 0 and be_c.hits > be_b.hits
    assert all(r['cached'] for r in recs if r['harness'] != 'H3')
    assert keyed(b) == sorted(keyed(a) + keyed(c))
    keys_b = {json.loads(l)['key'] for l in (b/'calls.jsonl').read_text().splitlines()}
    assert {r['call_key'] for r in recs} <= keys_b                      # replayable from its own file
    with pytest.raises(ConfigError, match=r"reuse\[0\]: no recorded calls"):
        run_sweep(write_config(tmp_path, name='d', reuse=['nowhere']), out=tmp_path/'d', progress=False)


def test_resume_after_sigkill_and_lock(tmp_path):
    cfg = write_config(tmp_path, harnesses=['H0', 'H1', 'H2'])
    ref = run_sweep(cfg, out=tmp_path/'ref', progress=False)
    out = tmp_path/'killed'
    prog = f'from hibd.runs import run_sweep; run_sweep({str(cfg)!r}, out={str(out)!r}, progress=False)'
    proc = subprocess.Popen([sys.executable, '-c', prog], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        t0 = time.time()
        while time.time() - t0 < 240:   # wait for one finished rollout and one being written
            done = list((out/'rollouts').glob('*.jsonl')) if out.exists() else []
            tmp = list((out/'rollouts').glob('.*.tmp')) if out.exists() else []
            if done and tmp and tmp[0].stat().st_size > 0: break
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            time.sleep(0.05)
        else: pytest.fail('the sweep never reached a mid-rollout state')
        with pytest.raises(RunLocked, match=f'PID {proc.pid}'):           # a second writer is refused
            run_sweep(cfg, out=out, progress=False)
        proc.send_signal(signal.SIGKILL); proc.wait(30)
    finally:
        if proc.poll() is None: proc.kill()
        proc.stderr.close()
    assert (out/'.lock').exists() and list((out/'rollouts').glob('.*.tmp'))    # a dead writer's lock and a half-written rollout
    n_done = len(list((out/'rollouts').glob('*.jsonl')))
    assert 0 < n_done < 6
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        run_sweep(cfg, out=out, progress=False)
    assert any('stale lock' in str(x.message) for x in w)
    st = json.loads((out/'status.json').read_text())
    assert st['skipped'] == n_done and st['done'] == 6 - n_done
    assert not list((out/'rollouts').glob('.*.tmp')) and (out/'.lock').read_text() == ''   # released: the lock file stays, emptied
    assert keyed(out) == keyed(ref)                                            # exactly the uninterrupted run
    ids = [(r['rollout_id'], r['step']) for r in read_rollouts(out)]
    assert len(ids) == len(set(ids)) == 6 * 4                                  # nothing duplicated


def test_sigterm_stops_cleanly_and_resumes(tmp_path):
    "SIGTERM to `hibd run`: exit 143, no half-written rollout, lock released, workspaces deleted; the resume equals an uninterrupted run."
    cfg = write_config(tmp_path, harnesses=['H0', 'H1', 'H2'])
    ref = run_sweep(cfg, out=tmp_path/'ref', progress=False)
    out, ws = tmp_path/'termed', tmp_path/'ws'
    ws.mkdir()
    prog = 'import sys; from hibd.cli import main; sys.argv[0] = "hibd"; main()'
    proc = subprocess.Popen([sys.executable, '-c', prog, 'run', str(cfg), '--out', str(out)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env={**os.environ, 'TMPDIR': str(ws)})
    try:
        t0 = time.time()
        while time.time() - t0 < 240:   # wait for a finished rollout, one being written, and at least three not started
            done = list((out/'rollouts').glob('*.jsonl')) if out.exists() else []
            tmp = list((out/'rollouts').glob('.*.tmp')) if out.exists() else []
            if 1 <= len(done) <= 2 and tmp and tmp[0].stat().st_size > 0: break
            assert proc.poll() is None and len(done) <= 2, proc.stderr.read().decode()[-2000:]
            time.sleep(0.05)
        else: pytest.fail('the sweep never reached a mid-rollout state')
        assert list(ws.glob('hibd-*'))                                         # its workspace is open
        proc.send_signal(signal.SIGTERM); rc = proc.wait(120)
        err = proc.stderr.read().decode()
    finally:
        if proc.poll() is None: proc.kill()
        proc.stderr.close()
    assert rc == 143, err[-2000:]
    assert 'SIGTERM: stopping' in err
    st = json.loads((out/'status.json').read_text())
    assert st['stopped_by'] == 'SIGTERM' and st['pending'] >= 3, st
    assert not list((out/'rollouts').glob('.*.tmp')) and (out/'.lock').read_text() == ''
    assert not list(ws.glob('hibd-*'))                                         # every workspace closed and deleted
    run_sweep(cfg, out=out, progress=False)
    assert keyed(out) == keyed(ref)                                            # exactly the uninterrupted run


def hold_lock(run_dir):
    "A process that holds the run directory's lock until it is killed."
    p = subprocess.Popen([sys.executable, '-c', f'import time; from hibd.runs import RunLock; RunLock({str(run_dir)!r}).acquire(); '
                          'print("held", flush=True); time.sleep(600)'], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == 'held'
    return p


def test_live_lock_refuses(tmp_path):
    out = tmp_path/'run'; out.mkdir()
    holder = hold_lock(out)
    try:
        with pytest.raises(RunLocked, match=f'another sweep \\(PID {holder.pid}'):
            run_sweep(write_config(tmp_path), out=out, progress=False)
    finally: holder.kill(); holder.wait(); holder.stdout.close()


def test_lock_is_held_by_the_kernel(tmp_path):
    "flock on a lock file that is never deleted: a second open file cannot take it while the first holds it, a killed holder frees it."
    a = RunLock(tmp_path).acquire()
    with pytest.raises(RunLocked, match=f'PID {os.getpid()}'): RunLock(tmp_path).acquire()   # another open file, same process
    a.release()
    with RunLock(tmp_path) as b:
        assert b.cleared is None                                    # a clean release leaves no stale record
    holder = hold_lock(tmp_path)
    try:
        with pytest.raises(RunLocked, match=f'PID {holder.pid}'): RunLock(tmp_path).acquire()
        # a record left by a dead writer while the lock is held is no licence to take it (the old takeover race)
        (tmp_path/'.lock').write_text(json.dumps({'pid': 2**22 + 1, 'host': os.uname().nodename}))
        with pytest.raises(RunLocked): RunLock(tmp_path).acquire()
        holder.kill(); holder.wait()
    finally:
        if holder.poll() is None: holder.kill(); holder.wait()
        holder.stdout.close()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        with RunLock(tmp_path) as c: assert c.cleared is not None
    assert any('stale lock' in str(x.message) for x in w)


def test_design_change_refused(tmp_path):
    "Reordered harnesses (another reference, another pair order) or another temperature: refused, naming the field."
    d = run_sweep(write_config(tmp_path, K=[1]), out=tmp_path/'run', progress=False)
    with pytest.raises(ConfigError, match=r"different design \(harnesses: \['H0', 'H2'\] -> \['H2', 'H0'\]"):
        run_sweep(write_config(tmp_path, name='t2', K=[1], harnesses=['H2', 'H0']), out=d, progress=False)
    with pytest.raises(ConfigError, match=r"different design \(temperature: 0\.0 -> 0\.5\)"):
        run_sweep(write_config(tmp_path, K=[1], temperature=0.5, seeds=[0, 1, 2]), out=d, progress=False)


def test_appended_seed_extends_the_run(tmp_path):
    "A seed appended to a finished run's config runs only that seed's rollouts; the rest stay byte for byte; the manifest says what was added."
    d = run_sweep(write_config(tmp_path, harnesses=['H0'], seeds=[0], K=[1]), out=tmp_path/'run', progress=False)
    before = {p.name: p.read_bytes() for p in (d/'rollouts').glob('*.jsonl')}
    run_id = json.loads((d/'manifest.json').read_text())['run_id']
    run_sweep(write_config(tmp_path, harnesses=['H0'], seeds=[0, 1], K=[1]), out=d, progress=False)
    man, st = json.loads((d/'manifest.json').read_text()), json.loads((d/'status.json').read_text())
    assert man['run_id'] == run_id and man['design']['seeds'] == [0, 1] and man['extended'][0]['added'] == {'seeds': [1]}
    assert (st['skipped'], st['done'], st['pending']) == (len(before), len(before), 0)
    assert all((d/'rollouts'/n).read_bytes() == b for n, b in before.items()) and set(load_run(d).seed) == {0, 1}


def test_limits_fire_and_are_recorded(tmp_path):
    # per rollout wall time: the rollout is not finished, status.json says so, nothing is saved
    d = run_sweep(write_config(tmp_path, harnesses=['H0'], seeds=[0], limits={'rollout_wall_s': 0.001}), out=tmp_path/'wall', progress=False)
    st = json.loads((d/'status.json').read_text())
    assert st['rollout_limits'] == ['rollout_wall_s'] and st['done'] == 0 and st['pending'] == 1
    assert list(st['incomplete']) == [f'{TASK}__H0__s0__K3'] and st['incomplete'][f'{TASK}__H0__s0__K3'].startswith('rollout_wall_s')
    assert not list((d/'rollouts').glob('*.jsonl'))
    # total tokens: the sweep stops, nothing half-written, the rest is left for a resume
    cfg = write_config(tmp_path, name='tok', limits={'total_tokens': 1})
    d = run_sweep(cfg, out=tmp_path/'tok', progress=False)
    st = json.loads((d/'status.json').read_text())
    assert st['stopped_by'] == 'total_tokens' and st['pending'] == 4 and st['done'] == 0
    assert not list((d/'rollouts').glob('*')) and st['tokens_run_total'] > 1
    d = run_sweep(write_config(tmp_path, name='tok', limits={'total_tokens': 10**9}), out=d, progress=False)
    assert json.loads((d/'status.json').read_text())['done'] == 4
    # sweep wall time
    d = run_sweep(write_config(tmp_path, name='sw', limits={'sweep_wall_s': 0.001}), out=tmp_path/'sw', progress=False)
    assert json.loads((d/'status.json').read_text())['stopped_by'] == 'sweep_wall_s'
    # tokens per call: a reply cut at max_tokens is a recorded failure that keeps its tokens
    cut = {'arguments': GOOD[:40], 'finish_reason': 'length', 'usage': {'prompt_tokens': 900, 'completion_tokens': 16, 'total_tokens': 916}}
    d = run_sweep(write_config(tmp_path, name='cut', replies=[cut], harnesses=['H0'], seeds=[0], limits={'tokens_per_call': 16}),
                  out=tmp_path/'cut', progress=False)
    df = load_run(d, expand=False)
    assert (df.limit == 'max_tokens').all() and (~df.ok).all() and (df.tokens_completion == 16).all() and (df.tokens_prompt == 900).all()
    # missing telemetry stays missing, never zero
    be = ScriptedBackend([GOOD], usage=False)
    d = run_sweep(write_config(tmp_path, name='nousage', harnesses=['H0'], seeds=[0]), out=tmp_path/'nousage', backend=be, progress=False)
    df = load_run(d, expand=False)
    assert df.tokens_prompt.isna().all()
    end = json.loads(next((d/'rollouts').iterdir()).read_text().splitlines()[-1])
    assert end['steps_missing_tokens'] == 4


def test_pairs_exclude_and_count_failures(tmp_path):
    other = json.dumps(example_belief(**{'belief_state.task_progress': 'none', 'next_action_recommendation.action': 'ls'}))
    be = ScriptedBackend([GOOD, 'garbage', other])
    d = run_sweep(write_config(tmp_path, harnesses=['H0', 'H1', 'H2']), out=tmp_path/'run', backend=be, progress=False)
    run = load_run(d)
    p = pairs(d)
    assert list(p.columns[:7]) == list(PAIR_KEYS)
    n_fail = (~run.ok).sum()
    assert n_fail > 0 and p.attrs['n_excluded'] > 0
    total = 0
    for (task, K, step), g in run.groupby(['task', 'K', 'step']):
        for s, gs in g.groupby('seed'): total += len(gs) * (len(gs) - 1) // 2
        for h, gh in g.groupby('harness'): total += len(gh) * (len(gh) - 1) // 2
    assert len(p) + p.attrs['n_excluded'] == total
    assert p[['D_belief', 'D_arrival', 'D_growth']].notna().all().all()
    ex = p.attrs['excluded'][0]
    assert set(ex) >= set(PAIR_KEYS) | {'failed'}
    s = summary(d, B=200)
    assert {'harness_a', 'harness_b', 'K', 'metric', 'estimate', 'ci_low', 'ci_high', 'valid_a', 'success_b', 'n_excluded', 'noise_floor'} <= set(s.columns)
    assert set(s.metric) == {'D_belief', 'D_arrival', 'D_growth'} and (s.valid_a <= 1).all()


def test_dask_executor_matches_local(tmp_path):
    distributed = pytest.importorskip('distributed')
    cfg_local = write_config(tmp_path, name='loc')
    ref = run_sweep(cfg_local, out=tmp_path/'local', progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        cfg = write_config(tmp_path, name='loc', executor='dask', scheduler=cluster.scheduler_address)
        d = run_sweep(cfg, out=tmp_path/'dask', progress=False)
        addr = cluster.scheduler_address
        d2 = run_sweep(cfg_local, out=tmp_path/'dask2', progress=False, scheduler=addr)  # --scheduler
    assert json.loads((d/'status.json').read_text())['done'] == 4
    assert keyed(d) == keyed(ref) == keyed(d2)
    assert json.loads((d2/'manifest.json').read_text())['config']['executor'] == 'dask'   # --scheduler really used Dask
    inv = [json.loads(l) for l in (d2/'invocations.jsonl').read_text().splitlines()]
    assert [(i['executor'], i['scheduler'], i['model_settings']) for i in inv] == [('dask', addr, None)]   # one line per invocation


def test_failing_rollout_reported_and_left_for_resume(tmp_path):
    rec = run_sweep(write_config(tmp_path, harnesses=['H0'], seeds=[0], K=[1]), out=tmp_path/'rec', progress=False)
    cfg = write_config(tmp_path, name='other', harnesses=['H0'], seeds=[5], K=[1])
    d = run_sweep(cfg, out=tmp_path/'run', model=f'replay:{rec/"calls.jsonl"}', progress=False)   # seed 5 was never recorded
    st = json.loads((d/'status.json').read_text())
    assert st['done'] == 0 and st['pending'] == 1 and 'no cached call for key' in st['errors'][f'{TASK}__H0__s5__K1']
    assert not list((d/'rollouts').glob('*'))


def test_k20_slice_config():
    "The long-horizon slice: one task, every harness, K = 1..20, the record's sampling so its calls answer steps 0..8."
    from hibd.runs import resolve_tasks, units
    root = Path(__file__).parent.parent/'configs'
    k20, rec = load_config(root/'record_k20.toml'), load_config(root/'record_code.toml')
    assert k20.K == list(range(1, 21)) and len(resolve_tasks(k20)) == 1 and k20.harnesses == rec.harnesses
    assert (k20.temperature, k20.mode, k20.seeds[0]) == (rec.temperature, rec.mode, 0) and k20.reuse == ['../data/runs/record_code']
    assert sum(u.K + 1 for u in units(k20, resolve_tasks(k20))) == 7 * 21


def test_free_control_config():
    "The referee's free-form control: agent_free over closed_code's tasks and seeds, sampling as closed_code, no format."
    from hibd.runs import resolve_tasks, units
    root = Path(__file__).parent.parent/'configs'
    fc, cc = load_config(root/'free_control.toml'), load_config(root/'closed_code.toml')
    tasks = resolve_tasks(fc, str(root/'free_control.toml'))
    assert fc.mode == 'agent_free' and [t.id for t in tasks] == cc.tasks and fc.action_format is None
    assert set(fc.harnesses) < set(cc.harnesses) and fc.seeds == cc.seeds and fc.temperature == cc.temperature
    assert sum(u.K + 1 for u in units(fc, tasks)) == 6 * 3 * 3 * 5


def test_frontier_replay_config(monkeypatch, tmp_path):
    "Issue 37's run: four imported frontier trajectories (folder named by task_folders), H0 and H5, 208 belief calls."
    from hibd.runs import resolve_tasks, units
    from hibd.tasks import add_task_folders
    root = Path(__file__).parent.parent/'configs'
    monkeypatch.setenv('HIBD_TASKS', str(tmp_path))       # restored after the test
    fr = load_config(root/'frontier_replay.toml')
    add_task_folders([root/f for f in fr.task_folders])
    tasks = resolve_tasks(fr, 'frontier_replay.toml')
    assert all(t.imported['base'].startswith('swe_pytest_') and t.imported['format'] == 'mini-swe-agent' for t in tasks)
    assert fr.harnesses == ['H0', 'H5'] and fr.mode == 'replay' and len(fr.seeds) == 2
    assert sum(u.K + 1 for u in units(fr, tasks)) == 4 * 2 * 2 * 13
    nf = load_config(root/'frontier_replay_noprev.toml')       # the same design, previous belief hidden
    assert (nf.tasks, nf.harnesses, nf.seeds, nf.K, nf.temperature, nf.task_folders) == (
        fr.tasks, fr.harnesses, fr.seeds, fr.K, fr.temperature, fr.task_folders)
    assert fr.show_previous_belief and not nf.show_previous_belief


def test_placebo_configs():
    "Issue 34's same-stream placebo: record_control's design and protocol, H0 beside Cp, H0's calls reused."
    from hibd.harnesses import get_harness
    root = Path(__file__).parent.parent/'configs'
    for name, ctl in (('record_placebo', 'record_control'), ('record_placebo_noprev', 'record_control_noprev')):
        pl, c = load_config(root/f'{name}.toml'), load_config(root/f'{ctl}.toml')
        assert (pl.tasks, pl.seeds, pl.K, pl.temperature, pl.mode) == (c.tasks, c.seeds, c.K, c.temperature, c.mode)
        assert pl.show_previous_belief == c.show_previous_belief and pl.reuse == [f'../data/runs/{ctl}']
        assert pl.harnesses == ['H0', 'Cp']
    cp = get_harness('Cp')
    assert (cp.control, cp.replicate, cp.diff(get_harness('H0'))) == ('negative', 0, ['observe'])   # H0's own seeds


def test_closed_loop_configs():
    "closed_code: every one-line task (none selected on a pilot's outcome), previous belief hidden, reusing its pilot; closed_risky."
    from hibd.runs import resolve_tasks
    root = Path(__file__).parent.parent/'configs'
    cc, pt, cr = (load_config(root/f'{n}.toml') for n in ('closed_code', 'pilot_tiny_noprev', 'closed_risky'))
    assert sorted(cc.tasks) == sorted(pt.tasks) == sorted(t.id for t in resolve_tasks(cc) if t.id.startswith('code_tiny_'))
    assert cc.mode == pt.mode == cr.mode == 'agent' and cc.action_format == pt.action_format == 'workflow'
    assert cc.reuse == ['../data/runs/pilot_tiny_noprev'] and set(pt.seeds) < set(cc.seeds) and cc.temperature == pt.temperature
    assert not cc.show_previous_belief and not pt.show_previous_belief and not cr.show_previous_belief
    assert cr.harnesses == ['H0', 'H2', 'H2+reason'] and {t.group for t in resolve_tasks(cr)} == {'risky_cmd'}


def test_negative_seed_refused(tmp_path):
    with pytest.raises(ConfigError, match=r'seeds: every seed must be >= 0'): load_config(write_config(tmp_path, seeds=[0, -1]))


def test_bad_model_spec_leaves_no_run_directory(tmp_path):
    "The spec is checked with the config, before the run directory is made (in the config and as a --model override)."
    with pytest.raises(ConfigError, match=r"model\.spec: unknown model spec 'gpt4'"):
        run_sweep(write_config(tmp_path, model={'spec': 'gpt4'}), out=tmp_path/'a', progress=False)
    with pytest.raises(ConfigError, match=r"model\.spec \(--model\): unknown model spec 'opnai:x'"):
        run_sweep(write_config(tmp_path), out=tmp_path/'b', model='opnai:x', progress=False)
    assert not (tmp_path/'a').exists() and not (tmp_path/'b').exists()


class Slow(ScriptedBackend):
    "Answers its first call at once and every later one only when the call's time is up (a model slower than the budget)."
    def _create(self, kw, remaining):
        if self.hits >= 1: threading.Event().wait(remaining)
        return super()._create(kw, remaining)


def test_rollout_wall_limit_is_redone_on_resume(tmp_path):
    "A rollout cut by rollout_wall_s is not saved as finished: the resume redoes it, its finished calls from the cache."
    one = dict(harnesses=['H0'], seeds=[0])
    d = run_sweep(write_config(tmp_path, limits={'rollout_wall_s': 1.0}, **one), out=tmp_path/'run', backend=(be := Slow([GOOD])), progress=False)
    st = json.loads((d/'status.json').read_text())
    assert st['done'] == 0 and st['pending'] == 1 and st['rollout_limits'] == ['rollout_wall_s'] and not list((d/'rollouts').glob('*'))
    d = run_sweep(write_config(tmp_path, **one), out=d, backend=(be2 := ScriptedBackend([GOOD])), progress=False)
    st = json.loads((d/'status.json').read_text())
    assert st['done'] == 1 and st['incomplete'] == {}
    recs = read_rollouts(d)
    assert len(recs) == 4 and sum(r['cached'] for r in recs) == be.hits and be2.hits == 4 - be.hits


def test_endpoint_that_never_answers_then_resume(tmp_path):
    "Each call ends at call_timeout, nothing is saved as finished, and a resume against an answering endpoint completes the sweep."
    srv = serve_stub([GOOD], delay=math.inf)
    try:
        cfg = write_config(tmp_path, K=[1], seeds=[0], model={'spec': 'openai:stub-model', 'base_url': srv.url, 'call_timeout': 0.3})
        t0 = time.monotonic()
        d = run_sweep(cfg, out=tmp_path/'run', progress=False)
        assert time.monotonic() - t0 < 30                                       # two calls of 0.3 s, not two of the default 120 s
        st = json.loads((d/'status.json').read_text())
        assert st['done'] == 0 and st['pending'] == 2 and st['errors'] == {}
        assert sorted(st['incomplete']) == [f'{TASK}__H0__s0__K1', f'{TASK}__H2__s0__K1']
        assert all(m.startswith('timeout:') and 'time bound of 0.3 s' in m for m in st['incomplete'].values())
        assert not list((d/'rollouts').glob('*.jsonl')) and not list((d/'rollouts').glob('.*.tmp'))
        srv.delay = 0                                                           # the endpoint answers again
        again = write_config(tmp_path, K=[1], seeds=[0], model={'spec': 'openai:stub-model', 'base_url': srv.url,
                                                                'call_timeout': 30.0})   # operational: same design
        run_sweep(again, out=d, progress=False)                                 # (0.3 s can pass on a loaded machine)
        st = json.loads((d/'status.json').read_text())
        assert (st['done'], st['pending'], st['incomplete']) == (2, 0, {})
        assert [len(rs) for rs in [read_rollouts(d)]] == [4]
    finally: srv.shutdown()


def test_sigterm_interrupts_the_call_in_flight(tmp_path):
    "SIGTERM while a call waits on an endpoint that never answers: the sweep ends within seconds, not at call_timeout."
    srv = serve_stub([GOOD], delay=math.inf)
    out = tmp_path/'run'
    cfg = write_config(tmp_path, harnesses=['H0'], K=[1], seeds=[0], model={'spec': 'openai:stub-model', 'base_url': srv.url, 'call_timeout': 120})
    prog = f'from hibd.runs import run_sweep; run_sweep({str(cfg)!r}, out={str(out)!r}, progress=False)'
    proc = subprocess.Popen([sys.executable, '-c', prog], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        t0 = time.time()
        while srv.hits == 0 and time.time() - t0 < 120:
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            time.sleep(0.05)
        assert srv.hits == 1
        t1 = time.monotonic(); proc.send_signal(signal.SIGTERM); rc = proc.wait(60)
        assert time.monotonic() - t1 < 30 and rc == 0
    finally:
        if proc.poll() is None: proc.kill(); proc.wait()
        proc.stderr.close(); srv.shutdown()
    st = json.loads((out/'status.json').read_text())
    assert st['stopped_by'] == 'SIGTERM' and st['pending'] == 1 and st['incomplete'] == {} and st['errors'] == {}


def cut_middle_line(f):
    lines = f.read_text().splitlines()
    f.write_text('\n'.join(lines[:1] + [lines[1][:60]] + lines[2:]) + '\n')


def test_damaged_rollout_named_set_aside_and_redone(tmp_path):
    cfg = write_config(tmp_path)
    d = run_sweep(cfg, out=tmp_path/'run', progress=False)
    before = keyed(d)
    f = d/'rollouts'/f'{TASK}__H2__s1__K3.jsonl'
    cut_middle_line(f)
    for read in (read_rollouts, load_run, summary):
        with pytest.raises(RunError, match=re.escape(f'{f}:2: not a JSON record')) as e: read(d)
        assert 'hibd run CONFIG' in str(e.value)
    # a step count that does not match the end record, and a record of another rollout
    g = d/'rollouts'/f'{TASK}__H0__s0__K3.jsonl'
    lines = g.read_text().splitlines(); g.write_text('\n'.join(lines[:2] + lines[3:]) + '\n')
    h = d/'rollouts'/f'{TASK}__H0__s1__K3.jsonl'
    h.write_text(h.read_text().replace(f'{TASK}__H0__s1__K3', f'{TASK}__H2__s0__K3', 1))
    be = ScriptedBackend([GOOD], model='scripted:t_replies.json')     # the spec's own model id
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        run_sweep(cfg, out=d, backend=be, progress=False)
    st = json.loads((d/'status.json').read_text())
    assert (st['done'], st['skipped'], be.hits) == (3, 1, 0)                  # redone from the cache: no model call
    assert sorted(x['file'] for x in st['damaged']) == sorted(f'rollouts/{p.name}' for p in (f, g, h))
    assert {x['file']: x['problem'].split(':')[0] for x in st['damaged']}[f'rollouts/{f.name}'] == 'line 2'
    assert sum('damaged' in str(x.message) for x in w) == 3
    assert sorted(p.name.split('.')[0] for p in (d/'rollouts'/'damaged').iterdir()) == sorted(p.stem for p in (f, g, h))
    assert keyed(d) == before and len(load_run(d))


def test_design_change_after_deleted_manifest_refused(tmp_path):
    "A copy of a finished run, manifest and one harness's rollouts deleted, resumed at another temperature: refused, not mixed."
    d = run_sweep(write_config(tmp_path), out=tmp_path/'run', progress=False)
    c = tmp_path/'copy'; shutil.copytree(d, c)
    (c/'manifest.json').unlink()
    for p in (c/'rollouts').glob('*__H2__*'): p.unlink()
    with pytest.raises(RunError, match=r"__H0__s0__K3\.jsonl: a finished rollout of another design \(temperature: 0\.0 in the file, 0\.5 in this run"):
        run_sweep(write_config(tmp_path, temperature=0.5), out=c, progress=False)
    assert not (c/'manifest.json').exists() and not list((c/'rollouts').glob('*__H2__*'))
    with pytest.raises(RunError, match='another design'):                      # same fields, other seeds: the run_id says so
        run_sweep(write_config(tmp_path, seeds=[0, 2]), out=c, progress=False)  # ([0, 1, 2] extends the run: see below)
    run_sweep(write_config(tmp_path), out=c, progress=False)                    # the same design resumes
    assert keyed(c) == keyed(d)
    other = tmp_path/'other'; shutil.copytree(d, other)                          # a rollout of another run copied in: the readers refuse it
    run_sweep(write_config(tmp_path, name='hot', temperature=0.5), out=tmp_path/'hot', progress=False)
    shutil.copy(next((tmp_path/'hot'/'rollouts').glob('*__H0__s0__*')), other/'rollouts')
    with pytest.raises(RunError, match='a rollout of another design'): load_run(other)


def test_status_counts_beliefs_and_failures(tmp_path):
    "status.json carries what `hibd run` reports: beliefs elicited and failed now and over the run, and the files holding failures."
    cfg = write_config(tmp_path, harnesses=['H0'])
    d = run_sweep(cfg, out=tmp_path/'run', backend=ScriptedBackend(['garbage']), progress=False)
    st = json.loads((d/'status.json').read_text())
    assert (st['beliefs'], st['beliefs_failed'], st['run_beliefs'], st['run_beliefs_failed']) == (8, 8, 8, 8)
    assert st['failure_files'] == st['run_failure_files'] == [f'rollouts/{TASK}__H0__s{s}__K3.jsonl' for s in (0, 1)]
    run_sweep(write_config(tmp_path, harnesses=['H0'], seeds=[0, 1, 2]), out=tmp_path/'run2', backend=ScriptedBackend([GOOD]), progress=False)
    st = json.loads((d/'status.json').read_text())
    d2 = tmp_path/'run2'; st2 = json.loads((d2/'status.json').read_text())
    assert (st2['beliefs'], st2['beliefs_failed'], st2['failure_files'], st2['run_rollouts_finished']) == (12, 0, [], 3)


def test_instructor_mode_in_config_design_and_manifest(tmp_path):
    "[model] mode: auto (default) stays out of the design; another mode is in it; the manifest says what was asked and used."
    srv = serve_stub([GOOD], reject_tools=True)
    try:
        p = write_config(tmp_path, harnesses=['H0'], seeds=[0], K=[1], model={'spec': 'openai:stub-model', 'base_url': srv.url, 'max_retries': 0})
        with warnings.catch_warnings(record=True): warnings.simplefilter('always'); d = run_sweep(p, out=tmp_path/'auto', progress=False)
        man = json.loads((d/'manifest.json').read_text())
        assert (man['model']['mode'], man['model']['mode_used'], 'instructor_mode' in man['design']) == ('auto', ['json'], False)
        assert {c['mode'] for c in map(json.loads, (d/'calls.jsonl').read_text().splitlines())} == {'json'}   # every call answered in json mode
        j = run_sweep(p, out=tmp_path/'json', progress=False, mode='json')
        mj = json.loads((j/'manifest.json').read_text())
        assert (mj['model']['mode'], mj['model']['mode_used'], mj['design']['instructor_mode']) == ('json', ['json'], 'json')
        with pytest.raises(ConfigError, match=r"instructor_mode: None -> 'tools'"): run_sweep(p, out=d, progress=False, mode='tools')
    finally: srv.shutdown()


def test_reproduce_tool_says_whether_recorded_calls_come_back(tmp_path):
    "`tools/reproduce.py` re-asks a rollout's first steps with no cache: the same replies pass, a changed recorded reply fails."
    d = run_sweep(write_config(tmp_path), out=tmp_path/'run', progress=False)
    rid, tool = f'{TASK}__H0__s1__K3', Path(__file__).parents[1]/'tools'/'reproduce.py'
    ask = lambda out: subprocess.run([sys.executable, str(tool), str(d), rid, '--steps', '2', '--out', str(out)], capture_output=True, text=True)
    r = ask(tmp_path/'same.json')
    assert r.returncode == 0, r.stderr
    res = json.loads((tmp_path/'same.json').read_text())
    assert res['reproduced'] is True and [s['step'] for s in res['steps']] == [0, 1] and all(s['same_raw'] for s in res['steps'])
    f = d/'rollouts'/f'{rid}.jsonl'
    recs = [json.loads(x) for x in f.read_text().splitlines()]
    recs[1]['raw_texts'] = ['{"something": "else"}']
    f.write_text(''.join(json.dumps(x) + '\n' for x in recs))
    r = ask(tmp_path/'changed.json')
    steps = json.loads((tmp_path/'changed.json').read_text())['steps']
    assert r.returncode == 1 and [s['same_raw'] for s in steps] == [True, False] and all(s['same_key'] for s in steps)


# ---------------------------------------------------------------------------------------------------------------
# issue 33: bad input is one clear line, and nothing is made or half-written

def test_config_values_refused_by_name(tmp_path):
    "A binary file, `seeds = [true]`, infinite numbers, names leaving runs/: each a `ConfigError` naming the field."
    p = tmp_path/'x.toml'
    p.write_bytes(bytes(range(256)))
    with pytest.raises(ConfigError, match=re.escape(f'{p}: not a text file (byte 128 is not UTF-8)')): load_config(p)
    for over, msg in [(dict(seeds=[True]), 'seeds[0]: expected an integer, got true'),          # was: seed 1
                      (dict(K=[1, True]), 'K[1]: expected an integer, got true'),
                      (dict(concurrency=True), 'concurrency: expected an integer, got true')]:
        with pytest.raises(ConfigError, match=re.escape(f'{tmp_path}/t.toml: {msg}')):
            load_config(write_config(tmp_path, **over))
    for name in ('', '../../x', '/tmp/elsewhere'):              # was: the run went into runs/ itself, or outside it
        p.write_text(write_config(tmp_path).read_text().replace('name = "t"', f'name = {json.dumps(name)}'))
        want = f'{p}: name: expected a plain folder name (the run directory is runs/<name>), got {json.dumps(name)}'
        with pytest.raises(ConfigError, match=re.escape(want)): load_config(p)
    for table, key in (('', 'temperature'), ('[model]\n', 'call_timeout'), ('[limits]\n', 'rollout_wall_s')):
        p.write_text(f'tasks = ["{TASK}"]\nK = [1]\n{table}{key} = inf\n')
        field = {'': '', '[model]\n': 'model.', '[limits]\n': 'limits.'}[table] + key
        with pytest.raises(ConfigError, match=re.escape(f'{p}: {field}: expected a finite number, got inf')):
            load_config(p)


def test_nothing_made_for_a_model_that_cannot_answer(tmp_path, monkeypatch):
    "A missing replies file, GGUF or API key, or `replay` on a new directory: a `ConfigError`, and no run directory."
    cfg = write_config(tmp_path)
    cases = [('scripted:/missing', 'scripted: cannot read /missing'),
             ('local:/missing.gguf', 'no model file at /missing'),
             ('replay', 'no recorded calls at'), ('openai:gpt-4o-mini', 'no API key for https://example.com/v1')]
    monkeypatch.delenv('OPENAI_API_KEY', raising=False)
    for spec, msg in cases:
        with pytest.raises(ConfigError, match=re.escape(f'model.spec (--model): {spec}: ') + '.*' + re.escape(msg)):
            run_sweep(cfg, out=tmp_path/'new'/'run', model=spec, base_url='https://example.com/v1', progress=False)
        assert not (tmp_path/'new').exists(), spec
    # what cannot be checked beforehand (here: a backend that fails to load) removes what the invocation made
    import hibd.runs as R
    def broken(*a, **k): raise ModelError('the model did not load')
    monkeypatch.setattr(R, 'make_backend', broken)
    with pytest.raises(ModelError, match='did not load'): run_sweep(cfg, out=tmp_path/'new'/'run', progress=False)
    assert not (tmp_path/'new').exists()
    (tmp_path/'old').mkdir(); (tmp_path/'old'/'keep.txt').write_text('x')        # a folder that was there stays
    with pytest.raises(ModelError): run_sweep(cfg, out=tmp_path/'old', progress=False)
    assert sorted(p.name for p in (tmp_path/'old').iterdir()) == ['.lock', 'keep.txt']   # its new rollouts/ removed


def test_extended_run_resumes_after_its_manifest_is_lost(tmp_path):
    "A run extended by a seed keeps its first run id; with the manifest lost, the config that made it still resumes it."
    one = dict(harnesses=['H0'], K=[1])
    d = run_sweep(write_config(tmp_path, seeds=[0], **one), out=tmp_path/'run', progress=False)
    first = json.loads((d/'manifest.json').read_text())['run_id']
    cfg = write_config(tmp_path, seeds=[0, 1], **one)
    run_sweep(cfg, out=d, progress=False)
    before = keyed(d)
    (d/'manifest.json').unlink()
    be = ScriptedBackend([GOOD], model='scripted:t_replies.json')
    run_sweep(cfg, out=d, backend=be, progress=False)                     # was: 'a finished rollout of another design'
    man, st = json.loads((d/'manifest.json').read_text()), json.loads((d/'status.json').read_text())
    assert man['run_id'] == first and man['extended'][0]['added'] == {'seeds': [1]} and man['design']['seeds'] == [0, 1]
    assert (st['skipped'], st['done'], be.hits) == (2, 0, 0) and keyed(d) == before
    (d/'manifest.json').unlink()                                          # a design that is no extension: refused
    with pytest.raises(RunError, match='another design'):
        run_sweep(write_config(tmp_path, seeds=[1, 0], **one), out=d, progress=False)


def test_manifest_field_of_the_wrong_type_named(tmp_path):
    "A hand-edited manifest (`K = \"two\"`): the readers name the file and the field (was a TypeError deep in pandas)."
    d = run_sweep(write_config(tmp_path, harnesses=['H0'], seeds=[0], K=[1]), out=tmp_path/'run', progress=False)
    m = json.loads((d/'manifest.json').read_text()); m['design']['K'] = 'two'
    (d/'manifest.json').write_text(json.dumps(m))
    for read in (load_run, read_rollouts):
        with pytest.raises(RunError, match=re.escape(f'{d}/manifest.json: design.K: expected a list, got "two"')):
            read(d)


def test_a_reader_that_asks_leaves_a_damaged_file_out(tmp_path):
    "`load_run(..., damaged=[])`: a damaged rollout file is named with its line and left out; the others are read."
    d = run_sweep(write_config(tmp_path, harnesses=['H0'], K=[1]), out=tmp_path/'run', progress=False)
    f = d/'rollouts'/f'{TASK}__H0__s1__K1.jsonl'
    cut_middle_line(f)
    bad = []
    df = load_run(d, damaged=bad)
    assert [b['file'] for b in bad] == [f'rollouts/{f.name}'] and bad[0]['problem'].startswith('line 2: not a JSON')
    assert set(df.seed) == {0} and len(df) == 2
    with pytest.raises(RunError, match='not a JSON record'): load_run(d)      # a reader that does not ask: refused
