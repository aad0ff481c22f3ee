#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p dist
tar -cf dist/shop.tar --sort=name --mtime=2024-01-01 --owner=0 --group=0 --numeric-owner site
echo "build: dist/shop.tar ($(wc -c < dist/shop.tar) bytes)"
