"""Trajectories of other agents in the suite, seen from outside: `hibd tasks import-traj` on files written by the
real tools (the public mini-swe-agent run, SWE-agent, inspect_ai's own writer, harbor's ATIF converter), into a
folder of one's own that adds to the suite; `hibd tasks list` with a bad folder; `hibd tasks check` against the
recording; a replay of the public 34-step trajectory under H0 and H2 whose step records keep the recording beside."""
import json, lzma, os, subprocess, sys
from pathlib import Path
import pytest
from hibd.schema import example_belief
from hibd.tasks import load_task

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT/'tests'/'data'/'trajectories'
FILES = {'mini-swe-agent': FIX/'pytest-dev__pytest-7432.traj.json.xz',
         'swe-agent': FIX/'pytest-dev__pytest-7432.swe-agent.traj.xz',
         'inspect_ai': FIX/'inspect_bash.eval',
         'atif': next((FIX/'atif').glob('pytest-dev__pytest-7432__*/agent/trajectory.json'))}


def hibd(*args, tasks: Path):
    "Run `hibd` in its own process with `tasks` as the user's task folder."
    env = {**os.environ, 'HIBD_TASKS': str(tasks)}
    return subprocess.run([str(Path(sys.executable).parent/'hibd'), *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=900)


@pytest.fixture(scope='module')
def mine(tmp_path_factory):
    "The four formats imported into one folder of one's own, as trajectories of swe_pytest_7432."
    d = tmp_path_factory.mktemp('mine')
    r = hibd('tasks', 'import-traj', *FILES.values(), '--task', 'swe_pytest_7432', tasks=d)
    assert r.returncode == 0, r.stderr
    return d, r.stdout.splitlines()


def test_each_format_imports(mine):
    d, lines = mine
    by_fmt = {f: [x for x in lines if f'of swe_pytest_7432 ({f}' in x] for f in FILES}
    assert all(by_fmt.values()), lines                         # every format gave at least one trajectory
    assert any(x.split(': ')[1].startswith('34 commands') for x in by_fmt['mini-swe-agent']), by_fmt
    for folder in d.iterdir():
        t = load_task(folder)
        rows = [json.loads(x) for x in lzma.open(folder/'recorded.jsonl.xz', 'rt')]
        assert t.imported['base'] == 'swe_pytest_7432' and len(rows) == len(t.trajectory) == len(t.recorded) > 0
    r = hibd('tasks', 'list', '--json', tasks=d)
    ids = {x['id'] for x in json.loads(r.stdout)}
    assert {p.name for p in d.iterdir()} <= ids and 'code_stale_cache_trap' in ids     # added to the suite


def test_again_is_the_same_and_refusals_write_nothing(mine, tmp_path):
    d, lines = mine
    r = hibd('tasks', 'import-traj', FILES['mini-swe-agent'], tasks=d)             # found by instance id
    assert r.returncode == 0 and r.stdout.split(':')[0] in {x.split(':')[0] for x in lines}, (r.stdout, r.stderr)
    e = tmp_path/'empty'
    for args, words in [((FILES['mini-swe-agent'], '--limit', '20'), 'more than the limit 20'),
                        ((FILES['inspect_ai'],), 'no hibd task has instance id'),
                        ((FILES['mini-swe-agent'], FILES['inspect_ai']), 'no hibd task has instance id')]:
        r = hibd('tasks', 'import-traj', *args, '--into', e, tasks=e)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and words in r.stderr, r.stderr
        assert not e.exists() or not any(e.iterdir())                               # nothing written, not even one


def test_a_bad_folder_is_one_line(tmp_path):
    (tmp_path/'junk').mkdir(); (tmp_path/'junk'/'task.toml').write_text('id = "junk"\n')
    r = hibd('tasks', 'list', tasks=tmp_path)
    assert r.returncode == 0 and 'code_stale_cache_trap' in r.stdout, r.stderr
    assert r.stderr.strip().splitlines() == [f'hibd: skipped {tmp_path}/junk/task.toml: repo: folder '
                                             f'{tmp_path}/junk/repo is missing (or repo.tar.xz)']


def test_check_compares_with_the_recording(mine):
    d, lines = mine
    tid = next(x.split(':')[0] for x in lines if '(mini-swe-agent' in x)
    r = hibd('tasks', 'check', tid, '--json', tasks=d)
    [rec] = json.loads(r.stdout)
    steps = rec['steps']
    assert len(steps) == 34 and all('recorded' in s for s in steps)
    diff = rec['differs_from_recorded']
    assert diff == {k: sum(s['recorded'][k] is False for s in steps) for k in ('same_exit', 'same_output')}
    assert diff['same_exit'] < 34 and diff['same_output'] < 34          # most of it reproduces in the sandbox
    assert steps[0]['recorded']['same_exit'] is True                    # `ls` first, as the agent saw it
    cmds = load_task(d/tid).trajectory
    bare = [s for c, s in zip(cmds, steps) if c.split()[0] == 'pytest']
    assert bare and all(s['recorded']['same_exit'] for s in bare), bare    # the repo's own console script, not hibd's
    r = hibd('tasks', 'check', tid, tasks=d)
    assert f"against the recording: {diff['same_exit']} of 34 steps ended with another exit code" in r.stdout


def test_replay_under_h0_and_h2(mine):
    "The public trajectory replayed (K = 4) under H0 and H2 (folder named by the config): records keep the recording."
    d, lines = mine
    tid = next(x.split(':')[0] for x in lines if '(mini-swe-agent' in x)
    (d.parent/'replies.json').write_text(json.dumps([json.dumps(example_belief())]))
    cfg = d.parent/'imp.toml'
    cfg.write_text(f'name = "imp"\ntasks = ["{tid}"]\nharnesses = ["H0", "H2"]\nK = [4]\nseeds = [0]\n'
                   f'task_folders = ["{d.name}"]\n'                       # beside the config, without $HIBD_TASKS
                   f'[model]\nspec = "scripted:{d.parent/"replies.json"}"\nmax_retries = 0\n')
    r = hibd('run', cfg, '--out', d.parent/'run', tasks=d.parent/'none')
    assert r.returncode == 0, r.stderr
    for h in ('H0', 'H2'):
        recs = [json.loads(x) for x in (d.parent/'run'/'rollouts'/f'{tid}__{h}__s0__K4.jsonl').read_text().splitlines()]
        steps = [x for x in recs if x.get('step', 0) > 0]
        assert [s['step'] for s in steps] == [1, 2, 3, 4] and all(s['ok'] for s in steps)
        assert all(set(s['recorded']) == {'exit_code', 'same_exit', 'same_output'} for s in steps), steps[0]
        assert steps[0]['recorded'] == {'exit_code': 0, 'same_exit': True, 'same_output': True}
    man = json.loads((d.parent/'run'/'manifest.json').read_text())
    assert man['design']['tasks'] == [tid]


def test_a_benchmark_task_runs_its_repos_scripts():
    "In swe_pytest_7432's workspace `pytest` is the repo's console script, and hibd's own programs are off PATH."
    import shutil
    from hibd.rollout import action_check
    from hibd.sandbox import Workspace
    task = load_task('swe_pytest_7432')
    with Workspace.fresh(task) as ws:
        assert shutil.which('pytest', path=ws.search_path) == str(task.env.bin/'pytest')
        assert action_check('pytest -q testing/test_skipping.py', ws.search_path) is None
        assert action_check('hibd --help', ws.search_path) == '`hibd` is not a command'   # a program of hibd's venv
        t = ws.run('pytest --version; command -v hibd || echo no hibd')
        assert t.exit_code == 0 and 'no hibd' in t.stdout, (t.stdout, t.stderr)
        assert 'pytest 5.4.1.dev593+ge6e300e72' in t.stderr, t.stderr    # the repo's (its _version.py), not hibd's
