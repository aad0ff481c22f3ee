#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")"
echo "== lint"
lintcheck src
echo "== tests"
python -m pytest -q
