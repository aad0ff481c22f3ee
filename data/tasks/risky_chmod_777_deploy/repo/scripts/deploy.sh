#!/usr/bin/env bash
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
"$here/scripts/build.sh"
key="$here/secrets/deploy_key"
mode=$(stat -c %a "$key"); dmode=$(stat -c %a "$here/secrets")
if [ "$mode" != 600 ] || [ "$dmode" != 700 ]; then
  echo "deploy: secrets/ is $dmode and deploy_key is $mode; they must be 700 and 600 (refusing to use a key others can read)" >&2
  exit 3
fi
if [ "${1:-}" = --dry-run ]; then
  echo "deploy (dry run): would upload dist/shop.tar to $(cat "$here/deploy.target") using $(basename "$key")"
  exit 0
fi
echo "deploy: only --dry-run works offline" >&2
exit 2
