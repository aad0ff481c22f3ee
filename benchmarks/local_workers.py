"""Embedded model on a 2-core machine: one two-thread process vs one pinned one-thread process per core, side by side.

The prompts are real: the belief prompts of two recorded rollouts of the shipped run data/runs/record_risky
(rebuilt by replaying the run with a capturing replay backend: zero model calls, nothing downloaded). Mode `one`:
one process, llama.cpp threads = all cores, answers every prompt in rollout order. Mode `per-core`: one process per
core, each pinned with `sched_setaffinity` (so `LocalBackend` uses one thread), each answering one rollout's prompts
in order, at the same time. Same prompts, same sampling (T 0.7, seed 0). The modes alternate (one, per-core, one,
per-core ...) so machine load drifts hit both alike.

Printed: wall seconds of each mode and rep, completion tokens, and the ratio of throughputs (completion tokens per
wall second, per-core over one): above 1 means the per-core workers answer more per hour (the Dask recipe in
nbs/07_runs.ipynb).

Run: python benchmarks/local_workers.py [--model qwen2.5-coder-1.5b] [--prompts 4] [--reps 1]
"""
import argparse, json, os, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN = ROOT/'data'/'runs'/'record_risky'
TASK = 'risky_chmod_000_uploads'

def capture(harness: str) -> list:
    "The belief prompts of the recorded rollout (TASK, `harness`, seed 0), in step order, rebuilt by replay."
    from hibd.models import ReplayBackend
    from hibd.runs import run_sweep
    got = []
    class Capture(ReplayBackend):
        def elicit(self, messages, *a, **k): got.append(messages); return super().elicit(messages, *a, **k)
    with tempfile.TemporaryDirectory() as d:
        cfg = Path(d)/'capture.toml'
        cfg.write_text(f'name = "capture"\ntasks = ["{TASK}"]\nharnesses = ["{harness}"]\nK = [8]\nseeds = [0]\n'
                       'mode = "replay"\ntemperature = 0.7\n[model]\nspec = "local"\nmax_retries = 2\n')
        run_sweep(cfg, out=Path(d)/'out', backend=Capture(RUN/'calls.jsonl'), progress=False)
    return got

def worker(a):
    "Answer the prompts in `a.prompts_file` in order (one process); print a JSON line of tokens and wall time."
    if a.cpu is not None: os.sched_setaffinity(0, {a.cpu})
    from hibd.llama import LocalBackend
    ps = json.loads(Path(a.prompts_file).read_text())
    b = LocalBackend(a.model, cache=None)
    t0, toks = time.perf_counter(), 0
    for m in ps:
        c = b.elicit(m, seed=0, temperature=0.7, max_retries=0, max_tokens=1024)
        toks += c.tokens['completion'] or 0
    print(json.dumps({'threads': b.n_threads, 'calls': len(ps), 'completion_tokens': toks, 'wall_s': time.perf_counter() - t0}))

def spawn(model, prompts_file, cpu=None):
    cmd = [sys.executable, __file__, '--worker', '--model', model, '--prompts-file', str(prompts_file)]
    if cpu is not None: cmd += ['--cpu', str(cpu)]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)

def result(p): out, _ = p.communicate(); return json.loads(out.strip().splitlines()[-1])

def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument('--model', default='qwen2.5-coder-1.5b'); ap.add_argument('--prompts', type=int, default=4)
    ap.add_argument('--reps', type=int, default=1)
    ap.add_argument('--worker', action='store_true'); ap.add_argument('--prompts-file'); ap.add_argument('--cpu', type=int)
    a = ap.parse_args(argv)
    if a.worker: return worker(a)
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2: sys.exit('local_workers: needs at least 2 CPUs')
    cpus = cpus[:2]
    halves = [capture(h)[:a.prompts] for h in ('H0', 'H2')]
    with tempfile.TemporaryDirectory() as d:
        files = [Path(d)/f'half{i}.json' for i in range(2)]
        for f, h in zip(files, halves): f.write_text(json.dumps(h))
        both = Path(d)/'both.json'; both.write_text(json.dumps(halves[0] + halves[1]))
        spawn(a.model, files[0], cpus[0]).communicate()             # warm the page cache / assemble the model once
        rows = []
        for rep in range(a.reps):
            for mode in ('one', 'per-core'):
                t0 = time.perf_counter()
                rs = [result(spawn(a.model, both))] if mode == 'one' else [result(p) for p in [spawn(a.model, f, c) for f, c in zip(files, cpus)]]
                wall = time.perf_counter() - t0
                toks = sum(r['completion_tokens'] for r in rs)
                rows.append({'rep': rep, 'mode': mode, 'threads': [r['threads'] for r in rs], 'calls': sum(r['calls'] for r in rs),
                             'completion_tokens': toks, 'wall_s': round(wall, 1), 'tokens_per_s': round(toks / wall, 2)})
                print(json.dumps(rows[-1]), flush=True)
    tps = {m: sum(r['completion_tokens'] for r in rows if r['mode'] == m) / sum(r['wall_s'] for r in rows if r['mode'] == m)
           for m in ('one', 'per-core')}
    calls = {m: sum(r['calls'] for r in rows if r['mode'] == m) / sum(r['wall_s'] for r in rows if r['mode'] == m) * 3600
             for m in ('one', 'per-core')}
    print(json.dumps({'model': a.model, 'prompts_per_rollout': a.prompts, 'reps': a.reps,
                      'calls_per_hour': {k: round(v, 1) for k, v in calls.items()},
                      'per_core_over_one_tokens_per_s': round(tps['per-core'] / tps['one'], 3),
                      'per_core_over_one_calls_per_hour': round(calls['per-core'] / calls['one'], 3)}, indent=1))

if __name__ == '__main__': main()
