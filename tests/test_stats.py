"hibd.stats: hand-computed p-values, Holm/BH, bootstrap coverage and clustering, (C3), weight sensitivity, planted effects."
import importlib.util, warnings
from pathlib import Path
import numpy as np, pandas as pd, pytest
from hibd.metrics import COMPONENTS
from hibd.stats import (PairsError, RESULT_COLUMNS, adjust, bootstrap_cells, c3_check, check_pairs, cluster_weights, compare,
                        describe, mixed_model, signflip_p, synthetic_pairs, weight_sensitivity, wilcoxon_p)

def _cell(n_tasks=8, n_seeds=3, mu=.4, task_sd=.1, noise_sd=.05, seed=0):
    "One cell of (task, seed) values: `mu` + a task effect shared by the task's seeds + noise."
    rng = np.random.default_rng(seed)
    t, s = np.meshgrid(np.arange(n_tasks), np.arange(n_seeds), indexing='ij')
    v = mu + rng.normal(0, task_sd, n_tasks)[t] + rng.normal(0, noise_sd, t.shape)
    return pd.DataFrame({'cell': 'c', 'task': t.ravel(), 'seed_a': s.ravel(), 'value': v.ravel()})

# --- permutation test, by hand ---------------------------------------------------------------------------------------
def test_signflip_by_hand():
    # n = 4, all positive: of the 16 sign vectors only all-plus and all-minus reach |sum| = 10
    assert signflip_p([.1, .2, .3, .4]) == 2 / 16
    assert signflip_p([.1, .2, .3, .4], alternative='greater') == 1 / 16
    assert signflip_p([.1, .2, .3, .4], alternative='less') == 1.0
    # |d| = 1, 2, 3, 4 with sum 6: flipping a subset of sum <= 2 or >= 8 reaches |sum| >= 6: {}, {1}, {2} and complements
    assert signflip_p([1, -2, 3, 4]) == 6 / 16
    # n = 3: all eight sign vectors of (1, 1, 1) give sums ±3 (2 of 8) or ±1
    assert signflip_p([1, 1, 1]) == 2 / 8

def test_signflip_random_branch_matches_exact_and_is_never_zero():
    d = np.random.default_rng(5).normal(.2, 1, 21)
    assert abs(signflip_p(d) - signflip_p(d, exact_max=21)) < .01
    assert signflip_p(np.full(30, .5)) == 1 / 100_001     # (hits + 1)/(draws + 1), never 0
    assert signflip_p(d, seed=1) == signflip_p(d, seed=1)

def test_all_zero_differences_are_never_significant():
    assert signflip_p(np.zeros(5)) == 1.0 and signflip_p(np.zeros(40)) == 1.0 and wilcoxon_p(np.zeros(12)) == 1.0
    sp = synthetic_pairs(); sp.loc[sp.harness_b == 'H2', 'D_growth'] = .4
    c = compare(sp, across='K')
    null = c[c.harness_b == 'H2']
    assert null.p.tolist() == [1.0] * 3 and (null.p_adj == 1.0).all() and (null.estimate == 0).all()

# --- multiplicity ----------------------------------------------------------------------------------------------------
def test_holm_and_bh_textbook():
    # sorted p: .005, .01, .03, .04 -> Holm x4, x3, x2, x1 = .02, .03, .06, .04 -> monotone .02, .03, .06, .06
    t = adjust(pd.DataFrame({'p': [.01, .04, .03, .005], 'family': 'F'}))
    np.testing.assert_allclose(t.p_adj, [.03, .06, .06, .02])
    # BH: p_(i) * 4 / i = .02, .02, .04, .04 (already monotone)
    np.testing.assert_allclose(adjust(pd.DataFrame({'p': [.01, .04, .03, .005], 'family': 'F'}), 'fdr_bh').p_adj, [.02, .04, .04, .02])
    # two declared families are adjusted separately
    two = adjust(pd.DataFrame({'p': [.01, .04, .01, .04], 'family': ['A', 'A', 'B', 'B']}))
    np.testing.assert_allclose(two.p_adj, [.02, .04, .02, .04])

# --- bootstrap -------------------------------------------------------------------------------------------------------
def test_bootstrap_covers_true_mean_and_is_reproducible():
    covered = []
    for r in range(40):
        res = bootstrap_cells(_cell(n_tasks=12, seed=r), 'cell', 'value', B=2000, seed=r)
        covered.append(res.ci_low[0] <= .4 <= res.ci_high[0])
    assert np.mean(covered) >= .8, np.mean(covered)         # nominal 95%; percentile CI with 12 clusters runs a bit low
    d = _cell()
    a, b = bootstrap_cells(d, 'cell', 'value', seed=7), bootstrap_cells(d, 'cell', 'value', seed=7)
    pd.testing.assert_frame_equal(a, b)
    assert a.ci_low[0] != bootstrap_cells(d, 'cell', 'value', seed=8).ci_low[0]
    assert a.n_pairs[0] == 24 and a.n_tasks[0] == 8 and a.estimate[0] == pytest.approx(d.value.mean())

def test_cluster_bootstrap_resamples_whole_tasks():
    w = lambda r: (r.ci_high - r.ci_low)[0]
    d = _cell(task_sd=.2, noise_sd=.02)                     # planted between-task effect
    clu, iid = bootstrap_cells(d, 'cell', 'value'), bootstrap_cells(d, 'cell', 'value', cluster=False)
    assert w(clu) > 1.3 * w(iid)
    d0 = _cell(task_sd=0, noise_sd=.05)                     # no task effect: tasks-only matches iid, two-stage is conservative
    i0 = w(bootstrap_cells(d0, 'cell', 'value', cluster=False))
    tasks_only, two_stage = w(bootstrap_cells(d0, 'cell', 'value', within=False)), w(bootstrap_cells(d0, 'cell', 'value'))
    assert .8 < tasks_only / i0 < 1.3
    assert 1.1 < two_stage / tasks_only < 1.6              # variance x (2S-1)/S = 5/3 for S = 3 seeds
    W = cluster_weights([3, 3, 3, 2], B=500, seed=0)
    assert (W[:, 9:].sum(1) % 2 == 0).all()                  # the 2-seed task is drawn whole, 2 draws per copy
    assert (W.reshape(500, -1)[:, :9].reshape(500, 3, 3).sum(2) % 3 == 0).all()

def test_benchmark_loop_reproduces_vectorised_bootstrap():
    spec = importlib.util.spec_from_file_location('bench', Path(__file__).parent.parent / 'benchmarks' / 'bootstrap.py')
    bench = importlib.util.module_from_spec(spec); spec.loader.exec_module(bench)
    df = bench.cells_table(3, 4, 3)
    vec, loop = bootstrap_cells(df, 'cell', 'value', B=300, seed=3), bench.loop_bootstrap(df, B=300, seed=3)
    np.testing.assert_allclose(vec[['estimate', 'ci_low', 'ci_high']], loop[['estimate', 'ci_low', 'ci_high']], rtol=0, atol=1e-12)

# --- tables ----------------------------------------------------------------------------------------------------------
def test_check_pairs_names_the_problem():
    sp = synthetic_pairs()
    with pytest.raises(PairsError, match='missing columns: harness_b, D_act'): check_pairs(sp.drop(columns=['harness_b', 'D_act']))
    bad = sp.copy(); bad.loc[3, 'D_belief'] = 1.5
    with pytest.raises(PairsError, match=r'row 3: column D_belief must be a number in \[0, 1\] \(got 1.5\)'): check_pairs(bad)

def test_planted_effect_found_and_null_not():
    c = compare(synthetic_pairs(), 'D_growth', across='K')
    assert list(c.columns[:13]) == list(RESULT_COLUMNS)
    assert (c[c.harness_b == 'H1'].p_adj < .05).all() and (c[c.harness_b == 'H2'].p_adj >= .05).all()
    d = describe(synthetic_pairs(), 'D_growth', B=1000)
    assert (d.noise_floor < d.ci_low).all()

def test_mixed_model_singular_warns_not_crashes():
    with pytest.warns(RuntimeWarning, match='singular fit'):
        m = mixed_model(synthetic_pairs(task_sd=0, seed=4))
    assert {'Intercept', 'K'} <= set(m.term)

# --- (C3) ------------------------------------------------------------------------------------------------------------
def _series(levels, name, n_tasks=4, n_seeds=3):
    return pd.DataFrame([dict(task=f't{t}', K=k, step=k, harness_a='H0', seed_a=s, harness_b=name, seed_b=s, D_growth=lv + .01 * t)
                         for t in range(n_tasks) for s in range(n_seeds) for k, lv in levels.items()])

def test_c3_monotone_vs_non_monotone():
    r = c3_check(pd.concat([_series({1: .1, 3: .2, 5: .35}, 'Hup'), _series({1: .1, 3: .4, 5: .2}, 'Hbump')], ignore_index=True), B=1000)
    s = r.summary.set_index(['harness_b', 'transition'])
    assert s.loc[('Hup', 'all'), 'share_nonneg'] == 1 and s.loc[('Hup', 'all'), 'c3'] == 'holds'
    assert s.loc[('Hbump', '3->5'), 'share_nonneg'] == 0 and s.loc[('Hbump', '3->5'), 'c3'] == 'fails'
    assert s.loc[('Hbump', 'all'), 'share_nonneg'] == .5
    assert r.failures.transition.tolist() == ['3->5'] and len(r.negative) == 12
    np.testing.assert_allclose(r.increments.query("harness_b == 'Hbump' and K_to == 5").increment, -.2)
    assert 'only a sufficient condition' in repr(r)

# --- weights ---------------------------------------------------------------------------------------------------------
def test_weight_sensitivity_tau_one_when_ranking_cannot_move():
    levels = {'H1': .8, 'H2': .5, 'H3': .2}                   # each harness above the next on every component
    rows = [dict(task=f't{t}', K=3, step=3, harness_a='H0', seed_a=s, harness_b=h, seed_b=s,
                 **{f'D_{c}': lv + .01 * i for i, c in enumerate(COMPONENTS)}) for h, lv in levels.items() for t in range(2) for s in range(2)]
    ws = weight_sensitivity(pd.DataFrame(rows), n_draws=500)
    assert ws.taus.tau.tolist() == [1.0] * 5 and (ws.draw_taus == 1).all()
    assert ws.ranks.harness.tolist() == ['H1', 'H2', 'H3'] and not ws.ranks.moves.any()
