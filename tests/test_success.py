"Small checks of `hibd.success`: the refusal of scripted runs, rollout counting, the exact swap test, the planner."
from pathlib import Path
import numpy as np, pandas as pd, pytest
from scipy import stats as sps
from hibd.success import (success_cells, success_test, swap_p, success_table, success_power, plan_success,
                          simulate_success_tests, base_rate)

ROOT = Path(__file__).resolve().parent.parent

def steps(outcomes, K=2, mode='agent'):
    "Step records of a toy run: `outcomes[(task, harness, seed)]` = the result at each step 0..K."
    return pd.DataFrame([{'task': t, 'harness': h, 'seed': s, 'K': K, 'step': i, 'mode': mode,
                          'rollout_id': f'{t}__{h}__s{s}__K{K}', 'terminal': None if r is None else {'result': r}}
                         for (t, h, s), res in outcomes.items() for i, r in enumerate(res)])

def test_replay_refused():
    with pytest.raises(ValueError, match='a replay run has no success of its own'):
        success_cells(ROOT/'data'/'runs'/'record_code')

def test_rollouts_counted_once():
    st = steps({('t', 'H0', 0): ['fail', 'fail', 'pass'], ('t', 'H1', 0): ['fail', 'pass', 'fail']})
    expanded = pd.concat([st[st.step <= k].assign(K=k) for k in (1, 2)])
    c = success_cells(expanded)
    assert len(c) == 2 and c.success.tolist() == [1., 0.]
    assert base_rate(st) == (1., 1)

def test_swap_p_exact():
    rng = np.random.default_rng(1)
    d = rng.choice([-1., 1.], 40) / rng.choice([2, 3, 5], 40)
    p, p_min, exact = swap_p(d)
    assert exact and p_min == 2.0 ** -39
    assert swap_p(np.r_[np.ones(25), -np.ones(8)])[0] == pytest.approx(sps.binomtest(25, 33).pvalue, abs=1e-12)

def test_table_and_level():
    a = np.array([[0, 0, 1], [0, 1, 0], [0, 0, 0.]]); b = np.ones((3, 3))
    r = success_test(a, b)
    assert r['estimate'] == pytest.approx(7 / 9) and r['p'] == pytest.approx(2 ** -6)
    sim = simulate_success_tests([dict(n_tasks=8, n_seeds=3, p0=.5, delta=0., rho=.5)], n_studies=300, B=200)
    assert sim.reject.iloc[0] <= .083 and abs(sim.predicted.iloc[0] - sim.reject.iloc[0]) < .05

def test_planner():
    t = plan_success(.3, .2, seeds=(3,))
    assert float(success_power(.3, .2, t.n_tasks.iloc[0], 3)) >= .8

def test_plan_reads_an_agent_runs_base_rate(tmp_path):
    "`hibd plan --success-delta` without `--success-base`: the reference harness's success rate in an agent-mode run."
    import json
    from click.testing import CliRunner
    from hibd.cli import main
    from hibd.schema import example_belief
    (tmp_path/'r.json').write_text(json.dumps([json.dumps(example_belief())]))
    cfg = tmp_path/'a.toml'
    cfg.write_text('name = "a"\ntasks = ["code_variance_off_by_one"]\nharnesses = ["H0", "H1"]\nK = [1]\n'
                   f'seeds = [0, 1]\nmode = "agent"\n[model]\nspec = "scripted:{tmp_path/"r.json"}"\n')
    assert CliRunner().invoke(main, ['run', str(cfg), '--out', str(tmp_path/'run')]).exit_code == 0
    rate, n = base_rate(tmp_path/'run', 'H0')
    assert n == 2 and rate in (0., .5, 1.)
    t = success_table(tmp_path/'run')                          # a real agent-mode run's records
    assert t.harness_b.tolist() == ['H1'] and t.n_pairs.tolist() == [2] and t.K.tolist() == [1]
    r = CliRunner().invoke(main, ['plan', str(tmp_path/'run'), '--success-delta', '0.2'])
    if 0 < rate < 1: assert r.exit_code == 0 and f'(H0 in run, 2 rollouts)' in r.output
    else: assert r.exit_code == 2 and 'no room for a difference' in r.stderr and '--success-base' in r.stderr
