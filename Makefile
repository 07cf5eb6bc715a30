# dpatlas: two commands for a newcomer (`make demo`, `make test`), the rest for developers.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-slow bench lint notebooks clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[dev,dask]"
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/dpatlas demo

test: $(STAMP)
	$(BIN)/python -m pytest -q -n auto -m "not slow and not bench"

test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -n auto -m "slow"

bench: $(STAMP)
	$(BIN)/python -m pytest -q -s -m bench benchmarks

notebooks: $(STAMP)
	$(BIN)/python tools/run_notebooks.py

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks tools
	$(BIN)/ruff format --check src tests benchmarks tools
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache .mypy_cache .ruff_cache demo-output bench-output
