"""Simulation: coverage of the 95 % intervals for the excess divergence E (`hibd.excess.simulate_coverage`).

Runs the grid below (1 000 studies per setting) and writes data/sim/coverage_sim.csv, which nbs/11b_excess.ipynb
reads. Run once after a change to an interval:

    python benchmarks/coverage_sim.py [--studies 1000] [--out data/sim/coverage_sim.csv]

Not a unit test; the notebook runs a small version of the same code.
"""
import argparse, time
from pathlib import Path
from hibd.excess import simulate_coverage
from excess_sim import label_seed_coupling

def grid():
    "8×3, 12×2, 16×3 × coupling (none, 0.5 per field, 0.5 per cell, record_code's per-seed rates) × δ 0..0.6."
    return [dict(n_tasks=T, n_seeds=S, delta=d, coupling=c, coupling_unit=u)
            for T, S in ((8, 3), (12, 2), (16, 3))
            for u, c in (('field', 0.0), ('field', 0.5), ('cell', 0.5), ('cell', (0.71, 0.91, 0.13)))
            for d in (0.0, 0.2, 0.4, 0.6)]

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--studies', type=int, default=1000)
    ap.add_argument('--out', default=str(Path(__file__).parent.parent/'data'/'sim'/'coverage_sim.csv'))
    a = ap.parse_args()
    t0 = time.perf_counter()
    res = label_seed_coupling(simulate_coverage(grid(), n_studies=a.studies))
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    res.to_csv(a.out, index=False, float_format='%.6g')
    print(f'{len(res)} rows x {a.studies} studies in {time.perf_counter() - t0:.0f} s -> {a.out}')
    print(res.pivot_table(index=['n_tasks', 'n_seeds', 'coupling_unit', 'coupling', 'delta'], columns='method',
                          values='cover_population').round(3).to_string())
