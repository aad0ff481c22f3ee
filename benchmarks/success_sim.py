"""Simulation: level, interval coverage and power of the success test (`hibd.success`), and the planner against it.

Runs `hibd.success.simulate_success_tests` over the grid below and writes data/sim/success_sim.csv, which
nbs/11c_success.ipynb reads (rejection rate `reject` at alpha 0.05, `predicted` = `success_power`, coverage and width of
the t-interval and of the percentile bootstrap over tasks). Run once after a change to the test:

    python benchmarks/success_sim.py [--studies 5000] [--out data/sim/success_sim.csv]

Not a unit test; the notebook runs a small version of the same code.
"""
import argparse, time
from pathlib import Path
from hibd.success import simulate_success_tests

DESIGNS = [(6, 4), (8, 3), (8, 5), (12, 3), (16, 3), (24, 3)]

def grid():
    "Designs × base rate p0 0.3/0.5 × coupling rho 0/0.5/0.9 × effect Δ 0..0.3."
    return [dict(n_tasks=T, n_seeds=S, p0=p0, delta=d, rho=r) for T, S in DESIGNS for p0 in (.3, .5)
            for r in (0., .5, .9) for d in (0., .1, .2, .3)]

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--studies', type=int, default=5000)
    ap.add_argument('--out', default=str(Path(__file__).parent.parent/'data'/'sim'/'success_sim.csv'))
    a = ap.parse_args()
    t0 = time.perf_counter()
    res = simulate_success_tests(grid(), n_studies=a.studies)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    res.to_csv(a.out, index=False, float_format='%.6g')
    print(f'{len(res)} settings x {a.studies} studies in {time.perf_counter() - t0:.0f} s -> {a.out}')
    null, eff = res[res.delta == 0], res[res.delta > 0]
    print(f'level: {null.reject.min():.4f} - {null.reject.max():.4f}')
    print(f'coverage, t over tasks: {res.cover_t.min():.3f} - {res.cover_t.max():.3f}; '
          f'percentile bootstrap: {res.cover_boot.min():.3f} - {res.cover_boot.max():.3f}')
    gap = (eff.predicted - eff.reject).abs()
    print(f'planner within 0.05 of simulated power: {int((gap <= .05).sum())} of {len(gap)}; max gap {gap.max():.3f}')
    print(res.round(3).to_string(index=False))
