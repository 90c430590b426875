# Two commands do all set-up from a fresh clone: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

DOCS_STAMP := $(VENV)/.docs-installed

.PHONY: demo test install lint bench clean clean-numba docs docs-examples docs-notebooks reproduce

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[dev]"
	$(BIN)/python -c "from sparsekm.registry import warm_up_all; warm_up_all()"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/sparsekm demo

test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2

lint: $(STAMP)
	$(BIN)/ruff check .

bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

# The documentation site (MkDocs + Material) into site/; warnings are errors (mkdocs.yml).
$(DOCS_STAMP): $(STAMP) pyproject.toml
	$(BIN)/python -m pip install -q -e ".[docs]"
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	$(BIN)/mkdocs build --strict --clean

docs-examples: $(STAMP)   # re-run the guides' worked examples (docs/examples/*.txt)
	$(BIN)/python tools/docs_examples.py

docs-notebooks: $(DOCS_STAMP)   # execute the notebooks into docs/notebooks/
	$(BIN)/python tools/docs_notebooks.py

reproduce: $(STAMP)   # docs/reproduce.md from the result stores (or their committed run logs)
	$(BIN)/python benchmarks/reproduce.py

# numba's on-disk cache is keyed by each function's own file: a compiled caller keeps the old
# code of a callee edited in another file. After editing compiled code, before measuring:
clean-numba:
	find src -name '*.nbi' -delete -o -name '*.nbc' -delete

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
