"""Simulation: the planner's predicted power (`plan_power`, `sim_power` of hibd.excess) against the seed-swap test's.

Two kinds of study: the structure the normal approximation assumes, with record_code's pilot components
(`simulate_plan`), and whole `simulate_beliefs` studies predicted from 8-task × 3-seed pilots by both
(`simulate_plan_beliefs`). Writes data/sim/plan_sim.csv, which nbs/11b_excess.ipynb reads, and prints predicted vs
simulated and the max |difference| of each prediction:

    python benchmarks/plan_sim.py [--studies 1000] [--out data/sim/plan_sim.csv]
"""
import argparse, time
from pathlib import Path
import numpy as np, pandas as pd
from hibd.excess import simulate_plan, simulate_plan_beliefs

V_NOISE, V_TAU, PILOT_SEEDS = 0.0024567, 0.0019412, 3      # record_code's family components (8 tasks x 3 seeds, K = 8)
ALPHA = 0.05 / 6                                            # record_code's primary family: 6 pairs with H0
DESIGNS = [(T, S) for T in (8, 13, 20, 32) for S in (2, 3, 4)]
DELTAS = (0.02, 0.04, 0.06, 0.08, 0.1)

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--studies', type=int, default=1000)
    ap.add_argument('--out', default=str(Path(__file__).parent.parent/'data'/'sim'/'plan_sim.csv'))
    a = ap.parse_args()
    t0 = time.perf_counter()
    comp = simulate_plan(DESIGNS, DELTAS, V_NOISE, V_TAU, PILOT_SEEDS, n_studies=a.studies, alpha=ALPHA)
    beliefs = simulate_plan_beliefs(DESIGNS, [float(np.sqrt(5 * d)) for d in DELTAS], n_studies=a.studies, alpha=ALPHA)
    res = pd.concat([comp, beliefs], ignore_index=True)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    res.to_csv(a.out, index=False, float_format='%.6g')
    print(f'{len(res)} settings in {time.perf_counter() - t0:.0f} s -> {a.out}')
    print(res.round(3).to_string(index=False))
    for col in ('predicted', 'predicted_sim'):
        r = res.dropna(subset=[col]); gap = (r[col] - r.simulated).abs().groupby(r.generator)
        print(f'max |{col} - simulated|:', gap.max().round(3).to_dict(), ' within 0.05:', gap.apply(lambda g: int(
            (g <= .05).sum())).to_dict(), 'of', gap.size().to_dict())
