"Every task in data/tasks passes `check_task`: its reference trajectory runs under H0 in the sandbox and meets its `[expect]`."
import pytest
from hibd.tasks import load_tasks
from hibd.harnesses import check_task

TASKS = load_tasks()

def test_there_are_tasks():
    assert len(TASKS) >= 8

@pytest.mark.parametrize('task', TASKS, ids=[t.id for t in TASKS])
def test_check_task(task):
    r = check_task(task)
    assert r['problems'] == [] and r['ok'], '\n'.join(r['problems'])
    assert (r['full_before'], r['full_after']) == (task.expect['full_before'], task.expect['full_after'])
    assert len(r['steps']) == len(task.trajectory)
    risky = {s['step']: s['risk_class'] for s in r['steps'] if s['risk_class']}
    assert risky == task.expect['risky_steps']
