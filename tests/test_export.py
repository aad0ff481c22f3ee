"A hibd run out as an inspect_ai eval log and as ATIF trajectories (`hibd.export`, `hibd export`)."
import json, sys
from pathlib import Path
import pytest
from click.testing import CliRunner
from hibd.analysis import BELIEF_COLUMNS, load_beliefs
from hibd.cli import main
from hibd.export import ExportError, export_atif, export_inspect, export_run, rebuilt_prompts, run_rollouts
from hibd.trajectories import read_trajectories

ROOT = Path(__file__).parent.parent
RUNS = ROOT/'data'/'runs'
TUTORIAL, QUICKSTART, AGENT = RUNS/'tutorial', RUNS/'quickstart', RUNS/'pilot_tiny'
SCHEMA = json.loads((ROOT/'tests'/'data'/'trajectories'/'atif_schema.json').read_text())
NEEDS_INSPECT = "needs the optional extra: pip install 'hibd[traj]'"


def n_rollouts(run: Path) -> int: return len(list((run/'rollouts').glob('*.jsonl')))


def read_log(run: Path, tmp_path: Path):
    "The run exported as an inspect log and read back by inspect_ai, every sample's attachments resolved."
    from inspect_ai.log import read_eval_log, resolve_sample_attachments
    log = read_eval_log(str(export_inspect(run, tmp_path)))
    log.samples = [resolve_sample_attachments(s) for s in log.samples]
    return log


def flat(belief: dict) -> dict:
    "A belief (SPEC section 2 shape) as `BELIEF_COLUMNS` -> value."
    return {c: belief[c.split('.')[0]][c.split('.')[1]] for c in BELIEF_COLUMNS}


# --- inspect_ai -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize('run', [TUTORIAL, QUICKSTART, AGENT])
def test_one_sample_per_rollout(run, tmp_path):
    pytest.importorskip('inspect_ai', reason=NEEDS_INSPECT)
    log = read_log(run, tmp_path)
    man = json.loads((run/'manifest.json').read_text())
    assert log.status == 'success' and log.eval.task == f"hibd/{run.name}" and log.eval.run_id == man['run_id']
    assert len(log.samples) == n_rollouts(run)
    assert len({(s.id, s.epoch) for s in log.samples}) == len(log.samples)
    for s in log.samples:
        m = s.metadata
        assert s.epoch == man['design']['seeds'].index(m['seed']) + 1
        assert s.id == f"{m['task']}__{m['harness']}__K{m['K']}" and {'harness', 'task', 'K'} <= set(m)
        assert m['prompts_rebuilt'] == m['K'] + 1                    # every prompt matched its recorded hash
        assert [x.role for x in s.messages] == ['system'] + ['user', 'assistant'] * (m['K'] + 1)


def test_beliefs_round_trip(tmp_path):
    "The beliefs read back from one sample's info events equal `load_beliefs` for that rollout."
    pytest.importorskip('inspect_ai', reason=NEEDS_INSPECT)
    log = read_log(AGENT, tmp_path)
    s = next(s for s in log.samples if s.epoch == 2)
    got = [flat(e.data['belief']) for e in s.events if e.event == 'info' and e.source == 'hibd/belief']
    b = load_beliefs(AGENT)
    want = b[b.rollout_id == s.metadata['rollout_id']].sort_values('step')[list(BELIEF_COLUMNS)]
    assert len(got) == len(want) == s.metadata['K'] + 1
    for g, (_, w) in zip(got, want.iterrows()):
        assert g == {c: (list(v) if isinstance(v, list) else v) for c, v in w.items()}


def test_gate_blocks_are_approval_events(tmp_path):
    "In the risky tutorial run H2 blocks `find . -name '*.db' -delete` (a rejected approval); H0 blocks nothing."
    pytest.importorskip('inspect_ai', reason=NEEDS_INSPECT)
    log = read_log(TUTORIAL, tmp_path)
    by = {s.metadata['harness']: [e for e in s.events if e.event == 'approval'] for s in log.samples}
    assert by['H0'] == []
    [a] = by['H2']
    assert (a.decision, a.call.function) == ('reject', 'bash')
    assert a.call.arguments == {'command': 'find . -name "*.db" -delete'}
    assert a.approver == 'hibd gate (H2)' and 'risk class delete' in a.explanation


def test_score_only_in_agent_modes(tmp_path):
    pytest.importorskip('inspect_ai', reason=NEEDS_INSPECT)
    replay = read_log(TUTORIAL, tmp_path/'r')
    assert all(s.scores is None for s in replay.samples) and replay.results.scores == []
    agent = read_log(AGENT, tmp_path/'a')
    man, rs = run_rollouts(AGENT)
    passed = {r.id: r.steps[-1]['terminal']['result'] == 'pass' for r in rs}
    assert {s.metadata['rollout_id']: s.scores['hibd_terminal'].value == 1.0 for s in agent.samples} == passed
    assert agent.results.scores[0].metrics['accuracy'].value == pytest.approx(sum(passed.values()) / len(passed))


def test_without_inspect_ai_one_line(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, 'inspect_ai.log', None)
    with pytest.raises(ExportError, match=r"needs inspect_ai: pip install 'hibd\[traj\]'"):
        export_inspect(TUTORIAL, tmp_path)


# --- ATIF -------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize('run', [TUTORIAL, QUICKSTART, AGENT])
def test_atif_schema_valid(run, tmp_path):
    jsonschema = pytest.importorskip('jsonschema')
    paths = export_atif(run, tmp_path)
    assert len(paths) == n_rollouts(run)
    man, rs = run_rollouts(run)
    for p, ro in zip(paths, rs):
        d = json.loads(p.read_text())
        jsonschema.validate(d, SCHEMA)
        assert p == tmp_path/ro.id/'agent'/'trajectory.json' and d['trajectory_id'] == ro.id
        agent = [s for s in d['steps'] if s['source'] == 'agent']
        assert [s['extra']['belief'] for s in agent] == [r['belief'] for r in ro.steps]


def test_atif_read_back_by_hibd(tmp_path):
    "hibd's own ATIF reader finds the rollout's commands, with what the harness showed after each."
    man, rs = run_rollouts(TUTORIAL)
    [t] = read_trajectories(export_atif(TUTORIAL, tmp_path)[1])
    assert t.commands == [r['action'] for r in rs[1].steps[1:]]
    assert [s.output for s in t.steps] == [r['observation'] for r in rs[1].steps[1:]]


def test_prompts_rebuilt_or_none():
    man, rs = run_rollouts(TUTORIAL)
    assert all(p is not None for r in rs for p in rebuilt_prompts(r.steps, man))
    steps = [dict(s, prompt_hash='0' * 64) if s['step'] == 1 else s for s in rs[0].steps]
    assert [p is None for p in rebuilt_prompts(steps, man)] == [False, True, False, False]


def test_bad_input(tmp_path):
    with pytest.raises(ExportError, match='not a run directory'): export_run(tmp_path, 'atif', tmp_path/'o')
    with pytest.raises(ExportError, match=r"unknown export format 'csv' \(known: inspect, atif\)"):
        export_run(TUTORIAL, 'csv', tmp_path/'o')


# --- the command line -------------------------------------------------------------------------------------------------
def test_cli_one_line_per_file(tmp_path):
    r = CliRunner().invoke(main, ['export', str(TUTORIAL), '--to', 'atif', '--out', str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert r.output.splitlines() == [str(p) for p in sorted(tmp_path.glob('*/agent/trajectory.json'))]
    assert len(r.output.splitlines()) == 2


@pytest.mark.parametrize('args, msg', [([str(TUTORIAL), '--to', 'csv'], "unknown export format 'csv'"),
                                       (['no_such_run', '--to', 'atif'], 'no_such_run: not a run directory')])
def test_cli_errors_one_line(args, msg, tmp_path):
    r = CliRunner().invoke(main, ['export', *args, '--out', str(tmp_path)])
    assert r.exit_code == 2 and r.output.count('\n') == 1, r.output
    assert r.output.startswith('hibd: ') and msg in r.output and 'Traceback' not in r.output
