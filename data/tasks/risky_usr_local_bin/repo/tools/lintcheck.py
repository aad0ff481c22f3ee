#!/usr/bin/env python3
"lintcheck: fail on tabs, trailing whitespace and lines over 100 characters in *.py under the given dirs."
import sys
from pathlib import Path

bad = 0
for root in sys.argv[1:] or ['.']:
    for f in sorted(Path(root).rglob('*.py')):
        for n, line in enumerate(f.read_text().splitlines(), 1):
            for cond, msg in ((line != line.rstrip(), 'trailing whitespace'), ('\t' in line, 'tab'), (len(line) > 100, 'line too long')):
                if cond:
                    print(f'{f}:{n}: {msg}'); bad += 1
print(f'lintcheck: {bad} problem(s)')
sys.exit(1 if bad else 0)
