"""Simulation: level and power of the seed-swap test of the excess divergence (`hibd.excess`), its mid-p, the old rule.

Runs `hibd.excess.simulate_tests` over the grid below (1 000 studies per setting) and writes
data/sim/excess_sim.csv, which nbs/11b_excess.ipynb reads. Run once after a change to the test:

    python benchmarks/excess_sim.py [--studies 1000] [--out data/sim/excess_sim.csv]

Not a unit test; the notebook runs a small version of the same code.
"""
import argparse, time
from pathlib import Path
from hibd.excess import simulate_tests

def grid():
    "Tasks 8/16/32 × seeds 2/3 × coupling (none, 0.5 and 0.8 per field, 0.5 per cell, record_code's per-seed rates) × δ 0..0.6."
    out = []
    for unit, c in (('field', 0.0), ('field', 0.5), ('field', 0.8), ('cell', 0.5), ('cell', (0.71, 0.91, 0.13))):
        for T in (8, 16, 32):
            for S in (2, 3):
                for d in (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6):
                    out.append(dict(n_tasks=T, n_seeds=S, delta=d, coupling=c, coupling_unit=unit))
    return out

def label_seed_coupling(res):
    "A crossed seed effect (a tuple of per-seed rates) as unit 'cell by seed', its mean rate, and the rates in `seed_coupling`."
    crossed = res.coupling.map(lambda c: isinstance(c, tuple))
    rates = [c[:s] if isinstance(c, tuple) else () for c, s in zip(res.coupling, res.n_seeds)]
    res['seed_coupling'] = [' '.join(map(str, r)) for r in rates]
    res['coupling'] = [sum(r) / len(r) if r else c for r, c in zip(rates, res.coupling)]
    res.loc[crossed, 'coupling_unit'] = 'cell by seed'
    return res

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--studies', type=int, default=1000)
    ap.add_argument('--out', default=str(Path(__file__).parent.parent/'data'/'sim'/'excess_sim.csv'))
    a = ap.parse_args()
    t0 = time.perf_counter()
    res = simulate_tests(grid(), n_studies=a.studies)
    res = label_seed_coupling(res)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    res.to_csv(a.out, index=False, float_format='%.6g')
    print(f'{len(res)} settings x {a.studies} studies in {time.perf_counter() - t0:.0f} s -> {a.out}')
    print(res[res.delta == 0][['coupling_unit', 'coupling', 'n_tasks', 'n_seeds', 'reject_new', 'reject_mid', 'reject_old', 'identical_same_seed']].to_string(index=False))
