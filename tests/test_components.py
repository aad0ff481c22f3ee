"""A registered component is a first-class component (issue 36, item 4): one `using_component` call and it reaches
`divergence`, the pairs table, the long-horizon table, weight sensitivity and the report's prose (which names it and
its weight); at weight 0 it is a diagnostic column and D_belief is unchanged bit for bit; registered from a user
file, `hibd run` keeps the file and `hibd report` loads it again. Committed runs and synthetic runs only: no model."""
import json, re, subprocess, sys
from pathlib import Path
import numpy as np, pandas as pd, pytest
from hibd.metrics import (COMPONENTS, component_names, divergence, registered_components, resolve_weights,
                          using_component, weights_note)
from hibd.schema import example_belief
from hibd.pairs import pairs as run_pairs
from hibd.stats import weight_sensitivity
from hibd.analysis import component_metrics, long_horizon, sensitivity, synthetic_run
from hibd.report import build_report

ROOT = Path(__file__).resolve().parent.parent
RUNS = ROOT/'data'/'runs'
NOTE = 'len_diff (weight 0.1, growth) registered: preset weights of the built-in components scaled by 0.9'


def len_diff(ta, tb):
    "How much the two recommended actions differ in length, capped at 100 characters (symmetric, in [0, 1])."
    return np.minimum(np.abs(ta.action.map(len).to_numpy(float) - tb.action.map(len).to_numpy(float)) / 100, 1)


def actions(h, t, s, step, rng):
    "H1 recommends a longer command from step 2 on, so `len_diff` grows with K against H0."
    longer = 'python -m pytest -q tests/test_stats.py::test_mean --maxfail=1'
    return {'next_action_recommendation.action': longer} if h == 'H1' and step >= 2 else {}


@pytest.fixture(scope='module')
def syn():
    return synthetic_run(n_tasks=3, n_seeds=2, Ks=(1, 2, 3), harnesses=('H0', 'H1', 'H2'), change=actions)


def test_names_and_note():
    assert component_names() == COMPONENTS and registered_components() == {} and weights_note() == ''
    with using_component('len_diff', len_diff, weight=.1, group='growth'):
        assert component_names() == (*COMPONENTS, 'len_diff')
        assert registered_components() == {'len_diff': {'weight': .1, 'group': 'growth', 'fn': f'{__name__}.len_diff'}}
        assert weights_note() == NOTE and component_metrics()[-1] == 'D_len_diff'
    assert component_names() == COMPONENTS


def test_reaches_pairs_long_horizon_and_sensitivity(syn):
    with using_component('len_diff', len_diff, weight=.1, group='growth'):
        p = run_pairs(syn)
        lh = long_horizon(p, B=200)
        ws = weight_sensitivity(p, n_draws=50)
        se = sensitivity(p, n_draws=50)
    assert 'D_len_diff' in p.columns
    x = lh[(lh.metric == 'D_len_diff') & (lh.harness_b == 'H1')].set_index('K').estimate
    assert x[1] == 0 and x[2] > 0 and x[3] == x[2]                       # H1's longer command from step 2 on
    assert (lh[(lh.metric == 'D_len_diff') & (lh.harness_b == 'H2')].estimate == 0).all()
    # H0/H1/H2 differ only in D_len_diff (and D_act): the ranking by D_belief puts H1 first under every scheme
    assert ws.ranks.harness.iloc[0] == 'H1' and len(ws.draw_taus) == 50
    assert set(se['ranks'].K) == {1, 2, 3}
    w = resolve_weights()                                                   # unregistered again: the paper's five
    assert list(w) == list(COMPONENTS)


def test_weight_zero_is_a_diagnostic_column(syn):
    before = run_pairs(syn)
    with using_component('len_diff', len_diff, weight=0, group='growth'):
        assert 'a diagnostic, not in D_belief' in weights_note()
        p0 = run_pairs(syn)
        lh = long_horizon(p0, B=200)
    assert 'D_len_diff' in p0.columns and p0.D_len_diff.max() > 0
    for c in ('D_belief', 'D_arrival', 'D_growth'):
        assert p0[c].to_numpy().tobytes() == before[c].to_numpy().tobytes(), c     # exactly unchanged
    assert 'D_len_diff' in set(lh.metric)


def test_divergence_weight_zero_exact():
    a = [example_belief(), example_belief(**{'next_action_recommendation.action': 'ls'})]
    b = [example_belief(**{'next_action_recommendation.action': 'python -m pytest -q'}), example_belief()]
    r5 = divergence(a, b)
    with using_component('len_diff', len_diff, weight=0, group='arrival'):
        r0 = divergence(a, b)
    assert r0.D_len_diff.gt(0).all() and r0.D_belief.equals(r5.D_belief) and r0.D_arrival.equals(r5.D_arrival)


def test_report_names_the_component_and_its_weight(tmp_path):
    "quickstart (7 harnesses, K = 1, 2): the long-horizon and sensitivity tables list it, the prose names its weight."
    with using_component('len_diff', len_diff, weight=.1, group='growth'):
        out = build_report(RUNS/'quickstart', tmp_path/'r')
    md = (out/'report.md').read_text()
    assert md.count(f'Weights used: the presets with {NOTE}') >= 3       # main table, long horizon, weight sensitivity
    assert 'D_len_diff' in md and 'registered components' in md
    lh = pd.read_csv(next((out/'tables').glob('*_long_horizon.csv')))
    assert 'D_len_diff' in set(lh.metric)
    ranks = pd.read_csv(next((out/'tables').glob('*_sensitivity_ranks.csv')))
    assert len(ranks) > 0


USER_COMPONENT = '''import numpy as np
from hibd.metrics import register_component

def len_diff(ta, tb):
    "How much the two recommended actions differ in length, capped at 100 characters."
    return np.minimum(np.abs(ta.action.map(len).to_numpy(float) - tb.action.map(len).to_numpy(float)) / 100, 1)

register_component('len_diff', len_diff, weight=.1, group='growth')
'''


def test_a_component_from_a_file_through_the_cli(tmp_path):
    "One call in a user file: `hibd run` records the file, `hibd report` loads it again and names the component."
    exe = Path(sys.executable).parent/'hibd'
    hibd = lambda *a: subprocess.run([str(exe), *map(str, a)], capture_output=True, text=True, cwd=ROOT, timeout=600)
    (tmp_path/'my_component.py').write_text(USER_COMPONENT)
    (tmp_path/'replies.json').write_text(json.dumps([json.dumps(example_belief())]))
    cfg = tmp_path/'c.toml'
    cfg.write_text('name = "c"\nimports = ["my_component.py"]\ntasks = ["code_variance_off_by_one"]\n'
                   'harnesses = ["H0", "H1"]\n'
                   f'K = [1]\nseeds = [0]\n[model]\nspec = "scripted:{tmp_path/"replies.json"}"\nmax_retries = 0\n')
    r = hibd('run', cfg, '--out', tmp_path/'run')
    assert r.returncode == 0, (r.stdout, r.stderr)
    man = json.loads((tmp_path/'run'/'manifest.json').read_text())
    assert [x['path'] for x in man['imports']] == [str(tmp_path/'my_component.py')]   # the file is the record
    r = hibd('report', tmp_path/'run', '--out', tmp_path/'report')
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert NOTE in (tmp_path/'report'/'report.md').read_text()
    index = json.loads((tmp_path/'report'/'index.json').read_text())   # the report records what it used
    c = index['components']['len_diff']                                  # fn: the module made from the file's hash
    assert (c['weight'], c['group']) == (.1, 'growth') and re.fullmatch(r'hibd_user_my_component_\w+\.len_diff', c['fn'])
    assert index['weights']['len_diff'] == .1 and abs(sum(index['weights'].values()) - 1) < 1e-12
