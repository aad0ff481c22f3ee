"""Write `pytest-dev__pytest-7432.swe-agent.traj.xz` with SWE-agent's own agent, tools and writer.

SWE-agent 1.1.0 (MIT; source at commit 3ea751c of github.com/SWE-agent/SWE-agent, `pip install -e .` into a virtual
environment of its own) runs its default configuration (`config/default.yaml`: function calling, the `bash` tool,
`str_replace_editor`, review-then-`submit`) with its `replay` model, which issues the scripted tool calls below, on
hibd's SWE-bench instance pytest-dev__pytest-7432 (the task's own `repo.tar.xz`, as a one-commit git repository),
in SWE-ReX's local deployment. So that nothing of this machine changes (SWE-agent installs its tools in /root and
the repository in /), it runs inside bubblewrap on a root of its own (tmpfs, system folders read-only):

    python3 -m venv /tmp/venv_swea && /tmp/venv_swea/bin/pip install -e /path/to/SWE-agent
    /tmp/venv_swea/bin/python tests/data/trajectories/make_sweagent_fixture.py /path/to/SWE-agent

The commands, tool outputs and trajectory file are SWE-agent's; only the model is a script (no cost).
"""
import json, lzma, os, shutil, subprocess, sys, tarfile, tempfile
os.environ.setdefault('LITELLM_LOCAL_MODEL_COST_MAP', 'True')   # litellm: no network at import
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parents[2]
IID = 'pytest-dev__pytest-7432'
REPO = f'/{IID}'                                     # where SWE-agent puts a local repository: /<folder name>
OLD = '                rep.wasxfail = xfailed.reason\n    elif (\n        item._store.get(skipped_by_mark_key, True)'
NEW = '                rep.wasxfail = xfailed.reason\n\n    if (\n        item._store.get(skipped_by_mark_key, True)'
CALLS = [  # (thought, tool, arguments)
    ('Find where --runxfail is handled.', 'bash', {'command': 'grep -n "runxfail" src/_pytest/skipping.py'}),
    ('Read the report hook.', 'str_replace_editor',
     {'command': 'view', 'path': f'{REPO}/src/_pytest/skipping.py', 'view_range': [285, 310]}),
    ('Try the fix (wrong indentation first).', 'str_replace_editor',
     {'command': 'str_replace', 'path': f'{REPO}/src/_pytest/skipping.py', 'old_str': OLD.replace('    elif', 'elif'),
      'new_str': NEW}),
    ('Now with the right text.', 'str_replace_editor',
     {'command': 'str_replace', 'path': f'{REPO}/src/_pytest/skipping.py', 'old_str': OLD, 'new_str': NEW}),
    ('A reproduction script.', 'str_replace_editor',
     {'command': 'create', 'path': f'{REPO}/reproduce_skip.py',
      'file_text': 'import pytest\n\n\n@pytest.mark.skip\ndef test_skip_location():\n    assert 0\n'}),
    ('It needs sys too.', 'str_replace_editor',
     {'command': 'insert', 'path': f'{REPO}/reproduce_skip.py', 'insert_line': 1, 'new_str': 'import sys'}),
    ('Check it.', 'str_replace_editor', {'command': 'view', 'path': f'{REPO}/reproduce_skip.py'}),
    ('Look at the source folder.', 'str_replace_editor', {'command': 'view', 'path': f'{REPO}/src'}),
    ('Clean up.', 'bash', {'command': 'rm reproduce_skip.py && git status --short'}),
    ('Submit.', 'submit', {}),
    ('Submit again after the review.', 'submit', {})]


def replay_file(path: Path):
    acts = [{'message': t, 'tool_calls': [{'type': 'function', 'id': f'call_{i}',
                                           'function': {'name': f, 'arguments': json.dumps(a)}}]}
            for i, (t, f, a) in enumerate(CALLS)]
    path.write_text(json.dumps({IID: acts}) + '\n')


def repo(dest: Path):
    dest.mkdir(parents=True)
    with tarfile.open(ROOT/'data/tasks/swe_pytest_7432/repo.tar.xz') as tf: tf.extractall(dest, filter='data')
    subprocess.run('git init -q && git add -A && git -c user.name=x -c user.email=x@y commit -qm init', shell=True,
                   cwd=dest, check=True)


def main(swea_src: Path):
    work = Path(tempfile.mkdtemp(prefix='swea_fixture_'))
    repo(work/IID); replay_file(work/'replay.jsonl')
    venv = Path(sys.executable).parent.parent
    ro = ['/usr', '/etc', str(Path.home()/'.pyenv'), str(venv), str(swea_src)]
    cmd = ['bwrap', '--tmpfs', '/', '--tmpfs', '/tmp', *[x for p in ro for x in ('--ro-bind', p, p)],
           '--symlink', 'usr/bin', '/bin', '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64',
           '--symlink', 'usr/sbin', '/sbin', '--dev', '/dev', '--proc', '/proc',
           '--bind', str(work), str(work), '--dir', '/root', '--setenv', 'HOME', '/root',
           '--setenv', 'SWE_AGENT_CONFIG_DIR', f'{swea_src}/config', '--setenv', 'SWE_AGENT_TOOLS_DIR',
           f'{swea_src}/tools', '--setenv', 'SWE_AGENT_TRAJECTORY_DIR', str(work), '--chdir', str(work),
           str(venv/'bin/sweagent'), 'run', '--config', f'{swea_src}/config/default.yaml',
           '--agent.model.name', 'replay', '--agent.model.replay_path', str(work/'replay.jsonl'),
           '--env.deployment.type', 'local', '--env.repo.path', str(work/IID),
           '--problem_statement.text', 'skipping: --runxfail breaks pytest.mark.skip location reporting',
           '--problem_statement.id', IID, '--output_dir', str(work/'out')]
    subprocess.run(cmd, check=True, env={'PATH': f'{venv}/bin:/usr/bin:/bin', 'LANG': 'C.UTF-8',
                                         'LITELLM_LOCAL_MODEL_COST_MAP': 'True'})
    traj = next((work/'out').rglob('*.traj'))
    out = HERE/f'{IID}.swe-agent.traj.xz'
    out.write_bytes(lzma.compress(traj.read_bytes(), preset=9 | lzma.PRESET_EXTREME))
    print('wrote', out, out.stat().st_size, 'bytes')
    shutil.rmtree(work)


if __name__ == '__main__':
    main(Path(sys.argv[1]).resolve())
