# Two commands for a newcomer (each sets up what it needs first, and skips what is done):
#   make quickstart   the main job: a small real sweep with the embedded model (configs/quickstart.toml)
#   make test         the test suite, exactly what CI runs (.ci/run)
# For developers, the notebooks in nbs/ are the source: `make all` exports the library, re-executes the notebooks saving
# their outputs (the docs and README show them), strips noisy metadata and regenerates README.md.
export PATH := $(CURDIR)/.venv/bin:$(PATH)
export VIRTUAL_ENV := $(CURDIR)/.venv
# every core (at most 4 workers: each may load a model), one test module per worker at a time so that a module's fixtures
# (a docs build, all task trajectories, a sweep) are built once; the slowest 15 tests printed at the end
PYTEST_ARGS ?= -q -n auto --maxprocesses 4 --dist loadscope --durations=15

.PHONY: quickstart test all export run clean readme docs
.DEFAULT_GOAL := all
quickstart:
	@tools/setup.sh main
	hibd run configs/quickstart.toml
test:
	@tools/setup.sh test
	python -m pytest $(PYTEST_ARGS)
all: export run clean readme
export:
	nbdev-export
run:
	nbdev-test --save
clean:
	nbdev-clean
readme:
	python tools/make_readme.py
docs:
	python tools/build_docs.py
