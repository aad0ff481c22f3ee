"""Benchmark: column-wise `hibd.metrics.divergence` against the per-pair reference `divergence_one`.

    python benchmarks/divergence.py            # 10^6 random valid belief pairs (a few minutes, ~10 GB RAM)
    python benchmarks/divergence.py --n 20000  # quick

Both sides get the same beliefs; their outputs must agree to 1e-12. Validation is timed on its own:
`to_table` (validate + lay out columns + encode the constraint id columns, what `divergence` reads; the
id encoding is also timed on its own) and `TypeAdapter(list[Belief])` (the
`Belief` objects the reference reads), so the ratio compares metric code with metric code.
"""
import argparse, gc, time
import numpy as np, pandas as pd
from pydantic import TypeAdapter
from hibd.schema import Belief, CONSTRAINT_SETS, constraint_ids, random_beliefs, to_table
from hibd.metrics import divergence, divergence_one

def timed(f, *args, **kw):
    t = time.perf_counter(); out = f(*args, **kw); return out, time.perf_counter() - t

def main(n: int, seed: int = 1):
    dicts_a, t_gen_a = timed(random_beliefs, n, seed=seed)
    dicts_b, t_gen_b = timed(random_beliefs, n, seed=seed + 1)
    print(f'n = {n:,} pairs; random_beliefs: {t_gen_a + t_gen_b:.1f} s (both sides)')
    ta, t_ta = timed(to_table, dicts_a); tb, t_tb = timed(to_table, dicts_b)
    print(f'to_table (validate + columns), both sides: {t_ta + t_tb:.2f} s = {(t_ta + t_tb) / (2 * n) * 1e6:.2f} µs per belief')
    _, t_ids = timed(lambda: [constraint_ids(t[k], k) for t in (ta, tb) for k in CONSTRAINT_SETS])
    print(f'  of which the constraint id columns (constraint_ids, 3 per side): {t_ids:.2f} s = {t_ids / (2 * n) * 1e6:.2f} µs per belief')
    many = TypeAdapter(list[Belief])
    ba, t_va = timed(many.validate_python, dicts_a); bb, t_vb = timed(many.validate_python, dicts_b)
    print(f'Belief validation for the reference, both sides: {t_va + t_vb:.2f} s')
    del dicts_a, dicts_b; gc.collect()

    vec, t_vec = timed(divergence, ta, tb)
    print(f'divergence (column-wise):          {t_vec:8.3f} s = {t_vec / n * 1e6:7.3f} µs per pair')
    ref, t_ref = timed(lambda: pd.DataFrame([divergence_one(x, y) for x, y in zip(ba, bb)]))
    print(f'divergence_one (per pair, Python): {t_ref:8.3f} s = {t_ref / n * 1e6:7.3f} µs per pair')

    cols = list(vec.columns)
    assert list(ref.columns) == cols, (list(ref.columns), cols)
    np.testing.assert_allclose(vec[cols].to_numpy(), ref[cols].to_numpy(), rtol=0, atol=1e-12)
    worst = float(np.abs(vec[cols].to_numpy() - ref[cols].to_numpy()).max())
    print(f'outputs equal to 1e-12 (largest difference {worst:.2e}) over {len(cols)} columns')
    print(f'speed ratio reference / column-wise: {t_ref / t_vec:.1f}x (target >= 50x)')
    print(f'column-wise incl. to_table: {t_vec + t_ta + t_tb:.2f} s; reference incl. Belief validation: {t_ref + t_va + t_vb:.2f} s')
    return {'n': n, 'to_table_s': t_ta + t_tb, 'ids_s': t_ids, 'divergence_s': t_vec, 'reference_s': t_ref, 'ratio': t_ref / t_vec}

if __name__ == '__main__':
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--n', type=int, default=1_000_000, help='number of belief pairs')
    p.add_argument('--seed', type=int, default=1, help='seed of side A (B uses seed + 1)')
    a = p.parse_args(); main(a.n, a.seed)
