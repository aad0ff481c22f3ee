"""Benchmark: task-clustered bootstrap (B = 10 000) of 200 cells of 24 (task, seed) pairs (8 tasks × 3 seeds).

Compares `hibd.stats.bootstrap_cells` (one B×n draw, all cells in one matrix product) with a Python loop that
does the same resampling one resample at a time, cell by cell (what the paper's code did). Both read the
same two random streams, so the intervals must agree exactly; the script checks that and prints the times.

    python benchmarks/bootstrap.py [--cells 200] [--tasks 8] [--seeds 3] [--B 10000] [--loop-cells N]

`--loop-cells N` times the loop on the first N cells only and scales its time to all cells (the loop is slow).
Not a unit test: timings depend on the machine.
"""
import argparse, time
import numpy as np, pandas as pd
from hibd.stats import bootstrap_cells

def cells_table(n_cells=200, n_tasks=8, n_seeds=3, seed=0) -> pd.DataFrame:
    "One row per (cell, task, seed): a value with a between-task effect, as in a pairs table."
    rng = np.random.default_rng(seed)
    c, t, s = np.meshgrid(np.arange(n_cells), np.arange(n_tasks), np.arange(n_seeds), indexing='ij')
    v = .3 + rng.normal(0, .1, (n_cells, n_tasks, 1)) + rng.normal(0, .05, c.shape)
    return pd.DataFrame({'cell': c.ravel(), 'task': [f't{i:02d}' for i in t.ravel()], 'seed_a': s.ravel(), 'value': v.ravel()})

def loop_bootstrap(df: pd.DataFrame, B=10_000, seed=0, level=.95) -> pd.DataFrame:
    "The same cluster bootstrap, one resample at a time (tasks, then seeds within each drawn task)."
    q, rows = [(1 - level) / 2, (1 + level) / 2], []
    for cell, g in df.sort_values(['cell', 'task', 'seed_a']).groupby('cell'):
        sizes = g.groupby('task', sort=False).size().to_numpy(); T, S = len(sizes), sizes.max()
        off = np.r_[0, np.cumsum(sizes)[:-1]]; y = g['value'].to_numpy()
        rt, rs = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))
        est = np.empty(B)
        for b in range(B):                                   # the per-resample loop being measured
            ti = (rt.random(T) * T).astype(np.intp)          # draw T tasks with replacement
            m = sizes[ti]
            si = (rs.random((T, S)) * m[:, None]).astype(np.intp)   # then seeds within each drawn task
            idx = np.concatenate([off[t] + si[j, :m[j]] for j, t in enumerate(ti)])
            est[b] = y[idx].mean()
        lo, hi = np.quantile(est, q)
        rows.append({'cell': cell, 'estimate': y.mean(), 'ci_low': lo, 'ci_high': hi})
    return pd.DataFrame(rows)

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--cells', type=int, default=200); ap.add_argument('--tasks', type=int, default=8)
    ap.add_argument('--seeds', type=int, default=3); ap.add_argument('--B', type=int, default=10_000)
    ap.add_argument('--loop-cells', type=int, default=None, help='time the loop on this many cells and scale (default: all)')
    a = ap.parse_args()
    df = cells_table(a.cells, a.tasks, a.seeds)
    bootstrap_cells(df.head(a.tasks * a.seeds), 'cell', 'value', B=100)          # warm-up (imports, caches)
    t0 = time.perf_counter(); vec = bootstrap_cells(df, 'cell', 'value', B=a.B, seed=0); t_vec = time.perf_counter() - t0
    n_loop = a.loop_cells or a.cells
    sub = df[df.cell < n_loop]
    t0 = time.perf_counter(); loop = loop_bootstrap(sub, B=a.B, seed=0); t_loop = (time.perf_counter() - t0) * a.cells / n_loop
    diff = np.abs(vec.loc[vec.cell < n_loop, ['estimate', 'ci_low', 'ci_high']].to_numpy() - loop[['estimate', 'ci_low', 'ci_high']].to_numpy()).max()
    print(f'cells={a.cells} units/cell={a.tasks * a.seeds} ({a.tasks} tasks x {a.seeds} seeds) B={a.B}')
    print(f'vectorised bootstrap_cells: {t_vec:.3f} s ({1000 * t_vec / a.cells:.2f} ms/cell)')
    print(f'per-resample Python loop:   {t_loop:.3f} s ({1000 * t_loop / a.cells:.2f} ms/cell)'
          + (f' [timed on {n_loop} cells, scaled]' if n_loop != a.cells else ''))
    print(f'speed-up: {t_loop / t_vec:.0f}x; max |difference| of estimate/ci over {n_loop} cells: {diff:.2e}')
    assert diff < 1e-12, 'the loop and the vectorised bootstrap disagree'
