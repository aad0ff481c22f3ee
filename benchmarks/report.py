"""Benchmark: `hibd report` on the shipped runs against its budget (issue 5: <= 30 s on a finished run, zero model calls).

    python benchmarks/report.py                          # every run in data/runs
    python benchmarks/report.py data/runs/record_code    # one run

Per run it times, in one process and side by side: reading the run (`read_run`), the analyses (`sections`) and
writing the files (`write_report`); wall and CPU seconds (CPU time is what a shared, busy machine inflates
least), and the ratio of the whole to the 30 s budget. This replaces a timed assertion in 15_report: a unit
test that clocks itself fails on a loaded CI machine for reasons that are not the code's.
"""
import argparse, sys, tempfile, time, warnings
from pathlib import Path
from hibd.report import read_run, sections, write_report

ROOT, BUDGET = Path(__file__).resolve().parent.parent, 30.0

def timed(f, *a):
    "Run `f(*a)`; return its result, wall seconds and CPU seconds."
    w, c = time.perf_counter(), time.process_time()
    r = f(*a)
    return r, time.perf_counter() - w, time.process_time() - c

def bench(run: Path) -> dict:
    "Time the three stages of a report of `run`."
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter('ignore')
        d, w0, c0 = timed(read_run, run)
        secs, w1, c1 = timed(sections, d)
        _, w2, c2 = timed(write_report, secs, Path(tmp)/'r', run.name)
    return dict(run=run.name, read=w0, analyse=w1, write=w2, wall=w0+w1+w2, cpu=c0+c1+c2,
                sections=len(secs), failed=sum(s.status == 'error' for s in secs))

if __name__ == '__main__':
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('runs', nargs='*', help='run directories (default: data/runs/*)')
    a = p.parse_args()
    runs = [Path(r) for r in a.runs] or sorted(q for q in (ROOT/'data'/'runs').iterdir() if (q/'manifest.json').exists())
    print(f'{"run":24} {"read s":>7} {"analyse s":>9} {"write s":>8} {"wall s":>7} {"cpu s":>6} {"wall/30s":>8} failed')
    worst = 0.0
    for run in runs:
        r = bench(run)
        worst = max(worst, r['wall'] / BUDGET)
        print(f'{r["run"]:24} {r["read"]:7.1f} {r["analyse"]:9.1f} {r["write"]:8.1f} {r["wall"]:7.1f} {r["cpu"]:6.1f} '
              f'{r["wall"]/BUDGET:8.2f} {r["failed"]}/{r["sections"]}')
    print(f'worst ratio to the {BUDGET:.0f} s budget: {worst:.2f} ({"within" if worst <= 1 else "over"})')
    sys.exit(0 if worst <= 1 else 1)
