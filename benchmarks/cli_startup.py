"""Benchmark: `hibd --help` start-up, lazy imports against the eager start-up the CLI had before (issue 36).

The CLI used to import every layer it dispatches to (runs, report, excess, success, bench, llama: pandas, altair,
scipy, statsmodels, instructor, openai) before it could print its help. Now each command imports what it needs when
it runs. This script times both side by side, paired run by run in one process (A B A B ...):

- lazy:  `python -c "from hibd.cli import main; main(['--help'])"` (what `hibd --help` does)
- eager: the same, after importing the modules the old CLI imported at start-up (today's start-up, reproduced)

and prints the median wall and CPU seconds of each and the median of the paired ratios lazy / eager.

    python benchmarks/cli_startup.py [--runs 7]

Not a unit test: timings depend on the machine. The machine is shared: read the ratio, not the seconds.
"""
import argparse, os, resource, statistics, subprocess, sys, time

EAGER = ('hibd.tasks', 'hibd.bench', 'hibd.llama', 'hibd.sandbox', 'hibd.harnesses', 'hibd.models', 'hibd.runs',
         'hibd.pairs', 'hibd.report', 'hibd.excess', 'hibd.success', 'hibd.stats')
HELP = "from hibd.cli import main; main(['--help'], standalone_mode=False)"

def timed(code: str) -> tuple[float, float]:
    "Wall and CPU seconds of one `python -c code` process, its output thrown away."
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, '-c', code], check=True, stdout=subprocess.DEVNULL, env={**os.environ})
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

def main(runs: int = 7):
    eager = ''.join(f'import {m}; ' for m in EAGER) + HELP
    timed(HELP); timed(eager)                                    # warm the file cache, not counted
    lazy_t, eager_t = [], []
    for _ in range(runs):
        lazy_t.append(timed(HELP)); eager_t.append(timed(eager))
    med = lambda xs, i: statistics.median(x[i] for x in xs)
    print(f'hibd --help, {runs} paired runs (median): lazy {med(lazy_t, 0):.2f} s wall, {med(lazy_t, 1):.2f} s cpu; '
          f'eager {med(eager_t, 0):.2f} s wall, {med(eager_t, 1):.2f} s cpu')
    ratio = lambda i: statistics.median(a[i] / b[i] for a, b in zip(lazy_t, eager_t))
    print(f'ratio lazy / eager (median of pairs): wall {ratio(0):.3f}, '
          f'cpu {ratio(1):.3f}')

if __name__ == '__main__':
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--runs', type=int, default=7)
    main(p.parse_args().runs)
