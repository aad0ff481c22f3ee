"One name, one meaning: no public name of hibd is defined twice, and every analysis result keeps the result contract."
import importlib, json, re, warnings
from pathlib import Path
import numpy as np, pandas as pd
import pytest

ROOT = Path(__file__).resolve().parent.parent
RUNS = ROOT/'data'/'runs'

def modules() -> list[str]:
    "The module name of every notebook in nbs/ (its `#| default_exp`), in chapter order."
    out = []
    for nb in sorted((ROOT/'nbs').glob('*.ipynb')):
        m = re.search(r'#\|\s*default_exp\s+(\w+)', ''.join(json.loads(nb.read_text())['cells'][0]['source']))
        if m: out.append(m.group(1))
    return out

def clashes(mods: list[str]) -> dict:
    "Public name -> the modules that define it as different objects (a re-export by import is the same object)."
    seen = {}
    for m in mods:
        mod = importlib.import_module(f'hibd.{m}')
        for n in getattr(mod, '__all__', []): seen.setdefault(n, []).append((m, getattr(mod, n)))
    return {n: [m for m, _ in v] for n, v in seen.items() if len({id(o) for _, o in v}) > 1}

def test_every_module_is_read():
    "The check below sees the whole package: the chapters' modules, each with a public `__all__`."
    mods = modules()
    assert {'schema', 'stats', 'excess', 'biwm', 'report', 'cli'} <= set(mods), mods
    assert all(importlib.import_module(f'hibd.{m}').__all__ for m in mods)

def test_public_names_have_one_meaning():
    "No public name (in a module's `__all__`) is defined in two modules as two different objects."
    bad = clashes(modules())
    assert not bad, '; '.join(f'{n} is defined in {", ".join(ms)}' for n, ms in sorted(bad.items()))

def test_a_clash_is_seen(monkeypatch):
    "The check finds a name two modules define differently, and allows a re-export of the same object."
    import hibd.stats, hibd.excess
    monkeypatch.setattr(hibd.excess, '__all__', [*hibd.excess.__all__, 'PAIR_KEYS'])
    monkeypatch.setattr(hibd.excess, 'PAIR_KEYS', hibd.stats.PAIR_KEYS, raising=False)
    assert clashes(['stats', 'excess']) == {}                                  # the same object: a re-export
    monkeypatch.setattr(hibd.excess, 'PAIR_KEYS', ('task',))
    assert clashes(['stats', 'excess']) == {'PAIR_KEYS': ['stats', 'excess']}


# --- the result contract (chapter 11, "One result contract") ----------------------------------------------------------
from hibd.stats import RESULT_COLUMNS

CORE = [c for c in RESULT_COLUMNS if c not in ('n_pairs', 'n_tasks', 'noise_floor')]

def documented() -> dict:
    "Table -> the core columns it lacks, as 11_stats's markdown lists them ('- `hibd.m.f` [part] lacks a, b: why')."
    cells = json.loads((ROOT/'nbs'/'11_stats.ipynb').read_text())['cells']
    md = next(s for s in (''.join(c['source']) for c in cells if c['cell_type'] == 'markdown')
              if '### One result contract' in s)
    items = re.findall(r'^- `(hibd\.\w+\.\w+)`( \w+)? lacks ([\w, ]+):', md, re.M)
    return {f'{t}{part}': set(cols.split(', ')) for t, part, cols in items}

@pytest.fixture(scope='module')
def results() -> dict:
    "Every analysis result table, computed small: table name (as documented) -> DataFrame."
    from hibd.stats import synthetic_pairs, describe, compare
    from hibd.excess import excess_table, simulate_pairs
    from hibd.success import success_table
    from hibd.analysis import synthetic_run, main_table, k_tests, long_horizon, grouped
    from hibd.pairs import pairs
    from hibd.biwm import component_table, retry_effect
    from hibd.runs import load_run
    levels = ['none', 'weak', 'partial', 'strong', 'complete']
    run = synthetic_run(change=lambda h, t, s, k, rng: {'belief_state.task_progress': levels[int(rng.integers(0, 5))]},
                        groups=lambda t: 'code' if t % 2 else 'risky')
    p, sp, rng = pairs(run), synthetic_pairs(), np.random.default_rng(0)
    cells = pd.DataFrame([dict(task=f't{t}', harness=h, seed=s, K=3, success=float(rng.random() < .5))
                          for t in range(6) for h in ('H0', 'H1') for s in range(3)])
    g = grouped(p, B=200)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return {'hibd.stats.describe': describe(sp, B=200), 'hibd.stats.compare': compare(sp, B=200),
                'hibd.excess.excess_table': excess_table(simulate_pairs(n_tasks=6, n_seeds=3, delta=.5, seed=1)),
                'hibd.success.success_table': success_table(cells),
                'hibd.analysis.main_table': main_table(p, B=200), 'hibd.analysis.k_tests': k_tests(p, B=200),
                'hibd.analysis.long_horizon': long_horizon(p, B=200),
                'hibd.analysis.grouped estimates': g['estimates'], 'hibd.analysis.grouped leaders': g['leaders'],
                'hibd.biwm.component_table': component_table(RUNS/'biwm_code_exposure', B=200),
                'hibd.biwm.retry_effect': retry_effect(load_run(RUNS/'biwm_risky_exposure'), B=200)}

def test_results_keep_the_contract(results):
    "Each result table has every core column of `RESULT_COLUMNS`, but those its documented exception lacks."
    doc = documented()
    assert set(doc) < set(results), f'documented tables that are not checked here: {set(doc) - set(results)}'
    for name, t in results.items():
        assert len(t), f'{name}: empty, so its columns say nothing'
        lacks = {c for c in CORE if c not in t.columns}
        want = doc.get(name, set())
        assert lacks == want, f'{name} lacks {sorted(lacks)}; 11_stats documents {sorted(want)}'

def test_excess_speaks_the_contract(results):
    "The primary result names its E `estimate` and its noise `noise_floor`: the old names are gone."
    t = results['hibd.excess.excess_table']
    assert {'estimate', 'noise_floor'} <= set(t.columns) and not {'E', 'noise'} & set(t.columns), list(t.columns)
    assert np.allclose(t.estimate, t.cross - t.noise_floor, atol=1e-12)                 # E = cross - noise floor
