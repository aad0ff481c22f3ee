"""Re-ask a recorded rollout's first steps with today's code and no cache, and say whether every call reproduces.

    python tools/reproduce.py data/runs/record_code code_dict_key_error__H0__s0__K8 --steps 2 [--out FILE.json]

A recorded call is reproduced when the prompt hashes to the same call key and the model's raw text is byte-identical.
It needs the run's model (the embedded one for the shipped runs): each step is one model call.
"""
import argparse, json, sys, time
from pathlib import Path
from hibd.runs import make_backend, parse_config
from hibd.rollout import rollout


def recorded(run: Path, rid: str) -> dict:
    "The step records of rollout `rid` in `run`, by step."
    f = run/'rollouts'/f'{rid}.jsonl'
    if not f.is_file(): sys.exit(f'{f}: no such rollout')
    return {r['step']: r for r in map(json.loads, f.read_text().splitlines()) if r.get('kind') == 'step'}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('run', type=Path); ap.add_argument('rollout'); ap.add_argument('--steps', type=int, default=2)
    ap.add_argument('--out', type=Path)
    a = ap.parse_args()
    cfg = parse_config(json.loads((a.run/'manifest.json').read_text())['config'])
    old = recorded(a.run, a.rollout)
    first = old[0]
    backend = make_backend(cfg.model.spec)
    t0 = time.perf_counter()
    new = rollout(first['task'], first['harness'], backend, K=a.steps - 1, seed=first['seed'], mode=cfg.mode,
                  temperature=cfg.temperature, max_tokens=cfg.limits.tokens_per_call, max_retries=cfg.model.max_retries,
                  show_previous_belief=cfg.show_previous_belief, seed_stream=cfg.seed_stream)
    rows = [{'step': r['step'], 'same_key': r['call_key'] == old[r['step']]['call_key'],
             'same_raw': r['raw_texts'] == old[r['step']]['raw_texts'], 'same_belief': r['belief'] == old[r['step']]['belief']}
            for r in new]
    out = {'run': a.run.name, 'rollout': a.rollout, 'model': backend.model, 'run_id': first.get('run_id'),
           'steps': rows, 'reproduced': all(x['same_key'] and x['same_raw'] for x in rows), 'seconds': round(time.perf_counter() - t0)}
    print(json.dumps(out, indent=1))
    if a.out: a.out.write_text(json.dumps(out, indent=1) + '\n')
    return 0 if out['reproduced'] else 1


if __name__ == '__main__': sys.exit(main())
