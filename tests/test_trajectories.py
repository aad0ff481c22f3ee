"Reading other agents' trajectories (`hibd.trajectories`) from files written by the tools themselves."
import json, lzma, re, shutil, subprocess, sys, tarfile
from pathlib import Path
import pytest
from hibd.trajectories import (READERS, Trajectory, TrajectoryError, read_atif, read_inspect, read_trajectories,
                               sniff_format)

ROOT = Path(__file__).parent.parent
FIX = ROOT/'tests'/'data'/'trajectories'
MSWEA_V1 = FIX/'pytest-dev__pytest-7432.traj.json.xz'
SWEA = FIX/'pytest-dev__pytest-7432.swe-agent.traj.xz'
ATIF_SWEA = next((FIX/'atif').glob('pytest-dev__pytest-7432__*/agent/trajectory.json'))
ATIF_MSWEA = next((FIX/'atif').glob('demo__calc-1__*/agent/trajectory.json'))
FORMATS = {MSWEA_V1: 'mini-swe-agent', FIX/'mswea_v2_toolcall.traj.json': 'mini-swe-agent',
           FIX/'mswea_v2_text.traj.json': 'mini-swe-agent', SWEA: 'swe-agent', FIX/'inspect_bash.eval': 'inspect_ai',
           FIX/'inspect_bash.json': 'inspect_ai', ATIF_SWEA: 'atif', ATIF_MSWEA: 'atif'}


def one(path) -> Trajectory:
    [t] = read_trajectories(path)
    return t


def error_line(fn) -> str:
    "The message of the `TrajectoryError` that `fn()` raises, checked to be one line."
    with pytest.raises(TrajectoryError) as e: fn()
    assert '\n' not in str(e.value), str(e.value)
    return str(e.value)


def bash(cmd: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(['bash', '-c', cmd], cwd=cwd, capture_output=True, text=True, timeout=60)


def test_the_four_formats_are_registered():
    assert list(READERS) == ['mini-swe-agent', 'swe-agent', 'inspect_ai', 'atif']


@pytest.mark.parametrize('path', list(FORMATS), ids=lambda p: str(p.relative_to(FIX)))
def test_each_fixture_is_claimed_by_exactly_one_format(path):
    head = path.read_bytes()[:4096] if path.suffix != '.xz' else lzma.decompress(path.read_bytes())[:4096]
    claims = [r.name for r in READERS.values() if r.sniff(path, head.decode('utf-8', 'replace'))]
    assert claims == [FORMATS[path]] and sniff_format(path).name == FORMATS[path]


def test_every_fixture_has_a_readme_entry_and_is_small():
    readme = (FIX/'README.md').read_text()
    for p in FORMATS:
        assert p.stat().st_size < 200_000, p
        name = 'atif/<task>__<id>/agent/trajectory.json' if p.name == 'trajectory.json' else p.name
        assert f'`{name}`' in readme or name in readme, f'{name} is not in tests/data/trajectories/README.md'


# --- mini-swe-agent ---------------------------------------------------------------------------------------------------

def test_mini_swe_agent_public_run():
    "The public SWE-bench Verified run of mini-swe-agent 1.15 (Gemini 3 Pro) on one of hibd's instances."
    t = one(MSWEA_V1)
    assert (t.source, t.instance_id, t.model) == ('mini-swe-agent', 'pytest-dev__pytest-7432',
                                                  'google/gemini-3-pro-preview')
    assert len(t.steps) == 34 and t.meta['api_calls'] == 35 and t.meta['format_errors'] == [46]
    assert (t.commands[0], t.steps[0].exit_code, t.steps[0].index) == ('ls -F', 0, 2)
    assert t.commands[-1] == 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached'
    assert t.steps[-1].output == t.meta['submission'] and t.steps[-1].exit_code is None
    assert [s.exit_code for s in t.steps].count(1) == 4 and t.steps[14].exit_code == 1
    assert t.steps[14].output.startswith('============================= test session starts')
    assert t.steps[1].command.startswith("cat <<'EOF' > reproduce_issue.py\n") and t.steps[1].output == ''


def test_mini_swe_agent_2_tool_calls_and_text():
    "mini-swe-agent 2.4's own writer: parallel tool calls, a failure, a timeout and the submission."
    t, x = one(FIX/'mswea_v2_toolcall.traj.json'), one(FIX/'mswea_v2_text.traj.json')
    assert (t.instance_id, x.instance_id, t.model) == ('demo__calc-1', 'demo__calc-2', 'deterministic_toolcall')
    assert t.commands == x.commands and len(t.commands) == 6
    assert [s.exit_code for s in t.steps] == [s.exit_code for s in x.steps] == [0, 1, 0, 0, None, None]
    assert [s.index for s in t.steps] == [2, 4, 4, 7, 9, 11]
    assert t.steps[1].output.endswith('AssertionError\n') and t.steps[3].output == '4\n'
    assert 'timed out' in t.steps[4].extra['exception'] and t.steps[5].extra == {'submitted': True}
    assert t.meta['submission'] == t.steps[5].output and t.meta['format'] == 'mini-swe-agent-1.1'


# --- SWE-agent --------------------------------------------------------------------------------------------------------

def test_swe_agent_run():
    t = one(SWEA)
    assert (t.source, t.instance_id, t.model, t.meta['exit_status']) == ('swe-agent', 'pytest-dev__pytest-7432',
                                                                         'replay', 'submitted')
    assert len(t.steps) == 11 and t.meta['skipped'] == []
    assert t.commands[0] == 'grep -n "runxfail" src/_pytest/skipping.py'
    assert t.commands[-1] == 'git add -A && git diff --cached' and t.steps[-1].tool == 'submit'
    assert {s.exit_code for s in t.steps} == {None}
    assert t.steps[2].output.startswith('No replacement was performed')
    assert all(s.extra['cwd'] == '/pytest-dev__pytest-7432' for s in t.steps)


def test_swe_agent_translations_redo_what_the_editor_did(tmp_path):
    "Replayed in a copy of the task's repository, the translated steps show what SWE-agent saw and end in its patch."
    t, repo = one(SWEA), tmp_path/'repo'
    repo.mkdir()
    with tarfile.open(ROOT/'data/tasks/swe_pytest_7432/repo.tar.xz') as tf: tf.extractall(repo, filter='data')
    init = 'git init -q && git add -A && git -c user.name=x -c user.email=y@z commit -qm init'
    assert bash(init, repo).returncode == 0
    for s in t.steps:
        r = bash(s.command.replace('/pytest-dev__pytest-7432', str(repo)), repo)
        seen = s.output.replace('/pytest-dev__pytest-7432', str(repo))
        if s.command.startswith('cat -n'):     # the editor's view: a header, `cat -n`'s lines (and a numbered last '')
            lines = seen.split('\n', 1)[1].rstrip('\n').split('\n')
            assert lines[:-1 if re.fullmatch(r' *\d+\t', lines[-1]) else None] == r.stdout.rstrip('\n').split('\n')
        elif s.command.startswith('find'):
            assert sorted(filter(None, seen.splitlines()[1:])) == sorted(r.stdout.splitlines()), s.index
        elif s.tool == 'str_replace_editor':                    # an edit: succeeds exactly when the editor's did
            assert (r.returncode == 0) == (not seen.startswith('No replacement')), (s.index, r.stderr)
        elif s.tool == 'bash': assert r.stdout == seen, s.index
    assert r.stdout == t.meta['submission']                     # the last step, submit: SWE-agent's own patch


def test_swe_agent_refuses_what_it_cannot_translate(tmp_path):
    d = json.loads(lzma.decompress(SWEA.read_bytes()))
    d['trajectory'][5]['action'] = 'str_replace_editor undo_edit /pytest-dev__pytest-7432/reproduce_skip.py'
    (tmp_path/'u.traj').write_text(json.dumps(d))
    assert 'u.traj: step 5: str_replace_editor undo_edit restores' in error_line(lambda: one(tmp_path/'u.traj'))
    del d['trajectory'][3]['action']
    (tmp_path/'v.traj').write_text(json.dumps(d))
    assert "v.traj: trajectory[3]: field 'action' is missing" in error_line(lambda: one(tmp_path/'v.traj'))


# --- inspect_ai -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize('name', ['inspect_bash.eval', 'inspect_bash.json'])
def test_inspect_log(name):
    pytest.importorskip('inspect_ai', reason="needs the optional extra: pip install 'hibd[traj]'")
    a, b = read_inspect(FIX/name)
    assert (a.instance_id, b.instance_id, a.model, a.meta['epoch']) == ('demo__calc-1', 'demo__calc-2',
                                                                        'mockllm/model', 1)
    assert [(s.index, s.tool, s.exit_code) for s in a.steps] == [(1, 'bash', 0), (3, 'bash', 1), (5, 'python', 0),
                                                                  (7, 'bash', 0), (7, 'bash', 2)]
    assert (a.commands[0], a.commands[-1], b.commands) == ('cat calc.py', 'ls missing_file', ['wc -l calc.py'])
    assert a.steps[0].output == 'def add(a, b):\n    return a - b\n' and a.meta['scores'] == {'includes': 'C'}


def test_inspect_python_tool_becomes_the_same_run(tmp_path):
    "inspect's `python` tool runs `python3 -` on the code: the heredoc command does the same edit."
    pytest.importorskip('inspect_ai', reason="needs the optional extra: pip install 'hibd[traj]'")
    step = read_inspect(FIX/'inspect_bash.eval')[0].steps[2]
    (tmp_path/'calc.py').write_text('def add(a, b):\n    return a - b\n')
    assert bash(step.command, tmp_path).returncode == 0
    assert (tmp_path/'calc.py').read_text() == 'def add(a, b):\n    return a + b\n'


def test_inspect_refuses_another_tool(tmp_path):
    pytest.importorskip('inspect_ai', reason="needs the optional extra: pip install 'hibd[traj]'")
    d = json.loads((FIX/'inspect_bash.json').read_text())
    d['samples'][0]['messages'][3]['tool_calls'][0]['function'] = 'text_editor'
    (tmp_path/'x.json').write_text(json.dumps(d))
    msg = error_line(lambda: read_trajectories(tmp_path/'x.json'))
    assert msg.endswith("x.json: sample demo__calc-1 epoch 1: message 3: "
                        "tool 'text_editor' has no exact shell equivalent")


def test_inspect_without_the_extra_says_which(monkeypatch):
    monkeypatch.setitem(sys.modules, 'inspect_ai.log', None)
    assert "inspect_bash.eval: reading inspect_ai logs needs inspect_ai: pip install 'hibd[traj]'" in error_line(
        lambda: read_trajectories(FIX/'inspect_bash.eval'))


# --- ATIF -------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize('path', [ATIF_SWEA, ATIF_MSWEA], ids=['swe-agent', 'mini-swe-agent'])
def test_atif_fixtures_follow_harbors_schema(path):
    jsonschema = pytest.importorskip('jsonschema')
    schema = json.loads((FIX/'atif_schema.json').read_text())
    jsonschema.Draft202012Validator(schema).validate(json.loads(path.read_text()))
    bad = json.loads(path.read_text()) | {'steps': 'none'}
    assert not jsonschema.Draft202012Validator(schema).is_valid(bad)


def test_atif_from_harbors_converters():
    a, s = one(ATIF_SWEA), one(SWEA)
    assert (a.source, a.instance_id, a.meta['agent'], a.meta['schema_version']) == ('atif', 'pytest-dev__pytest-7432',
                                                                                    'swe-agent', 'ATIF-v1.5')
    assert a.commands == s.commands and [x.output for x in a.steps] == [x.output for x in s.steps]
    assert [x.index for x in a.steps] == list(range(2, 13))
    m, v = one(ATIF_MSWEA), one(FIX/'mswea_v2_toolcall.traj.json')
    assert (m.instance_id, m.model, m.commands) == ('demo__calc-1', 'deterministic_toolcall', v.commands)
    assert [x.exit_code for x in m.steps] == [0, 1, 0, 0, None, None]
    assert [x.output for x in m.steps[:4]] == [x.output for x in v.steps[:4]] and m.steps[-1].output is None


def test_atif_refuses_another_tool(tmp_path):
    d = json.loads(ATIF_MSWEA.read_text())
    d['steps'][3]['tool_calls'][0]['function_name'] = 'web_search'
    (tmp_path/'trajectory.json').write_text(json.dumps(d))
    assert error_line(lambda: read_atif(tmp_path/'trajectory.json')).endswith(
        "trajectory.json: step 4: tool 'web_search' has no exact shell equivalent")


# --- broken and foreign files, any length -----------------------------------------------------------------------------

def test_truncated_and_corrupt_files_are_one_line(tmp_path):
    raw = lzma.decompress(MSWEA_V1.read_bytes())
    (tmp_path/'cut.traj.json').write_bytes(raw[:len(raw) // 2])
    assert 'cut.traj.json: not valid JSON (' in error_line(lambda: read_trajectories(tmp_path/'cut.traj.json'))
    (tmp_path/'cut.traj.json.xz').write_bytes(MSWEA_V1.read_bytes()[:5000])
    assert 'cut.traj.json.xz: cannot read it' in error_line(lambda: read_trajectories(tmp_path/'cut.traj.json.xz'))
    (tmp_path/'t.json').write_text('{"schema_version": "ATIF-v1.5", "agent": {}, "steps": {}}')
    assert "t.json: field 'steps' is missing or not a list" in error_line(lambda: read_trajectories(tmp_path/'t.json'))


@pytest.mark.parametrize('text', ['a,b\n1,2\n', '{"version": 1}', '[{"role": "user"}]', ''])
def test_a_file_in_no_format_is_one_line(tmp_path, text):
    (tmp_path/'f.json').write_text(text)
    assert re.search(r'f\.json: not a trajectory in any known format \(mini-swe-agent, swe-agent, inspect_ai, atif\)',
                     error_line(lambda: read_trajectories(tmp_path/'f.json')))


def test_any_length_is_accepted(tmp_path):
    "No 6-20 limit here: a 300-command mini-swe-agent 2 run reads as 300 steps, a 1-command one as 1."
    for n in (1, 300):
        msgs = [{'role': 'system', 'content': 's'}, {'role': 'user', 'content': 'task'}]
        for i in range(n):
            msgs += [{'role': 'assistant', 'content': '', 'extra': {'actions': [{'command': f'echo {i}'}]}},
                     {'role': 'user', 'content': f'<returncode>0</returncode>\n<output>\n{i}\n</output>',
                      'extra': {'returncode': 0, 'raw_output': f'{i}\n'}}]
        (tmp_path/f'{n}.traj.json').write_text(json.dumps({'info': {}, 'messages': msgs,
                                                           'trajectory_format': 'mini-swe-agent-1.1'}))
        t = one(tmp_path/f'{n}.traj.json')
        assert len(t.steps) == n and t.commands[-1] == f'echo {n - 1}' and t.steps[-1].output == f'{n - 1}\n'
