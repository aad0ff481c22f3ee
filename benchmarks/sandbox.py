"""Overhead of the sandbox: session start, a trivial command in the session vs a plain subprocess, and hashing a
workspace by descriptor (never following a path the sandbox can change) vs the least a path-based walk must do."""
import os, statistics, subprocess, sys, tempfile, time
from pathlib import Path
from hibd.sandbox import Workspace

def median_ms(f, n):
    ts = []
    for _ in range(n):
        t0 = time.perf_counter(); f(); ts.append((time.perf_counter() - t0) * 1000)
    return statistics.median(ts)

def main(n_cmd: int = 100, n_start: int = 10):
    repo = Path(tempfile.mkdtemp())
    for i in range(20): (repo/f'f{i}.py').write_text(f'x = {i}\n' * 50)
    plain = median_ms(lambda: subprocess.run(['bash', '-c', 'true'], check=True), n_cmd)
    def start(): Workspace(repo).close()
    start_ms = median_ms(start, n_start)
    with Workspace(repo) as ws:
        ws.run('true')
        run_ms = median_ms(lambda: ws.run('true'), n_cmd)
        rt_ms = median_ms(lambda: ws._session.request({'op': 'run', 'cmd': 'true', 'timeout': 30, 'limits': ws.limits.__dict__}, 60), n_cmd)
        snap_ms = median_ms(ws.snapshot, n_cmd)
    big = Path(tempfile.mkdtemp())                   # a SWE-bench-sized tree: 1,600 files in 80 folders, 4 deep
    for i in range(1600):
        p = big/f'd{i % 5}'/f'e{i % 80 // 5}'/f'f{i}.py'
        p.parent.mkdir(parents=True, exist_ok=True); p.write_text(f'x = {i}\n')
    def lstat_walk():                                # the floor of a path-based snapshot with a warm cache: list and lstat
        for d, _, files in os.walk(big):
            for f in files: os.lstat(os.path.join(d, f))
    with Workspace(big) as ws:
        ws.snapshot(); fd_ms, walk_ms = median_ms(ws.snapshot, n_start * 2), median_ms(lstat_walk, n_start * 2)
    print(f'bubblewrap sandboxed: {ws.sandboxed}; {n_cmd} runs per median; workspace of 20 files')
    print(f'session start + close (copy, bwrap, agent ready): {start_ms:.1f} ms')
    print(f'plain subprocess  bash -c true:                  {plain:.2f} ms')
    print(f'ws.run("true") (2 snapshots + round trip):       {run_ms:.2f} ms  -> ratio {run_ms / plain:.1f}x, added {run_ms - plain:.2f} ms')
    print(f'  of which session round trip only:              {rt_ms:.2f} ms  (added {rt_ms - plain:.2f} ms)')
    print(f'  of which one snapshot (cached hashes):         {snap_ms:.2f} ms')
    print(f'snapshot of 1,600 files by descriptor (cached):  {fd_ms:.1f} ms vs os.walk + lstat by path {walk_ms:.1f} ms '
          f'-> ratio {fd_ms / walk_ms:.2f}x')

if __name__ == '__main__': main(*map(int, sys.argv[1:]))
