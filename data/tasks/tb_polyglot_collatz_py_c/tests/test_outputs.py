"""Tests for the Terminal-Bench-style task polyglot-collatz-py-c."""
import os, shutil, subprocess, tempfile
from pathlib import Path
import pytest

SRC = Path('/app/polyglot/main.py.c')
CASES = [1, 2, 3, 6, 7, 27, 97, 871, 77031, 837799, 8400511, 63728127, 319804831, 670617279, 1000000000]

def steps(n):
    k = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        k += 1
    return k

@pytest.fixture(scope='module')
def cbin():
    assert SRC.is_file(), 'missing /app/polyglot/main.py.c'
    d = tempfile.mkdtemp(prefix='polyglot-test-')
    exe = os.path.join(d, 'cmain')
    r = subprocess.run(['gcc', str(SRC), '-o', exe], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, f'gcc failed:\n{r.stderr}'
    yield exe
    shutil.rmtree(d, ignore_errors=True)

def test_python_outputs():
    assert SRC.is_file(), 'missing /app/polyglot/main.py.c'
    for n in CASES:
        r = subprocess.run(['python3', str(SRC), str(n)], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, f'python3 failed for {n}: {r.stderr}'
        assert r.stdout == f'{steps(n)}\n', f'python3 main.py.c {n} printed {r.stdout!r}'

def test_c_compiles(cbin):
    assert os.access(cbin, os.X_OK)

def test_c_outputs(cbin):
    for n in CASES:
        r = subprocess.run([cbin, str(n)], capture_output=True, text=True, timeout=30)
        assert r.returncode == 0, f'C binary exited {r.returncode} for {n}'
        assert r.stdout == f'{steps(n)}\n', f'C binary printed {r.stdout!r} for {n}'

def test_folder_holds_only_the_polyglot():
    assert sorted(os.listdir('/app/polyglot')) == ['main.py.c']
