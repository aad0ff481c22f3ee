"""Engine benchmark for hibd.models: throughput and per-call overhead against a loopback OpenAI-compatible stub.

The stub (`serve_stub` from tests/stub_server.py, the tests' stub server) runs in its own process, so it does not compete for this process's GIL, and
answers a valid belief after a fixed delay. Reported:

* throughput at concurrency 1/8/32 with a 100 ms model: calls/s and the fraction of the ideal (concurrency / 0.1 s);
  target >= 90 % at 32. For reference, the bare OpenAI SDK (no instructor, no hibd) on the same threads.
* overhead per call with a 0 ms model, sequential: the raw OpenAI SDK call with the same forced-tool payload,
  instructor's patched create (+ validation), and `Backend.elicit` without and with the JSONL cache;
  hibd's overhead = elicit - raw SDK call (target <= 2 ms).

Run: python benchmarks/engine.py [--quick]
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, time
from pathlib import Path
import instructor, openai
from hibd.models import OpenAIBackend, example_messages
from hibd.schema import Belief
from instructor.v2.providers.openai.schema import generate_openai_schema

STUB = Path(__file__).resolve().parent.parent/'tests'/'stub_server.py'   # `python tests/stub_server.py DELAY` serves and prints its URL

def start_stub(delay):
    p = subprocess.Popen([sys.executable, str(STUB), str(delay)], stdout=subprocess.PIPE, text=True)
    return p, p.stdout.readline().strip()

def throughput(url, concurrency, n):
    b = OpenAIBackend('stub-model', base_url=url, concurrency=concurrency, cache=None, timeout=60)
    b.elicit_many([dict(messages=example_messages(), replicate=-1 - i) for i in range(concurrency)])   # warm connections
    reqs = [dict(messages=example_messages(), replicate=i) for i in range(n)]
    t0 = time.perf_counter(); calls = b.elicit_many(reqs); wall = time.perf_counter() - t0
    assert all(c.ok for c in calls), [c.error for c in calls if not c.ok][:3]
    return n / wall

def raw_throughput(url, concurrency, n):
    "The same requests through the bare OpenAI SDK on the same threads: what the client side can do without hibd."
    from concurrent.futures import ThreadPoolExecutor
    import httpx
    client = openai.OpenAI(base_url=url, api_key='sk-local', max_retries=0,
                           http_client=httpx.Client(limits=httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)))
    tools = [{'type': 'function', 'function': dict(generate_openai_schema(Belief))}]
    msgs = example_messages()
    call = lambda i: client.chat.completions.create(model='stub-model', messages=msgs, tools=tools, seed=i,
        tool_choice={'type': 'function', 'function': {'name': 'Belief'}}, temperature=0.0, max_tokens=1024)
    with ThreadPoolExecutor(concurrency) as ex:
        list(ex.map(call, range(concurrency)))
        t0 = time.perf_counter(); list(ex.map(call, range(n))); wall = time.perf_counter() - t0
    return n / wall

def per_call(fn, n):
    for i in range(20): fn(-1 - i)                                   # warm-up
    wall, cpu = [], []
    for i in range(n):
        t0, c0 = time.perf_counter(), time.process_time(); fn(i)
        wall.append(time.perf_counter() - t0); cpu.append(time.process_time() - c0)
    return statistics.median(wall) * 1e3, statistics.mean(cpu) * 1e3

def overheads(url, n):
    msgs = example_messages()
    client = openai.OpenAI(base_url=url, api_key='sk-local', max_retries=0)
    b0 = OpenAIBackend('stub-model', base_url=url, cache=None)
    tools = [{'type': 'function', 'function': dict(generate_openai_schema(Belief))}]     # what instructor sends
    raw = lambda i: client.chat.completions.create(model='stub-model', messages=msgs, tools=tools,
        tool_choice={'type': 'function', 'function': {'name': 'Belief'}}, temperature=0.0, seed=0, max_tokens=1024)
    patched = instructor.patch(create=client.chat.completions.create, mode=instructor.Mode.TOOLS)
    inst = lambda i: patched(model='stub-model', messages=msgs, response_model=Belief, max_retries=2, temperature=0.0, seed=0, max_tokens=1024)
    hib = lambda i: b0.elicit(msgs, replicate=i)
    with tempfile.TemporaryDirectory() as d:
        bc = OpenAIBackend('stub-model', base_url=url, cache=Path(d)/'calls.jsonl')
        hibc = lambda i: bc.elicit(msgs, replicate=i)
        hit = lambda i: bc.elicit(msgs, replicate=0)
        return {'raw SDK call': per_call(raw, n), 'instructor create': per_call(inst, n),
                'hibd elicit (no cache)': per_call(hib, n), 'hibd elicit (+ JSONL cache write)': per_call(hibc, n),
                'hibd cache hit': per_call(hit, n)}

def main(argv=None):
    ap = argparse.ArgumentParser(); ap.add_argument('--quick', action='store_true'); a = ap.parse_args(argv)
    out = {'load_avg_1min_start': os.getloadavg()[0]}
    p, url = start_stub(0.1)
    try:
        for c in (1, 8, 32):
            n = c * (10 if a.quick else 30)
            tput = throughput(url, c, n)
            out[f'concurrency {c}'] = {'calls': n, 'calls_per_s': round(tput, 1), 'fraction_of_ideal': round(tput / (c / 0.1), 3)}
            raw = raw_throughput(url, c, n)
            out[f'concurrency {c}']['raw_sdk_fraction_of_ideal'] = round(raw / (c / 0.1), 3)
            print(f'concurrency {c:>2}: {n:>4} calls, {tput:7.1f} calls/s = {tput / (c / 0.1):6.1%} of ideal ({c / 0.1:.0f}/s);'
                  f'  bare OpenAI SDK on the same threads: {raw / (c / 0.1):6.1%}', flush=True)
    finally: p.terminate(); p.wait()
    p, url = start_stub(0.0)
    try: ov = overheads(url, 100 if a.quick else 300)
    finally: p.terminate(); p.wait()
    base = ov['raw SDK call'][0]
    for k, (w, c) in ov.items(): print(f'{k:<36} median wall {w:6.2f} ms  (+{w - base:5.2f} ms vs raw)   client CPU {c:5.2f} ms/call')
    out['overhead_ms'] = {k: {'median_wall_ms': round(w, 3), 'vs_raw_ms': round(w - base, 3), 'client_cpu_ms': round(c, 3)} for k, (w, c) in ov.items()}
    print(json.dumps(out))
    return out

if __name__ == '__main__': main()
