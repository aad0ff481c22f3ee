#!/bin/bash
# Reference solution for polyglot-collatz-py-c. Blocks are separated by lines that are exactly "# ---".
# First attempt: a plain Python program. It runs under python3, but gcc rejects it (shown, not fatal).
cd /app/polyglot
cat > main.py.c <<'PY'
import sys
n = int(sys.argv[1]); k = 0
while n != 1:
    n = n // 2 if n % 2 == 0 else 3 * n + 1
    k += 1
print(k)
PY
python3 main.py.c 27
gcc main.py.c -o /tmp/cmain 2>&1 | head -n 5 || true
# ---
# The usual trick: "#if 0 ... #endif" hides a line from C, and "#" starts a comment in Python; a triple-quoted
# string hides the C code from Python. C code must not contain three double quotes in a row.
cd /app/polyglot
cat > main.py.c <<'POLY'
#if 0
"""
#endif
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    unsigned long long n;
    long k = 0;
    if (argc < 2) return 2;
    n = strtoull(argv[1], NULL, 10);
    while (n != 1) {
        n = (n % 2 == 0) ? n / 2 : 3 * n + 1;
        k++;
    }
    printf("%ld\n", k);
    return 0;
}
#if 0
"""
import sys
n = int(sys.argv[1]); k = 0
while n != 1:
    n = n // 2 if n % 2 == 0 else 3 * n + 1
    k += 1
print(k)
#endif
POLY
# ---
# Check both languages on a few values, including one whose trajectory peaks above 2^60.
cd /app/polyglot
gcc main.py.c -o /tmp/cmain
for n in 1 6 27 319804831 1000000000; do
  echo "$n: py=$(python3 main.py.c $n) c=$(/tmp/cmain $n)"
done
# ---
cd /app/polyglot
rm -f README.txt cmain a.out
ls -A
