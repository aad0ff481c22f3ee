"Tests of hibd.metrics: hand-computed pairs, boundaries, bad input, and properties (hypothesis) against the per-pair reference."
import math
import numpy as np, pandas as pd, pytest
from hypothesis import given, settings, strategies as st, HealthCheck
from hibd.schema import (BeliefError, TASK_PROGRESS, RISK_STATE, RECOVERABILITY, FAILURE_MODES, example_belief, random_beliefs,
                         to_table, ID_COLUMNS, constraint_ids)
from hibd.metrics import (WEIGHT_PRESETS, COMPONENTS, divergence, divergence_one, resolve_weights, check_lemma1, lemma1_applies,
                          register_matcher, MATCHERS, using_component, components, indicators, jaccard, exact_matcher)

COLS = ['D_cat', 'D_fail', 'D_set', 'D_num', 'D_act', 'D_belief', 'D_arrival', 'D_growth']

def bel(**kw):
    "`example_belief` with short keys: field names are looked up in their block."
    blocks = example_belief()
    return example_belief(**{f'{next(b for b in blocks if k in blocks[b])}.{k}': v for k, v in kw.items()})

def one(a, b, **kw): return divergence([a], [b], **kw).iloc[0]

# ---------------------------------------------------------------- hand-computed components
def test_cat_by_hand():
    a, b = bel(task_progress='none', risk_state='low', recoverability='high'), bel(task_progress='complete', risk_state='medium', recoverability='high')
    assert one(a, b).D_cat == pytest.approx((4/4 + 1/2 + 0) / 3, abs=1e-15)
    assert one(bel(recoverability='high'), bel(recoverability='low')).D_cat == pytest.approx(1/3, abs=1e-15)

def test_fail_by_hand():
    assert one(bel(likely_failure_mode='none'), bel(likely_failure_mode='test_loop')).D_fail == 1.0
    assert one(bel(likely_failure_mode='test_loop'), bel(likely_failure_mode='test_loop')).D_fail == 0.0

def test_set_by_hand():
    a = bel(known_constraints=['a', 'b', 'c'], satisfied_constraints=['x'], violated_constraints=[])
    b = bel(known_constraints=['b', 'c', 'd', 'e'], satisfied_constraints=[], violated_constraints=[])
    # known: |∩| = 2, |∪| = 5 -> 3/5; satisfied: {x} vs ∅ -> 1; violated: ∅ vs ∅ -> 0
    assert one(a, b).D_set == pytest.approx(.4 * 3/5 + .3 * 1 + .3 * 0, abs=1e-15)

def test_empty_sets_are_zero_distance():
    e = bel(known_constraints=[], satisfied_constraints=[], violated_constraints=[])
    assert one(e, e).D_set == 0.0
    assert divergence_one(e, e)['D_set'] == 0.0

def test_normalisation_and_duplicates():
    a = bel(known_constraints=['  Tests   MUST pass ', 'no\tnetwork'], satisfied_constraints=['x', 'X', ' x '])
    b = bel(known_constraints=['tests must pass', 'NO NETWORK'], satisfied_constraints=['x'])
    assert one(a, b).D_set == 0.0
    c = bel(satisfied_constraints=['x', 'x', 'y'])   # {x, y} vs {x}: 1 - 1/2, duplicates count once
    assert one(c, bel(satisfied_constraints=['x'])).D_set == pytest.approx(.3 * .5, abs=1e-15)

def test_num_by_hand():
    a = bel(uncertainty=.1, success_probability=.2, failure_attractor_probability=.3, expected_repair_need=.4,
            risk_accumulation=0., expected_cost=1., horizon=2)
    b = bel(uncertainty=.3, success_probability=.2, failure_attractor_probability=.0, expected_repair_need=.9,
            risk_accumulation=2.5, expected_cost=11., horizon=2)
    assert one(a, b).D_num == pytest.approx((.2 + 0 + .3 + .5 + .5 + 1 + 0) / 7, abs=1e-15)

def test_horizon_adds_one_seventh():
    a = bel(horizon=1)
    for k in (0, 2, 50):
        assert one(a, bel(horizon=k)).D_num == pytest.approx(1/7, abs=1e-15)
        assert one(a, bel(horizon=k)).D_belief == pytest.approx(.25/7, abs=1e-15)

def test_caps():
    a, b = bel(risk_accumulation=0., expected_cost=0.), bel(risk_accumulation=2., expected_cost=30.)
    assert one(a, b).D_num == pytest.approx((2/5 + 1) / 7, abs=1e-15)
    assert one(a, b, caps={'risk_accumulation': 1.0}).D_num == pytest.approx((1 + 1) / 7, abs=1e-15)   # clipped at 1
    assert one(a, b, caps={'risk_accumulation': 8.0, 'expected_cost': 60.}).D_num == pytest.approx((.25 + .5) / 7, abs=1e-15)
    assert divergence([a], [b], caps={'expected_cost': 60.}).attrs['caps'] == {'risk_accumulation': 5.0, 'expected_cost': 60.0}

def test_act_tok8_and_full():
    base = 'pytest -q tests/test_a.py tests/test_b.py -x -k mean --tb=short'
    a, b = bel(action=base + ' -vv'), bel(action='  PYTEST  -q ' + base[10:] + ' --lf')
    assert one(a, b).D_act == 0.0                       # same first 8 tokens
    assert one(a, b, action='full').D_act == 1.0
    assert one(bel(action='ls'), bel(action='ls -la')).D_act == 1.0

def test_weights_presets_and_identity():
    a, b = bel(task_progress='none', known_constraints=['q']), bel(likely_failure_mode='none', action='ls')
    for p, w in WEIGHT_PRESETS.items():
        r = one(a, b, weights=p)
        assert r.D_belief == pytest.approx(sum(w[k] * r[f'D_{k}'] for k in COMPONENTS), abs=1e-15)
        arr, gro = w['set'] + w['act'], w['cat'] + w['fail'] + w['num']
        assert r.D_belief == pytest.approx(arr * r.D_arrival + gro * r.D_growth, abs=1e-15)
    assert resolve_weights('paper') == {'cat': .30, 'fail': .15, 'set': .25, 'num': .25, 'act': .05}
    assert resolve_weights('readme') == {'cat': .15, 'fail': .20, 'set': .35, 'num': .20, 'act': .10}

# ---------------------------------------------------------------- boundaries
def test_identical_beliefs_are_all_zero():
    r = divergence(random_beliefs(50, seed=9), random_beliefs(50, seed=9))
    assert (r[COLS].to_numpy() == 0).all()

def test_maximal_disagreement():
    a = bel(task_progress='none', risk_state='low', recoverability='high', likely_failure_mode='none',
            known_constraints=['a'], satisfied_constraints=['b'], violated_constraints=['c'], uncertainty=0.,
            success_probability=0., failure_attractor_probability=0., expected_repair_need=0., risk_accumulation=0.,
            expected_cost=0., horizon=0, action='ls')
    b = bel(task_progress='complete', risk_state='high', recoverability='low', likely_failure_mode='form_loop',
            known_constraints=['d'], satisfied_constraints=['e'], violated_constraints=['f'], uncertainty=1.,
            success_probability=1., failure_attractor_probability=1., expected_repair_need=1., risk_accumulation=5.,
            expected_cost=9., horizon=3, action='pwd')
    for p in WEIGHT_PRESETS:
        np.testing.assert_allclose(one(a, b, weights=p)[COLS].to_numpy(), 1.0, rtol=0, atol=1e-12)

# ---------------------------------------------------------------- bad input
def test_bad_input_is_named():
    a = bel()
    with pytest.raises(ValueError, match='a has 2 beliefs but b has 1'): divergence([a, a], [a])
    with pytest.raises(BeliefError, match=r'b: belief 0\.belief_state\.uncertainty'): divergence([a], [bel(uncertainty=2.)])
    with pytest.raises(BeliefError, match='a: belief table column risk_state'):
        t = to_table([a]); t.loc[0, 'risk_state'] = 7; divergence(t, [a])
    with pytest.raises(BeliefError, match='known_constraints: cells must be tuples of strings'):   # ids recomputed: raw checked
        t = to_table([a]).drop(columns=list(ID_COLUMNS)); t['known_constraints'] = pd.Series(['oops'], dtype=object); divergence(t, [a])
    with pytest.raises(BeliefError, match='a: belief table column satisfied_ids: expected'):
        t = to_table([a]); t['satisfied_ids'] = pd.Series([[1]], dtype=object); divergence(t, [a])
    with pytest.raises(BeliefError, match='action: every value must be a string'):
        t = to_table([a]); t['action'] = pd.Series([None], dtype=object); divergence(t, [a])
    with pytest.raises(ValueError, match=r"weights\['set'\] = -0.25"):
        divergence([a], [a], weights={'cat': .5, 'fail': .25, 'set': -.25, 'num': .25, 'act': .25})
    with pytest.raises(ValueError, match="unknown component 'foo'"): resolve_weights({**WEIGHT_PRESETS['paper'], 'foo': 0})
    with pytest.raises(ValueError, match="weights sum to 1.05"): resolve_weights({**WEIGHT_PRESETS['paper'], 'act': .1})
    with pytest.raises(ValueError, match=r"weights\['num'\] = inf"): resolve_weights({**WEIGHT_PRESETS['paper'], 'num': math.inf})
    with pytest.raises(ValueError, match="unknown weight preset 'Paper'"): divergence([a], [a], weights='Paper')
    with pytest.raises(ValueError, match=r"caps\['expected_cost'\] = -1"): divergence([a], [a], caps={'expected_cost': -1})
    with pytest.raises(ValueError, match="unknown matcher 'fuzzy'"): divergence([a], [a], matcher='fuzzy')

def test_zero_mass_group_is_nan_not_error():
    r = one(bel(), bel(action='ls'), weights={'cat': .4, 'fail': .3, 'set': 0, 'num': .3, 'act': 0})
    assert math.isnan(r.D_arrival) and r.D_belief == pytest.approx(r.D_growth, abs=1e-15)

# ---------------------------------------------------------------- seams
def test_custom_matcher_by_name_and_function():
    def first_letter(a, b, name):   # trivial matcher: equal iff the sorted first letters agree
        key = lambda s: ''.join(sorted({x.strip()[:1].lower() for x in s}))
        return np.array([float(key(x) != key(y)) for x, y in zip(a, b)])
    register_matcher('first_letter', first_letter)
    try:
        a, b = bel(known_constraints=['apple'], satisfied_constraints=[], violated_constraints=[]), \
               bel(known_constraints=['avocado'], satisfied_constraints=[], violated_constraints=[])
        assert one(a, b).D_set == pytest.approx(.4) and one(a, b, matcher='first_letter').D_set == 0.0
        assert one(a, b, matcher=first_letter).D_set == 0.0
        assert divergence([a], [b], matcher='first_letter').attrs['matcher'] == 'first_letter'
    finally: MATCHERS.pop('first_letter')
    with pytest.raises(ValueError, match='values must lie in'):
        divergence([bel()], [bel()], matcher=lambda a, b, name: np.full(len(a), 2.0))

def test_registered_component_renormalises_and_does_not_leak(capsys):
    regress = lambda ta, tb: (ta.task_progress.to_numpy() != tb.task_progress.to_numpy()).astype(float) * .5
    a, b = bel(task_progress='weak'), bel(task_progress='strong')
    with using_component('prog', regress, .2, 'arrival'):
        assert 'prog (weight 0.2, arrival)' in capsys.readouterr().out
        r = divergence([a], [b]); w = r.attrs['weights']
        assert w['prog'] == .2 and w['cat'] == pytest.approx(.3 * .8) and sum(w.values()) == pytest.approx(1, abs=1e-12)
        assert r.D_prog[0] == .5 and r.attrs['masses']['arrival'] == pytest.approx(.3 * .8 + .2)
        assert r.D_belief[0] == pytest.approx(divergence_one(a, b)['D_belief'], abs=1e-12)
        with pytest.raises(ValueError, match="no weight for 'prog'"): divergence([a], [b], weights=WEIGHT_PRESETS['paper'])
        assert 'prog' in components().index
    assert 'D_prog' not in divergence([a], [b]).columns and 'prog' not in components().index

# ---------------------------------------------------------------- properties
words = st.sampled_from(['a', 'b', 'c', 'Tests pass', 'no net', 'x y'])
variant = st.tuples(words, st.sampled_from([str, str.upper, lambda s: f'  {s} ', lambda s: s.replace(' ', '\t ')])).map(lambda t: t[1](t[0]))
cons = st.lists(variant, max_size=4)
prob = st.floats(0, 1)
belief = st.builds(
    lambda tp, rs, rc, fm, k, s, v, u, h, sp, fa, rn, ra, ec, act: bel(
        task_progress=tp, risk_state=rs, recoverability=rc, likely_failure_mode=fm, known_constraints=k,
        satisfied_constraints=s, violated_constraints=v, uncertainty=u, horizon=h, success_probability=sp,
        failure_attractor_probability=fa, expected_repair_need=rn, risk_accumulation=ra, expected_cost=ec, action=act),
    st.sampled_from(TASK_PROGRESS), st.sampled_from(RISK_STATE), st.sampled_from(RECOVERABILITY), st.sampled_from(FAILURE_MODES),
    cons, cons, cons, prob, st.integers(0, 4), prob, prob, prob, st.floats(0, 20), st.floats(0, 20),
    st.sampled_from(['ls', 'LS ', 'pytest -q', 'a b c d e f g h i', 'a b c d e f g h j', 'rm -rf build/']))
pairs = st.lists(st.tuples(belief, belief), min_size=1, max_size=12)
weights = st.lists(st.floats(0, 1), min_size=5, max_size=5).filter(lambda x: sum(x) > 1e-3).map(
    lambda x: dict(zip(COMPONENTS, (v / math.fsum(x) for v in x))))
fast = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

@fast
@given(pairs, weights)
def test_bounded_symmetric_decomposed(ps, w):
    a, b = [p[0] for p in ps], [p[1] for p in ps]
    r, rs = divergence(a, b, weights=w), divergence(b, a, weights=w)
    vals = r[COLS].to_numpy()
    assert ((vals >= 0) & (vals <= 1) | np.isnan(vals)).all()
    np.testing.assert_array_equal(vals, rs[COLS].to_numpy())
    m = r.attrs['masses']
    parts = sum(m[g] * np.nan_to_num(r[f'D_{g}'].to_numpy()) for g in ('arrival', 'growth'))
    np.testing.assert_allclose(r.D_belief.to_numpy(), parts, rtol=0, atol=1e-12)

@fast
@given(pairs, st.sampled_from(list(WEIGHT_PRESETS)), st.sampled_from(['tok8', 'full']))
def test_vectorised_equals_reference_on_generated(ps, w, act):
    a, b = [p[0] for p in ps], [p[1] for p in ps]
    ref = pd.DataFrame([divergence_one(x, y, weights=w, action=act) for x, y in zip(a, b)])
    np.testing.assert_allclose(divergence(a, b, weights=w, action=act)[COLS].to_numpy(), ref[COLS].to_numpy(), rtol=0, atol=1e-12)

@fast
@given(st.lists(st.tuples(*[st.sets(st.integers(0, 40), min_size=1, max_size=4)] * 6), min_size=1, max_size=10), belief)
def test_lemma1_on_generated_disjoint_sets(sets, base):
    rows = []
    for s in sets:
        ka, sa, va, kb, sb, vb = s
        kb, sb, vb = kb - ka or {100}, sb - sa or {101}, vb - va or {102}   # make each pair disjoint, non-empty
        mk = lambda k, s_, v: {**base, 'belief_state': {**base['belief_state'], 'known_constraints': [f'c{i}' for i in k],
                               'satisfied_constraints': [f'c{i}' for i in s_], 'violated_constraints': [f'C{i} ' for i in v]}}
        rows.append((mk(ka, sa, va), mk(kb, sb, vb)))
    a, b = [r[0] for r in rows], [r[1] for r in rows]
    assert lemma1_applies(a, b).all()
    r = divergence(a, b)
    assert (np.abs(r.D_set - 1) <= 1e-12).all() and (r.D_belief >= .25 - 1e-12).all()
    c = check_lemma1(a, b, r)
    assert (c['applies'], c['violations']) == (len(rows), 0)

def test_vectorised_equals_reference_on_random_beliefs():
    a, b = random_beliefs(3000, seed=11), random_beliefs(3000, seed=12)
    for w in WEIGHT_PRESETS:
        ref = pd.DataFrame([divergence_one(x, y, weights=w) for x, y in zip(a, b)])
        np.testing.assert_allclose(divergence(a, b, weights=w)[COLS].to_numpy(), ref[COLS].to_numpy(), rtol=0, atol=1e-12)
    c = check_lemma1(random_beliefs(3000, seed=13, vocab=300), random_beliefs(3000, seed=14, vocab=300))
    assert c['applies'] > 100 and c['violations'] == 0

# ---------------------------------------------------------------- the id columns
def test_tables_without_ids_give_the_same_result():
    a, b = random_beliefs(500, seed=21), random_beliefs(500, seed=22)
    ta, tb = to_table(a), to_table(b)
    full = divergence(ta, tb)
    bare = divergence(ta.drop(columns=list(ID_COLUMNS)), tb.drop(columns=list(ID_COLUMNS)))
    pd.testing.assert_frame_equal(full, bare)
    chunked = ta.assign(**{i: pd.concat([ta[i][:100], ta[i][100:]]) for i in ID_COLUMNS})   # may be multi-chunk Arrow
    pd.testing.assert_frame_equal(divergence(chunked, tb), full)
    sl = divergence(ta[7:300], tb[7:300])                                              # sliced Arrow arrays
    np.testing.assert_array_equal(sl[COLS].to_numpy(), full[COLS].to_numpy()[7:300])

def test_exact_matcher_three_routes_agree():
    a, b = to_table(random_beliefs(800, seed=31, vocab=12)), to_table(random_beliefs(800, seed=32, vocab=12))
    for k, i in zip(('known_constraints', 'satisfied_constraints', 'violated_constraints'), ID_COLUMNS):
        by_ids, by_raw = exact_matcher(a[i], b[i]), exact_matcher(a[k], b[k])
        np.testing.assert_array_equal(by_ids, by_raw)
        np.testing.assert_array_equal(by_ids, jaccard(*indicators(a[k], b[k])))

def test_long_sets_are_counted_exactly():
    words = [f'c{i}' for i in range(40)]
    rng = np.random.default_rng(0)
    mk = lambda: [tuple(rng.choice(words, size=rng.integers(0, 17))) for _ in range(300)]
    A, B = mk(), mk()
    want = [1 - len(x & y) / len(x | y) if x | y else 0.0 for x, y in ((set(p), set(q)) for p, q in zip(A, B))]
    got = exact_matcher(constraint_ids(A), constraint_ids(B))
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-15)

def test_registered_matcher_receives_raw_strings():
    seen = []
    def spy(a, b, name): seen.append((name, a.iloc[0])); return np.zeros(len(a))
    a = bel(known_constraints=['  Tests PASS'])
    divergence([a], [a], matcher=spy)
    assert seen[0] == ('known_constraints', ('  Tests PASS',))
