"""Write `inspect_bash.eval` and `inspect_bash.json`: a real inspect_ai eval log, by inspect_ai's own runner and writer.

inspect_ai 0.3.285 (MIT; hibd's optional extra `traj`): `pip install -e '.[traj]'`, then

    .venv/bin/python tests/data/trajectories/make_inspect_fixture.py

A two-sample task runs with inspect's `mockllm` model (scripted replies: no network, no cost), its `bash` and
`python` tools and the `local` sandbox (a temporary folder per sample), through `generate` (which runs the tool calls).
The commands really run; the sandbox events carry their exit codes. The log is written once by `eval` (`.eval`) and
read back and written again as `.json` with `write_eval_log`.
"""
import tempfile
from pathlib import Path
from inspect_ai import Task, eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import includes
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import ToolCall, bash, python

HERE = Path(__file__).parent
SETUP = "printf 'def add(a, b):\\n    return a - b\\n' > calc.py"
CALLS = {  # per sample: one list of (tool, arguments) per model turn; a turn with several calls runs them together
    'demo__calc-1': [[('bash', {'command': 'cat calc.py'})],
                     [('bash', {'command': "python3 -c 'import calc; assert calc.add(2, 2) == 4'"})],
                     [('python', {'code': "import pathlib\np = pathlib.Path('calc.py')\n"
                                          "p.write_text(p.read_text().replace('a - b', 'a + b'))"})],
                     [('bash', {'command': "python3 -c 'import calc; print(calc.add(2, 2))'"}),
                      ('bash', {'command': 'ls missing_file'})]],
    'demo__calc-2': [[('bash', {'command': 'wc -l calc.py'})]]}


def outputs():
    "The scripted model: for each sample, its turns in order, then a final answer."
    def reply(messages, tools, tool_choice, config):
        sid = next(m.text for m in messages if m.role == 'user').split()[0]
        turn = sum(m.role == 'assistant' for m in messages)
        if turn == len(CALLS[sid]): return used(ModelOutput.from_content('mockllm/model', 'DONE: 2 + 2 == 4'))
        calls = [ToolCall(id=f'{sid}-{turn}-{j}', function=f, arguments=a)
                 for j, (f, a) in enumerate(CALLS[sid][turn])]
        out = ModelOutput.for_tool_call('mockllm/model', calls[0].function, calls[0].arguments,
                                        tool_call_id=calls[0].id, content=f'turn {turn}')
        out.choices[0].message.tool_calls = calls
        return used(out)
    return reply


def used(out: ModelOutput) -> ModelOutput:
    "Fixed token counts (mockllm would count them with tiktoken, whose tables it downloads)."
    out.usage = ModelUsage(input_tokens=100, output_tokens=10, total_tokens=110)
    return out


def task() -> Task:
    samples = [Sample(id=sid, input=f'{sid} calc.add(2, 2) returns 0. Fix calc.py.', target='DONE',
                      setup=SETUP, metadata={'instance_id': sid} if sid.endswith('1') else {}) for sid in CALLS]
    return Task(name='hibd_demo_calc', dataset=samples, solver=[use_tools(bash(timeout=30), python(timeout=30)),
                                                                generate()],
                scorer=includes(), sandbox='local')


if __name__ == '__main__':
    with tempfile.TemporaryDirectory() as tmp:
        [log] = inspect_eval(task(), model=get_model('mockllm/model', custom_outputs=outputs()), log_dir=tmp,
                             log_format='eval', max_samples=1, display='none')
        assert log.status == 'success', log.error and log.error.message
        eval_file = Path(log.location)
        (HERE/'inspect_bash.eval').write_bytes(eval_file.read_bytes())
    write_eval_log(read_eval_log(str(HERE/'inspect_bash.eval')), str(HERE/'inspect_bash.json'), format='json')
    for p in ('inspect_bash.eval', 'inspect_bash.json'): print('wrote', p, (HERE/p).stat().st_size, 'bytes')
