"hibd.analysis: every analysis recovers an answer planted in a synthetic input, plus a smoke run on the committed quickstart run."
import warnings
from pathlib import Path
import numpy as np, pandas as pd, pytest
from scipy import stats as sps
from hibd.metrics import COMPONENTS
from hibd.runs import load_run
from hibd.pairs import pairs as run_pairs
from hibd.stats import RESULT_COLUMNS, PairsError, synthetic_pairs, cross
from hibd.analysis import (agreement, agreement_chart, attractor_auroc, auroc, calibration, ece, forecasts, grouped, grouped_chart,
                           k_tests, lemma1, long_horizon, long_horizon_chart, main_chart, main_table, reliability, reliability_chart,
                           reweight, sensitivity, sensitivity_chart, synthetic_run, theorem1, theorem1_chart)

QUICKSTART = Path(__file__).parent.parent/'data'/'runs'/'quickstart'

def _warned(f, *a, **kw):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always'); out = f(*a, **kw)
    return out, [str(x.message) for x in w]

# --- 1. main table and paired tests across K --------------------------------------------------------------------------
def test_main_table_recovers_planted_levels_and_floor():
    sp = synthetic_pairs(n_tasks=16, seed=0)
    mt = main_table(sp, B=2000)
    assert list(mt.columns[:13]) == list(RESULT_COLUMNS)
    arr = .25 * .9 / .3 + .05 * .8 / .3                   # planted D_arrival of every cross pair
    a = mt[mt.metric == 'D_arrival']
    assert ((a.ci_low <= arr) & (arr <= a.ci_high)).mean() >= .75
    g = mt[(mt.harness_b == 'H1') & (mt.metric == 'D_growth')].set_index('K')
    assert g.loc[8, 'ci_low'] <= .30 + .03 * 7 <= g.loc[8, 'ci_high']
    assert abs(mt[mt.metric == 'D_growth'].noise_floor.mean() - .08) < .03
    assert (mt.p_adj < .05).all() and (mt.p_adj >= mt.p).all()

def test_main_table_reweights_and_orients():
    sp = synthetic_pairs(n_tasks=6, seed=3)
    eq = main_table(sp, weights='equal', B=200)
    want = cross(sp)[cross(sp).K == 8]
    want = want[want.harness_b == 'H1'][[f'D_{c}' for c in COMPONENTS]].mean(axis=1).mean()
    got = eq[(eq.harness_b == 'H1') & (eq.K == 8) & (eq.metric == 'D_belief')].estimate.item()
    assert abs(got - want) < 1e-12
    flipped = sp.assign(harness_a=sp.harness_b, harness_b=sp.harness_a)
    assert main_table(flipped, B=200).harness_a.unique().tolist() == ['H0']
    with pytest.raises(PairsError, match='no cross-harness rows'): main_table(sp[sp.harness_a == sp.harness_b])

def test_k_tests_planted_slope_and_null():
    kt = k_tests(synthetic_pairs(n_tasks=16, seed=0), B=2000)
    assert kt.family.nunique() == 1 and len(kt) == 18
    r = kt[(kt.harness_b == 'H1') & (kt.metric == 'D_growth') & (kt.K == 8)].iloc[0]
    assert r.ci_low <= .21 <= r.ci_high and r.p_adj < .05
    null = kt[(kt.harness_b == 'H2') & (kt.metric == 'D_growth')]
    assert ((null.ci_low <= 0) & (0 <= null.ci_high)).all()
    empty, w = _warned(k_tests, synthetic_pairs()[lambda d: d.K == 1])
    assert len(empty) == 0 and any('at least two K' in m for m in w)

def test_reweight_matches_components():
    sp = synthetic_pairs(seed=1)
    r = reweight(sp, {'cat': .2, 'fail': .2, 'set': .2, 'num': .2, 'act': .2})
    np.testing.assert_allclose(r.D_growth, sp[['D_cat', 'D_fail', 'D_num']].mean(axis=1), atol=1e-12)

# --- 2. long horizon ---------------------------------------------------------------------------------------------------
def _flip_after_2(h, t, s, k, rng):
    if h == 'H1' and k >= 3 and not (k == 5 and s % 2 == 0): return {'belief_state.likely_failure_mode': 'test_loop'}
    return {}

def test_long_horizon_failure_mode_flip_jumps_at_K3_and_dips_at_K5():
    run = synthetic_run(n_tasks=6, n_seeds=4, Ks=range(1, 8), change=_flip_after_2)
    lh = long_horizon(run_pairs(run), B=1000)
    f = lh[lh.metric == 'D_fail'].set_index('K')
    assert f.estimate.tolist() == [0, 0, 1, 1, .5, 1, 1]
    assert f.loc[3, 'delta'] == 1 and f.loc[3, 'ci_low'] > f.loc[2, 'ci_high']
    assert f.turn[f.turn != ''].to_dict() == {5: 'dip'}
    assert lh[lh.metric != 'D_fail'].estimate.abs().max() == 0
    spec = long_horizon_chart(lh).to_dict(); assert spec['facet']['field'] == 'pair'

# --- 3. Theorem 1 / (C3) and Lemma 1 -----------------------------------------------------------------------------------
def test_theorem1_planted_growth_holds_falling_fails():
    th = theorem1(synthetic_pairs({'H1': .03, 'H2': 0., 'H3': -.04}, seed=1), B=2000)
    one = th[th.harness_b == 'H1'].set_index('transition')
    for tr, v in {'1->3': .06, '3->5': .06, '5->8': .09}.items(): assert one.loc[tr, 'inc_ci_low'] <= v <= one.loc[tr, 'inc_ci_high']
    assert one.loc['all', 'c3'] == 'holds'
    assert th[th.harness_b == 'H3'].set_index('transition').loc['all', 'c3'] == 'fails'
    assert 'sufficient condition' in th.attrs['note'] and th.harness_a.iloc[-1] == 'all pairs'
    assert theorem1_chart(th).to_dict()['facet']['column']['field'] == 'transition'

def _renamed(fail_tasks=(), empty=False):
    def f(h, t, s, k, rng):
        if h != 'H1': return {'belief_state.known_constraints': ['tests pass'], 'belief_state.satisfied_constraints': ['no edits to tests'],
                              'belief_state.violated_constraints': ['variance is wrong']}
        ch = {'belief_state.known_constraints': ['the test suite passes'], 'belief_state.satisfied_constraints': [] if empty else ['tests untouched'],
              'belief_state.violated_constraints': ['variance uses n']}
        if t in fail_tasks: ch['belief_state.likely_failure_mode'] = 'wrong_file_patch'
        return ch
    return f

def test_lemma1_floor_share_on_planted_disjoint_sets():
    l1 = lemma1(synthetic_run(n_tasks=4, n_seeds=2, Ks=(1, 2), change=_renamed()))
    assert l1.violations.sum() == 0 and (l1.share_applies == 1).all() and np.allclose(l1.floor_share, 1)
    l1b = lemma1(synthetic_run(n_tasks=4, n_seeds=2, Ks=(1, 2), change=_renamed(fail_tasks=(0, 1))))
    assert abs(l1b.floor_share.iloc[-1] - .25 / (.25 + .15 / 2)) < 1e-12
    l1c = lemma1(synthetic_run(n_tasks=4, n_seeds=2, Ks=(1, 2), change=_renamed(empty=True)))
    assert l1c.applies.sum() == 0 and l1c.floor_share.iloc[-1] == 0

# --- 4. agreement --------------------------------------------------------------------------------------------------------
def test_agreement_identical_planted_and_missing_K():
    same = agreement(synthetic_run(n_tasks=3, n_seeds=2, harnesses=('H0', 'H1', 'H2')), K=3, B=300)
    assert same.agreement.unique().tolist() == [1.0] and len(same) == 24
    risky = lambda h, t, s, k, rng: {'belief_state.risk_state': 'high'} if h == 'H1' and s % 2 == 0 else {}
    ag = agreement(synthetic_run(n_tasks=3, n_seeds=2, harnesses=('H0', 'H1', 'H2'), change=risky), K=2, B=300)
    rs = ag[ag.field == 'risk_state'].set_index(['harness_a', 'harness_b']).agreement
    assert rs[('H0', 'H1')] == .5 and rs[('H0', 'H2')] == 1 and rs[('H1', 'H1')] == 0
    none, w = _warned(agreement, synthetic_run(), 8)
    assert len(none) == 0 and 'K=8 is not in this run' in none.attrs['message'] and len(w) == 1
    assert agreement_chart(none).to_dict()['mark']['type'] == 'text'
    assert agreement_chart(ag).to_dict()['facet']['column']['field'] == 'field'

# --- 5. calibration and AUROC ------------------------------------------------------------------------------------------
def _fc(n=6000, gap=0., hi=1., seed=0, harness='H1'):
    rng = np.random.default_rng(seed); p = rng.uniform(0, hi, n); y = (rng.random(n) < p).astype(float)
    return pd.DataFrame({'task': [f't{i % 20}' for i in range(n)], 'seed': np.arange(n) // 20, 'K': 1, 'harness': harness,
                         'success_probability': np.clip(p + gap, 0, 1), 'failure_attractor_probability': 1 - p, 'success': y})

def test_ece_by_hand():
    assert abs(ece([.9, .9, .1, .1], [1, 0, 0, 0]) - .25) < 1e-12
    np.testing.assert_allclose(ece([.9, .9, .1, .1], [1, 0, 0, 0], W=np.array([[1, 1, 1, 1], [1, 1, 0, 0]])), [.25, .4])

def test_calibration_calibrated_vs_overconfident():
    cal = calibration(pd.concat([_fc(harness='cal'), _fc(gap=.2, hi=.8, seed=1, harness='over')]), B=1000).set_index('harness')
    assert cal.loc['cal', 'ece'] < .03
    assert cal.loc['cal', 'brier_ci_low'] <= 1 / 6 <= cal.loc['cal', 'brier_ci_high']
    assert cal.loc['over', 'ece_ci_low'] <= .2 <= cal.loc['over', 'ece_ci_high']
    rel = reliability(_fc(gap=.2, hi=.8, seed=1))
    assert abs((rel.mean_forecast - rel.success_rate).mean() - .2) < .04
    assert reliability_chart(rel).to_dict()['facet']['field'] == 'harness'

def test_forecasts_use_the_outcome_at_K():
    fc = forecasts(synthetic_run(n_tasks=2, n_seeds=1, Ks=(1, 2), outcome=lambda h, t, s, k, r: 'pass' if k >= 2 else 'fail'))
    assert fc.groupby('K').success.mean().to_dict() == {1: 0.0, 2: 1.0}
    empty, w = _warned(calibration, synthetic_run(n_tasks=1, n_seeds=1))       # no verifier outcome: empty + warning
    assert len(empty) == 0 and any('no beliefs with a verifier outcome' in m for m in w)

def test_auroc_by_hand_scipy_and_resamples():
    assert abs(auroc([.9, .8, .1, .8], [1, 1, 0, 0]) - 3.5 / 4) < 1e-12
    rng = np.random.default_rng(3); s, y = rng.random(300).round(1), rng.random(300) < .4
    assert abs(auroc(s, y) - sps.mannwhitneyu(s[y], s[~y]).statistic / (y.sum() * (~y).sum())) < 1e-12
    a = auroc([.9, .8, .1, .8], [1, 1, 0, 0], W=np.array([[0, 1, 0, 1], [1, 1, 0, 0]]))
    assert a[0] == .5 and np.isnan(a[1])

def test_attractor_auroc_separable_planted_and_single_class():
    rng = np.random.default_rng(1); n = 600
    fail = rng.random(n) < .5
    base = pd.DataFrame({'task': [f't{i % 12}' for i in range(n)], 'seed': np.arange(n) // 12, 'success_probability': .5, 'success': (~fail).astype(float)})
    sep = base.assign(harness='sep', failure_attractor_probability=np.where(fail, .9, .1))
    d1 = base.assign(harness='d1', failure_attractor_probability=1 / (1 + np.exp(-(rng.normal(0, 1, n) + fail))))
    one = base.assign(harness='one', success=0.0, failure_attractor_probability=.3)
    au, w = _warned(attractor_auroc, pd.concat([sep, d1, one]), B=2000)
    au = au.set_index('harness')
    assert au.loc['sep', ['auroc', 'ci_low', 'ci_high']].tolist() == [1, 1, 1]
    assert au.loc['d1', 'ci_low'] <= sps.norm.cdf(1 / np.sqrt(2)) <= au.loc['d1', 'ci_high']
    assert np.isnan(au.loc['one', 'auroc']) and len(w) == 1 and "'one'" in w[0]

# --- 6. weight sensitivity -------------------------------------------------------------------------------------------------
def _levels(lv, Ks=(1, 3)):
    return pd.DataFrame([dict(task=f't{t}', K=k, step=k, harness_a='H0', seed_a=s, harness_b=h, seed_b=s,
                              **{f'D_{c}': v[i] for i, c in enumerate(COMPONENTS)}) for h, v in lv.items() for t in range(3) for s in range(2) for k in Ks])

def test_sensitivity_fixed_and_moving_ranks():
    fixed = sensitivity(_levels({'H1': [.9] * 5, 'H2': [.5] * 5, 'H3': [.1] * 5}))
    assert not fixed['ranks'].moves.any() and fixed['taus'].tau.unique().tolist() == [1.0] and len(fixed['draws']) == 2000
    mv = sensitivity(_levels({'H1': [.9] * 5, 'H2': [.8, .2, .2, .8, .2], 'H3': [.2, .8, .8, .2, .8], 'H4': [.05] * 5}, Ks=(2,)))
    assert mv['ranks'].set_index('harness').moves.to_dict() == {'H1': False, 'H2': True, 'H3': True, 'H4': False}
    assert len(sensitivity_chart(mv).to_dict()['hconcat']) == 2

# --- 7. grouped ------------------------------------------------------------------------------------------------------------
def test_grouped_recovers_the_planted_leader_per_group():
    ga = synthetic_pairs({'H2': .05, 'H3': 0.}, seed=2).assign(group='risky')
    gb = synthetic_pairs({'H2': 0., 'H3': .05}, seed=3).assign(group='repair', task=lambda d: 'r' + d.task)
    gr = grouped(pd.concat([ga, gb], ignore_index=True), B=2000)
    L = gr['leaders'].set_index(['group', 'K'])
    assert L.loc[('risky', 8), 'leader'] == 'H2' and L.loc[('repair', 8), 'leader'] == 'H3'
    for g in ('risky', 'repair'): assert L.loc[(g, 8), 'lead_ci_low'] <= .7 * .05 * 7 <= L.loc[(g, 8), 'lead_ci_high'] and L.loc[(g, 8), 'clear']
    assert sorted(gr['leaders'].group.unique()) == ['repair', 'risky']
    assert grouped_chart(gr).to_dict()['resolve']['scale']['y'] == 'independent'
    with pytest.raises(PairsError, match='no group column'): grouped(synthetic_pairs())

# --- smoke run on the committed real run ------------------------------------------------------------------------------------
def test_every_analysis_runs_on_quickstart():
    run = load_run(QUICKSTART); P = run_pairs(QUICKSTART)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        mt = main_table(P, B=300); kt = k_tests(P, B=300); lh = long_horizon(P, B=300); th = theorem1(P, B=300)
        l1 = lemma1(run); a1 = agreement(run, 1, B=300); a8 = agreement(run, 8)
        cal = calibration(run, B=300); rel = reliability(run); au = attractor_auroc(run, B=300)
        se = sensitivity(P, n_draws=200); gr = grouped(P, B=300)
    assert len(mt) == 21 * 2 * 3 and mt.noise_floor.isna().all()              # 7 harnesses, K in {1, 2}, one seed: no floor
    assert len(kt) == 21 * 3 and set(lh.K) == {1, 2} and set(lh.metric) == {f'D_{c}' for c in COMPONENTS}
    assert l1.violations.sum() == 0                                             # Lemma 1 holds on real data
    assert len(a1) == 4 * 21 and len(a8) == 0
    assert cal.n.sum() == 14 and rel.n.sum() == 14 and au.auroc.isna().all()  # every replayed rollout fails: single class
    assert any('single-class' in str(w.message) for w in caught) and any('K=8' in str(w.message) for w in caught)
    assert th.transition.unique().tolist() == ['1->2', 'all'] and len(se['ranks']) == 2 * 6
    assert not gr['leaders'].clear.any()                                       # one task: never "clear"
    for ch in (main_chart(mt), long_horizon_chart(lh), theorem1_chart(th), agreement_chart(pd.concat([a1, a8])),
               reliability_chart(rel), sensitivity_chart(se), grouped_chart(gr)):
        assert isinstance(ch.to_dict(), dict)
