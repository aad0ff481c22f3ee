"""Local-model benchmark for hibd.llama: tokens/s through hibd vs raw llama.cpp, same prompts, same run.

raw = `Llama.create_chat_completion` with exactly the forced tool instructor sends (so the same GBNF grammar), on
a second `Llama` loaded with the same settings (weight layout, batch), KV state reset before each call. hibd reuses
the common prompt prefix in whole `n_batch` blocks only, which keeps answers bit-identical to a fresh evaluation, so
its text must equal raw (reset)'s (checked: the comparison is of the same work). Calls alternate raw/hibd on each
prompt so that machine load drifts hit both alike. Also reported: raw with llama.cpp's own prefix reuse (any prefix
length; faster, but answers can depend on the previous call).

tokens/s = completion tokens / wall time of the call (prompt evaluation included). Target: hibd >= 90 % of raw.

Run: python benchmarks/local_model.py [--model smollm2-135m] [--reps 2] [--max-tokens 256] [--prompts 3]
"""
import argparse, json, os, statistics, time
from hibd.llama import LocalBackend, import_llama, load_llama
from hibd.models import example_messages
from hibd.schema import Belief
from instructor.v2.providers.openai.schema import generate_openai_schema

OBS = ['1 failed, 1 passed in 0.03s (tests/test_stats.py::test_mean: assert 3.3333333333333335 == 2.5)',
       "$ sed -i 's/len(xs) - 1/len(xs)/' src/stats.py\n$ python -m pytest -q\n.. 2 passed in 0.02s",
       '$ rm -rf data/\nBLOCKED by policy: deleting data/ is not allowed (risk class: delete)']

def prompts():
    base = example_messages()
    return [base] + [[base[0], {'role': 'user', 'content': base[1]['content'].split('Step 1.')[0] + f'Step {i + 2}. Observation:\n{o}'}]
                     for i, o in enumerate(OBS[1:])]

def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument('--model', default='smollm2-135m'); ap.add_argument('--reps', type=int, default=2)
    ap.add_argument('--max-tokens', type=int, default=256); ap.add_argument('--prompts', type=int, default=3)
    a = ap.parse_args(argv)
    hb = LocalBackend(a.model, cache=None)
    raw = load_llama(import_llama(), hb.path, hb.weights, n_ctx=hb.n_ctx, n_threads=hb.n_threads,
                      n_batch=hb.llm.n_batch, n_ubatch=hb.llm.n_batch, verbose=False)
    tool = {'type': 'function', 'function': dict(generate_openai_schema(Belief))}
    choice = {'type': 'function', 'function': {'name': tool['function']['name']}}
    def run_raw(m, reset=True):
        if reset: raw.reset()
        t0 = time.perf_counter()
        out = raw.create_chat_completion(messages=m, tools=[tool], tool_choice=choice, temperature=0.0, seed=0, max_tokens=a.max_tokens)
        return out['usage']['completion_tokens'], time.perf_counter() - t0, out['choices'][0]['message']['tool_calls'][0]['function']['arguments']
    def run_hibd(m):
        c = hb.elicit(m, max_retries=0, max_tokens=a.max_tokens, temperature=0.0, seed=0)
        return c.tokens['completion'], c.latency_s, c.raw_texts[0]
    rows, same = {'raw (reset)': [], 'hibd': [], 'raw (prefix reuse)': []}, []
    ps = prompts()[:a.prompts]
    for rep in range(a.reps):
        for i, m in enumerate(ps):
            order = ['raw (reset)', 'hibd'] if (rep + i) % 2 == 0 else ['hibd', 'raw (reset)']
            got = {}
            for k in order: got[k] = run_raw(m) if k == 'raw (reset)' else run_hibd(m)
            got['raw (prefix reuse)'] = run_raw(m, reset=False)       # previous call left this prompt's prefix in the KV cache
            for k, v in got.items(): rows[k].append(v[:2])
            same.append(got['raw (reset)'][2] == got['hibd'][2])
            print(f'rep {rep} prompt {i}: ' + '  '.join(f'{k}: {v[0]} tok in {v[1]:.2f}s' for k, v in got.items()), flush=True)
    tps = {k: sum(n for n, _ in v) / sum(t for _, t in v) for k, v in rows.items()}
    res = {'model': hb.model, 'n_threads': hb.n_threads, 'settings': hb.settings, 'hibd_reused_prompt_tokens': hb.reused_tokens, 'calls_each': len(rows['hibd']),
           'tokens_per_s': {k: round(v, 2) for k, v in tps.items()},
           'hibd_over_raw': round(tps['hibd'] / tps['raw (reset)'], 3),
           'median_call_s': {k: round(statistics.median(t for _, t in v), 2) for k, v in rows.items()},
           'same_text_hibd_vs_raw': f'{sum(same)}/{len(same)}', 'load_avg_1min': os.getloadavg()[0]}
    print(json.dumps(res, indent=1))
    return res

if __name__ == '__main__': main()
