"""Write `mswea_v2_toolcall.traj.json` and `mswea_v2_text.traj.json` with mini-swe-agent's own agent and writer.

mini-swe-agent 2.4.6 (MIT), in a virtual environment of its own (it pulls litellm; hibd does not need it):

    python3 -m venv /tmp/venv_mswea && /tmp/venv_mswea/bin/pip install mini-swe-agent==2.4.6
    MSWEA_SILENT_STARTUP=1 /tmp/venv_mswea/bin/python tests/data/trajectories/make_mswea_fixture.py

`DefaultAgent` runs the scripted replies of its own test models (`DeterministicToolcallModel`: native tool calls,
the v2 default; `DeterministicModel`: text with a fenced block) in `LocalEnvironment`, in a throwaway git
repository under /tmp, and `DefaultAgent.save` writes the trajectory exactly as `mini-extra swebench` does (with
`instance_id` at the top). Commands and outputs are real; the model is a script, so there is no cost.
"""
import json, subprocess, tempfile
from pathlib import Path
from minisweagent.agents.default import DefaultAgent
from minisweagent.environments.local import LocalEnvironment
from minisweagent.models.test_models import (DeterministicModel, DeterministicToolcallModel, make_output,
                                             make_toolcall_output)

HERE = Path(__file__).parent
CALC = 'def add(a, b):\n    return a - b\n'
SYSTEM = 'You are a helpful assistant that can interact with a computer.'
TASK = 'calc.add(2, 2) returns 0 instead of 4. Fix it, then submit with `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`.'
COMMANDS = [['cat calc.py'],
            ["python3 -c 'import calc; assert calc.add(2, 2) == 4'", "grep -n 'return' calc.py"],  # two calls at once
            ["sed -i 's/a - b/a + b/' calc.py && python3 -c 'import calc; print(calc.add(2, 2))'"],
            ['sleep 5'],                                                                   # killed by the timeout
            ['echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff']]


def repo() -> str:
    d = tempfile.mkdtemp(prefix='mswea_demo_')
    (Path(d)/'calc.py').write_text(CALC)
    subprocess.run('git init -q && git add -A && git -c user.name=x -c user.email=x@y commit -qm init', shell=True,
                   cwd=d, check=True)
    return d


def toolcall_outputs() -> list:
    out = []
    for i, cmds in enumerate(COMMANDS):
        calls = [{'id': f'call_{i}_{j}', 'type': 'function',
                  'function': {'name': 'bash', 'arguments': json.dumps({'command': c})}} for j, c in enumerate(cmds)]
        out.append(make_toolcall_output(f'Step {i}.', calls,
                                        [{'command': c, 'tool_call_id': f'call_{i}_{j}'} for j, c in enumerate(cmds)]))
    return out


def text_outputs() -> list:
    return [make_output(f'THOUGHT: step {i}.\n\n```mswea_bash_command\n{c}\n```', [{'command': c}])
            for i, cmds in enumerate(COMMANDS) for c in cmds]


def run(model, name: str, iid: str):
    agent = DefaultAgent(model, LocalEnvironment(cwd=repo(), timeout=1), system_template=SYSTEM,
                         instance_template='{{task}}', step_limit=20, cost_limit=100.0)
    info = agent.run(TASK)
    agent.save(HERE/name, {'info': {'exit_status': info.get('exit_status'), 'submission': info.get('submission')},
                           'instance_id': iid})
    print(name, info.get('exit_status'), len(agent.messages), 'messages')


if __name__ == '__main__':
    run(DeterministicToolcallModel(outputs=toolcall_outputs()), 'mswea_v2_toolcall.traj.json', 'demo__calc-1')
    run(DeterministicModel(outputs=text_outputs()), 'mswea_v2_text.traj.json', 'demo__calc-2')
