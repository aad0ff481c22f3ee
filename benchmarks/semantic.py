"""Benchmark: the `semantic` D_set matcher (soft Jaccard over all-MiniLM-L6-v2 embeddings) against `exact`.

    python benchmarks/semantic.py              # 10^5 pairs (about a minute on 2 cores, most of it embedding)
    python benchmarks/semantic.py --n 20000    # quick

The vocabulary is realistic: the constraint strings of the committed runs (data/runs/*/rollouts), the
sentences of every task's instruction and the clauses of its target state (data/tasks), each also in
paraphrase variants (other verbs and negations, a prefix, the test suite for the tests, ...), the way two
harnesses make a model restate one constraint. Each pair draws 0-5 items per set on side A; side B keeps
an item as the same string, restates it in another variant, or replaces it by another constraint.

Timed: the semantic matcher over the three set columns with a cold embedder (every distinct string
embedded once, included), the same with the cache warm (matching only), and the exact matcher on the same
raw columns (normalise + hash + set overlap) and on pre-encoded id columns (what `divergence` reads).
"""
import argparse, glob, json, os, re, time
from pathlib import Path
import numpy as np, pandas as pd
from hibd.schema import CONSTRAINT_SETS, constraint_ids, normalise
from hibd.metrics import exact_matcher
from hibd.semantic import Embedder, soft_jaccard, minilm, TAU
from hibd.tasks import load_tasks

ROOT = Path(__file__).resolve().parent.parent
SUBS = [(r'\bdo not\b', 'never'), (r'\bmust\b', 'has to'), (r'\bthe tests\b', 'the test suite'), (r'\bedit\b', 'modify'),
        (r'\bfix\b', 'repair'), (r'\bfails?\b', 'is failing'), (r'\bpasses\b', 'succeeds'), (r'\bfile\b', 'source file')]
PREFIXES = ['make sure that ', 'requirement: ', 'the agent must ensure ', 'constraint: ']

def concepts() -> list[str]:
    "Base constraint strings: committed runs' constraints, task instruction sentences, target-state clauses."
    out = []
    for f in sorted(glob.glob(str(ROOT/'data'/'runs'/'*'/'rollouts'/'*.jsonl'))):
        for line in open(f):
            b = json.loads(line).get('belief') or {}
            for k in CONSTRAINT_SETS: out += (b.get('belief_state') or {}).get(k, [])
    for t in load_tasks():
        out += [s for s in re.split(r'(?<=[.:])\s+', t.instruction) if len(s.split()) >= 3]
        out += [s for s in t.target_state.split(';') if len(s.split()) >= 2]
    return list(dict.fromkeys(s.strip().rstrip('.') for s in out if s.strip()))

def variants(s: str, rng) -> list[str]:
    "`s` and up to three restatements of it."
    v = [s]
    subs = [(a, b) for a, b in SUBS if re.search(a, s, re.I)]
    if subs: a, b = subs[rng.integers(len(subs))]; v.append(re.sub(a, b, s, count=1, flags=re.I))
    v.append(PREFIXES[rng.integers(len(PREFIXES))] + s[0].lower() + s[1:])
    v.append(s + ' (required)')
    return list(dict.fromkeys(v))

def draw(n: int, seed: int = 0):
    "Three pairs of constraint columns (A, B) of `n` rows over a realistic vocabulary, and the vocabulary."
    rng = np.random.default_rng(seed)
    vs = [variants(c, rng) for c in concepts()]
    C = len(vs)
    cols = {}
    for k in CONSTRAINT_SETS:
        sizes = rng.integers(0, 6, n); tot = int(sizes.sum())
        conc = rng.integers(0, C, tot); var = rng.integers(0, 4, tot)
        fate = rng.choice(3, tot, p=[.3, .3, .4])                      # same string, another variant, another concept
        other = rng.integers(0, C, tot); var_b = rng.integers(0, 4, tot)
        a = [vs[c][v % len(vs[c])] for c, v in zip(conc, var)]
        b = [x if f == 0 else vs[c][w % len(vs[c])] if f == 1 else vs[o][w % len(vs[o])]
             for x, f, c, o, w in zip(a, fate, conc, other, var_b)]
        off = np.r_[0, np.cumsum(sizes)]
        cols[k] = (pd.Series([tuple(a[off[i]:off[i + 1]]) for i in range(n)], dtype=object),
                   pd.Series([tuple(b[off[i]:off[i + 1]]) for i in range(n)], dtype=object))
    vocab = {normalise(s) for v in vs for s in v}
    return cols, vocab

def timed(f, *a, **kw):
    t = time.perf_counter(); out = f(*a, **kw); return out, time.perf_counter() - t

def main(n: int, tau: float, seed: int):
    (cols, vocab), t_draw = timed(draw, n, seed)
    print(f'n = {n:,} pairs x 3 constraint sets; vocabulary: {len(vocab):,} distinct normalised strings; drawn in {t_draw:.1f} s')
    _, t_load = timed(minilm)
    print(f'model load (safetensors + tokenizer + sha256 check): {t_load:.2f} s   '
          f'[OPENBLAS_NUM_THREADS={os.environ.get("OPENBLAS_NUM_THREADS", "unset")}, {os.cpu_count()} CPUs]')
    emb = Embedder()
    infos, t0 = [], time.perf_counter()
    sem = {k: soft_jaccard(a, b, tau, emb, k, info=(infos.append({}) or infos[-1])) for k, (a, b) in cols.items()}
    t_cold = time.perf_counter() - t0
    t_emb = sum(i['embed_s'] for i in infos)
    print(f'semantic (tau={tau:g}), cold cache: {t_cold:7.2f} s total; embedding {t_emb:.2f} s = {t_emb / t_cold:.0%} of it; '
          f'{emb.stats["embedded"]:,} distinct strings embedded once ({emb.stats["embedded"] / max(t_emb, 1e-9):.0f} strings/s) '
          f'for {emb.stats["requested"]:,} requested')
    warm, t_warm = timed(lambda: {k: soft_jaccard(a, b, tau, emb, k) for k, (a, b) in cols.items()})
    print(f'semantic, warm cache (matching only):  {t_warm:7.2f} s = {t_warm / n * 1e6:.1f} µs per pair '
          f'({sum(i["solver_pairs"] for i in infos):,} of {3 * n:,} set pairs needed the assignment solver)')
    assert all(np.array_equal(sem[k], warm[k]) for k in sem)
    ex, t_ex = timed(lambda: {k: exact_matcher(a, b, k) for k, (a, b) in cols.items()})
    ids = {k: (constraint_ids(a, k), constraint_ids(b, k)) for k, (a, b) in cols.items()}
    _, t_ids = timed(lambda: {k: exact_matcher(a, b, k) for k, (a, b) in ids.items()})
    print(f'exact, raw string columns:             {t_ex:7.2f} s = {t_ex / n * 1e6:.1f} µs per pair')
    print(f'exact, pre-encoded id columns:         {t_ids:7.2f} s = {t_ids / n * 1e6:.2f} µs per pair')
    w = {'known_constraints': .4, 'satisfied_constraints': .3, 'violated_constraints': .3}
    d_ex, d_se = sum(w[k] * ex[k] for k in w), sum(w[k] * sem[k] for k in w)
    assert (d_se <= d_ex + 1e-12).all()
    print(f'mean D_set: exact {d_ex.mean():.3f}, semantic {d_se.mean():.3f} (vocabulary share {1 - d_se.mean() / d_ex.mean():.1%})')
    return {'n': n, 'vocabulary': len(vocab), 'embedded': emb.stats['embedded'], 'semantic_cold_s': t_cold, 'embed_s': t_emb,
            'semantic_warm_s': t_warm, 'exact_s': t_ex, 'exact_ids_s': t_ids}

if __name__ == '__main__':
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--n', type=int, default=100_000, help='number of belief pairs')
    p.add_argument('--tau', type=float, default=TAU, help='cosine threshold')
    p.add_argument('--seed', type=int, default=0, help='RNG seed of the draw')
    a = p.parse_args(); main(a.n, a.tau, a.seed)
