# The notebooks in nbs/ are the source: `make` exports the library, re-executes the notebooks saving their
# outputs (the docs and README show them), strips noisy metadata and regenerates README.md.
.PHONY: all export run clean readme test docs
all: export run clean readme
export:
	nbdev-export
run:
	nbdev-test --save
clean:
	nbdev-clean
readme:
	python tools/make_readme.py
test:
	pytest -q
docs:
	python tools/build_docs.py
